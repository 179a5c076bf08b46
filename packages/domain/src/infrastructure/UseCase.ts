/**
 * Plumbing shared by the customer, debit authorization, card payment and
 * charity use cases: the unit of work (retried as a whole on a version
 * conflict, so a retry never runs inside a failed transaction) and the
 * treatment of a corrupt stored event (a defect of the system, not something
 * a caller can act on).
 */
import { Effect } from "effect"
import { Retrying } from "./CommandHandler.ts"
import { EventDecodeFailed, VersionConflict } from "./EventStore.ts"
import { transactional } from "./UnitOfWork.ts"

/** A corrupt stored event becomes a defect (a 500 at the edge, logged), never a typed error. */
export const dieOnCorruptEvent = <A, E, R>(
  effect: Effect.Effect<A, E | EventDecodeFailed, R>,
): Effect.Effect<A, Exclude<E, EventDecodeFailed>, R> =>
  Effect.catch(effect, (error) =>
    error instanceof EventDecodeFailed ? Effect.die(error) : Effect.fail(error as Exclude<E, EventDecodeFailed>),
  )

/**
 * Runs `effect` as one unit of work; a version conflict re-runs the whole unit (at most 3 times),
 * marked `Retrying` so that nothing is assumed new again (see CommandHandler `expectNew`).
 */
export const unitOfWork = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  transactional(effect).pipe(
    Effect.catchIf(
      (error): error is VersionConflict => error instanceof VersionConflict,
      () =>
        transactional(Effect.provideService(effect, Retrying, true)).pipe(
          Effect.retry({ times: 2, while: (error) => error instanceof VersionConflict }),
        ),
    ),
    dieOnCorruptEvent,
  )
