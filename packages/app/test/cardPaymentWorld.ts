/**
 * Test support for the card processor's callbacks (`CardProcessorCallbacks.test.ts`,
 * `StripeCallbacks.test.ts`): the domain on PGlite with the sandbox providers, a
 * verified company with one terminal card payment of 40 USD, and a route served
 * as a web handler over that context (disposed with the test's scope).
 */
import { PgDatabase } from "@partnerpay/adapters-pg"
import { CardPayments, Companies, Ids } from "@partnerpay/domain"
import { type Context, Effect, Layer, type Scope } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import * as Domain from "../src/Domain.ts"
import * as SandboxProviders from "../src/sandbox/SandboxProviders.ts"
import { companyBody } from "./support.ts"

export const partnerId = Ids.PartnerId.make("0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6d")

/** What the world's context holds: the domain on PGlite and the sandbox providers. */
export type CardWorld =
  | Domain.DomainPorts
  | Layer.Success<ReturnType<typeof PgDatabase.layerPglite>>
  | Layer.Success<ReturnType<typeof SandboxProviders.layerSandbox>>

/** The world: its context, a verified company and that company's terminal card payment of 40 USD. */
export interface TerminalCardPayment {
  readonly context: Context.Context<CardWorld>
  readonly companyId: Ids.CompanyId
  readonly cardPaymentId: Ids.CardPaymentId
}

/** The domain's context, a verified company (`companyReferenceId`) and its terminal card payment of 40 USD. */
export const terminalCardPayment = (
  companyReferenceId: string,
): Effect.Effect<TerminalCardPayment, unknown, Scope.Scope> =>
  Effect.gen(function* () {
    const context = yield* Layer.build(
      Layer.mergeAll(
        Domain.layer.pipe(Layer.provideMerge(PgDatabase.layerPglite())),
        SandboxProviders.layerSandbox({ signingDelayMillis: 0 }),
      ),
    )
    const { companyId, cardPaymentId } = yield* Effect.provide(
      Effect.gen(function* () {
        const company = yield* Companies.register(partnerId, companyBody({ companyReferenceId }))
        yield* Companies.completeKyb(company.companyId, "Verified")
        const registered = yield* CardPayments.register({
          partnerId,
          merchantId: company.companyId as string as Ids.MerchantId,
          amount: { value: 40, currencyCode: "USD" },
          last4: "4242",
          brand: "visa",
          externalReference: "terminal-1",
        })
        return { companyId: company.companyId, cardPaymentId: registered.cardPaymentId }
      }),
      context,
    )
    return { context, companyId, cardPaymentId }
  })

/** `routes` served over `context` as a web handler, disposed when the scope closes. */
export const webHandler = (
  routes: Layer.Layer<never, never, HttpRouter.HttpRouter | CardWorld>,
  context: Context.Context<CardWorld>,
): Effect.Effect<{ readonly handler: (request: Request) => Promise<Response> }, never, Scope.Scope> =>
  Effect.gen(function* () {
    const app = HttpRouter.toWebHandler(
      routes.pipe(Layer.provide(Layer.succeedContext(context)), Layer.provide(HttpServer.layerServices)),
      { disableLogger: true },
    )
    yield* Effect.addFinalizer(() => Effect.promise(() => app.dispose()))
    return app
  })
