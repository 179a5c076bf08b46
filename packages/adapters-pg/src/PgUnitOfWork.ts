/**
 * The domain `UnitOfWork` port on PostgreSQL: the effect runs with a fresh
 * `PgUnit.Unit` in context; its appends, read-model writes and outbox rows
 * stay in the unit, and when the effect succeeds the unit is committed by one
 * `commit_unit` statement (all or nothing, one round trip). Reads made during
 * the unit go to the database as plain statements (no transaction is open
 * while the use case decides), so units never hold locks or connections while
 * Node works. A failed effect writes nothing. A nested unit joins the outer
 * one like a savepoint: if it fails, what it added to the unit is dropped and
 * the outer unit goes on (e.g. a batch whose refused items are skipped).
 *
 * A conflict found at commit (a stream's expected version, or a document
 * revision read by the unit) fails the unit with `VersionConflict`: the
 * caller's bounded retry runs the whole unit again on fresh reads.
 */
import { type EventStore, Traced, UnitOfWork } from "@partnerpay/domain"
import { Effect, Layer, Metric } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as PgMetrics from "./PgMetrics.ts"
import * as PgUnit from "./PgUnit.ts"

/** One update of each counter per commit (the events the unit wrote; an empty unit wrote nothing). */
const countCommitted = (unit: PgUnit.Unit, committed: PgUnit.Committed): Effect.Effect<void> => {
  if (unit.isEmpty) return Effect.void
  let events = 0
  let index = 0
  for (const stream of unit.streams.values()) {
    // A replayed stream (its events were already recorded) wrote nothing new.
    if (committed.streams[index]?.replayed !== true) events += stream.events.length
    index++
  }
  return Effect.andThen(Metric.update(PgMetrics.unitsCommitted, 1), Metric.update(PgMetrics.eventsAppended, events))
}

export const make = Traced.fn("PgUnitOfWork.make")(function* () {
  const sql = yield* SqlClient
  return UnitOfWork.UnitOfWork.of({
    transactional: Effect.fnUntraced(function* <A, E, R>(
      effect: Effect.Effect<A, E, R>,
    ): Effect.fn.Return<A, E | EventStore.VersionConflict | EventStore.EventStoreUnavailable, R> {
      const outer = yield* PgUnit.CurrentUnit
      if (outer !== undefined) {
        const mark = outer.mark()
        return yield* Effect.onError(effect, () => Effect.sync(() => outer.restore(mark)))
      }
      const unit = new PgUnit.Unit()
      const result = yield* Effect.provideService(effect, PgUnit.CurrentUnit, unit)
      const committed = yield* PgUnit.commit(sql, unit).pipe(
        Effect.tapError((error) =>
          error._tag === "VersionConflict" ? Metric.update(PgMetrics.unitsConflicted, 1) : Effect.void,
        ),
      )
      yield* countCommitted(unit, committed)
      return result
    }),
  })
})

/** `UnitOfWork` on the `SqlClient` in context. */
export const layer: Layer.Layer<UnitOfWork.UnitOfWork, never, SqlClient> = Layer.effect(UnitOfWork.UnitOfWork, make())
