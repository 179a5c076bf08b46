/**
 * Providing a service the fiber already holds, without a context update.
 *
 * Every `Effect.provideService` puts an overlay on the fiber's context, and past its overlay budget
 * (`maxDepth`, 8 by default) Effect copies the whole context (every service of the runtime) into a
 * new map. Hooks that run inside a command, such as the event store's append hook, provide services
 * the command's fiber usually holds already with the same value (its unit, the SQL client, the read
 * model store, the outbox). `provideService` here checks first: when the fiber holds that value
 * under that key, the effect runs as it is; otherwise the service is provided as Effect does it.
 */
import { Context, Effect } from "effect"
import { dual } from "effect/Function"

const provide = <A, E, R, I, S>(
  effect: Effect.Effect<A, E, R>,
  key: Context.Key<I, S>,
  value: S,
): Effect.Effect<A, E, Exclude<R, I>> =>
  Effect.withFiber((fiber) =>
    Context.getOrUndefined(fiber.context as Context.Context<I>, key) === value
      ? (effect as Effect.Effect<A, E, Exclude<R, I>>)
      : Effect.provideService(effect, key, value),
  )

/** `Effect.provideService(effect, key, value)`, unless the fiber already holds `value` under `key`. */
export const provideService: {
  <I, S>(
    key: Context.Key<I, S>,
    value: NoInfer<S>,
  ): <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, Exclude<R, I>>
  <A, E, R, I, S>(
    effect: Effect.Effect<A, E, R>,
    key: Context.Key<I, S>,
    value: NoInfer<S>,
  ): Effect.Effect<A, E, Exclude<R, I>>
} = dual(3, provide)
