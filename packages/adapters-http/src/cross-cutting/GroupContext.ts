/**
 * An API group's handlers built with a small context: only the services they use.
 *
 * HttpApiBuilder provides a group's build context to every request of the group, and Effect 4.1's
 * `Context.merge` copies the request's context and adds each of the group's services to the copy
 * (`OverlayBudget.ts`): the fewer the group holds, the smaller that copy. `only(layer, services)`
 * builds `layer` in a context holding `services` (which must name every service the layer requires:
 * checked by the type), the domain's references (which no type names, but the use cases read) and
 * the scope. Whatever else a handler reads comes from the request's context.
 */
import { CommandHandler, Payments, PersonalData, RailCapabilities, Tenancy } from "@partnerpay/domain"
import { Context, Effect, Layer, Scope } from "effect"
import type { HttpRouter } from "effect/http"

/** What a group layer requires: its middleware, and its handlers' services (request-level markers unwrapped). */
type Required<R> = HttpRouter.Request.Without<R> | HttpRouter.Request.Only<"Requires", R>

/** The domain's references a use case may read; provided when set (their defaults otherwise). */
const domainReferences: ReadonlyArray<Context.Key<never, unknown>> = [
  Payments.SandboxAttachmentUrls,
  RailCapabilities.CurrentPayerLimit,
  PersonalData.PhoneIndex,
  Tenancy.CurrentPartner,
  CommandHandler.Retrying,
] as ReadonlyArray<Context.Key<never, unknown>>

/** `layer` built with only `services` (every service it requires), the domain's references and the scope. */
// biome-ignore lint/suspicious/noExplicitAny: any key; the identifiers are read from the services given.
export const only = <A, E, R, const Services extends ReadonlyArray<Context.Key<any, any>>>(
  layer: Layer.Layer<A, E, R>,
  services: [Required<R>] extends [Context.Service.Identifier<Services[number]>] ? Services : never,
): Layer.Layer<A, E, R> => {
  const keys = [...services, ...domainReferences, Scope.Scope].map((service) => service.key)
  return Layer.fromBuild((memoMap, scope) =>
    Effect.updateContext(Layer.buildWithMemoMap(layer, memoMap, scope), (context: Context.Context<R>) => {
      const picked = new Map<string, unknown>()
      const all = context.mapUnsafe
      for (const key of keys) if (all.has(key)) picked.set(key, all.get(key))
      return Context.makeUnsafe<R>(picked)
    }),
  )
}
