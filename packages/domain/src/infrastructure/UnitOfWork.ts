/**
 * The UnitOfWork port: runs an effect atomically. With PostgreSQL it is one
 * database transaction (events, read models and outbox rows commit together).
 * In memory it is a process-wide lock, so concurrent fibers never interleave
 * their read-modify-write of read models; nested units join the outer one.
 */
import { Context, Effect, Layer, Semaphore } from "effect"
import type { EventStoreUnavailable, VersionConflict } from "./EventStore.ts"

export class UnitOfWork extends Context.Service<
  UnitOfWork,
  {
    /**
     * Runs `effect` atomically. A conflict found when the unit is written (PostgreSQL checks every
     * expected version and document revision at commit) fails it with `VersionConflict`: run it again.
     */
    transactional<A, E, R>(
      effect: Effect.Effect<A, E, R>,
    ): Effect.Effect<A, E | VersionConflict | EventStoreUnavailable, R>
  }
>()("partnerpay/domain/UnitOfWork") {
  static readonly layerMemory: Layer.Layer<UnitOfWork> = Layer.sync(UnitOfWork, () => {
    const lock = Semaphore.makeUnsafe(1)
    return UnitOfWork.of({
      transactional: Effect.fnUntraced(function* <A, E, R>(effect: Effect.Effect<A, E, R>) {
        const inside = yield* InsideUnitOfWork
        return yield* inside ? effect : lock.withPermits(1)(Effect.provideService(effect, InsideUnitOfWork, true))
      }),
    })
  })
}

/** Runs `effect` as one unit of work (`UseCase.fn` adds the bounded retry; this is the bare port). */
export const transactional = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
): Effect.Effect<A, E | VersionConflict | EventStoreUnavailable, R | UnitOfWork> =>
  Effect.flatMap(UnitOfWork, (uow) => uow.transactional(effect))

/** True while the current fiber runs inside an in-memory unit of work. */
const InsideUnitOfWork = Context.Reference<boolean>("partnerpay/domain/InsideUnitOfWork", { defaultValue: () => false })
