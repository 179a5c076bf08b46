/**
 * How a use case that records something is written, the one way:
 *
 *   export const cancel = UseCase.fn("Payments.cancel")(function* (partnerId, paymentRequestId) { ... })
 *
 * `UseCase.fn(name)` is `Traced.fn(name)` (a span when the caller traces, no
 * cost when it does not: `kernel/Traced.ts`) whose whole body runs as ONE
 * unit of work: its reads, its decisions (each `CommandHandler.handle`
 * applies the policies in context to what it recorded) and the projections
 * and notifications of its appends commit together or not at all. A version
 * conflict runs the whole body again on fresh reads (at most 3 times, marked
 * `Retrying` so that nothing is assumed new again: see `CommandHandler`). A
 * corrupt stored event becomes a defect (a 500 at the edge, logged), never a
 * typed error a caller could act on.
 *
 * A unit inside a unit joins it (an HTTP request holding an Idempotency-Key
 * runs its whole handler in one unit; a batch runs each item in a nested unit
 * that is undone alone when it fails). Pipeables after the body run outside
 * the unit, after it ended (e.g. mapping a refusal). A provider call belongs
 * outside any unit, so that a retried unit never calls a provider twice: such
 * a use case calls the provider, then a `UseCase.fn` step that records the
 * outcome. Read-only use cases stay plain `Traced.fn`.
 */
import { Effect } from "effect"
import type { SpanOptionsNoTrace } from "effect/Tracer"
import * as Traced from "../kernel/Traced.ts"
import { Retrying } from "./CommandHandler.ts"
import { EventDecodeFailed, type EventStoreUnavailable, VersionConflict } from "./EventStore.ts"
import { transactional, type UnitOfWork } from "./UnitOfWork.ts"

/** A corrupt stored event becomes a defect (a 500 at the edge, logged), never a typed error. */
export const dieOnCorruptEvent = <A, E, R>(
  effect: Effect.Effect<A, E | EventDecodeFailed, R>,
): Effect.Effect<A, Exclude<E, EventDecodeFailed>, R> =>
  Effect.catch(effect, (error) =>
    error instanceof EventDecodeFailed ? Effect.die(error) : Effect.fail(error as Exclude<E, EventDecodeFailed>),
  )

/** What a use case's effect becomes in its unit of work. */
export type InUnit<A, E, R> = Effect.Effect<
  A,
  Exclude<E, EventDecodeFailed> | VersionConflict | EventStoreUnavailable,
  R | UnitOfWork
>

/**
 * Runs `effect` as one unit of work; a version conflict re-runs the whole unit (at most 3 times),
 * marked `Retrying` so that nothing is assumed new again (see CommandHandler `expectNew`).
 */
const unitOfWork = <A, E, R>(effect: Effect.Effect<A, E, R>): InUnit<A, E, R> =>
  transactional(effect).pipe(
    Effect.catchIf(
      (error): error is VersionConflict => error instanceof VersionConflict,
      () =>
        transactional(Effect.provideService(effect, Retrying, true)).pipe(
          Effect.retry({ times: 2, while: (error) => error instanceof VersionConflict }),
        ),
    ),
    dieOnCorruptEvent,
  ) as InUnit<A, E, R>

type ErrorOf<Eff> = [Eff] extends [never]
  ? never
  : [Eff] extends [Effect.Effect<infer _A, infer E, infer _R>]
    ? E
    : never
type ServicesOf<Eff> = [Eff] extends [never]
  ? never
  : [Eff] extends [Effect.Effect<infer _A, infer _E, infer R>]
    ? R
    : never

/** `UseCase.fn(name)`: the body, then optional pipeables (run on the unit's outcome, after it ended). */
export interface Fn {
  // biome-ignore lint/suspicious/noExplicitAny: the shapes of Effect.fn, whose bodies take any arguments.
  <Eff extends Effect.Effect<any, any, any>, AEff, Args extends Array<any>>(
    body: (...args: Args) => Generator<Eff, AEff, never>,
  ): (...args: Args) => InUnit<AEff, ErrorOf<Eff>, ServicesOf<Eff>>
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  <Eff extends Effect.Effect<any, any, any>, AEff, Args extends Array<any>, A>(
    body: (...args: Args) => Generator<Eff, AEff, never>,
    a: (effect: InUnit<AEff, ErrorOf<Eff>, ServicesOf<Eff>>, ...args: Args) => A,
  ): (...args: Args) => A
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  <Eff extends Effect.Effect<any, any, any>, AEff, Args extends Array<any>, A, B>(
    body: (...args: Args) => Generator<Eff, AEff, never>,
    a: (effect: InUnit<AEff, ErrorOf<Eff>, ServicesOf<Eff>>, ...args: Args) => A,
    b: (a: A, ...args: Args) => B,
  ): (...args: Args) => B
}

/** A use case named `name` (as `Traced.fn`) whose body is one unit of work, retried on a version conflict. */
export const fn = (name: string, options?: SpanOptionsNoTrace): Fn => {
  const traced = Traced.fn(name, options) as unknown as (...functions: ReadonlyArray<unknown>) => unknown
  return ((body: unknown, ...pipeables: ReadonlyArray<unknown>) => traced(body, unitOfWork, ...pipeables)) as Fn
}
