/**
 * The domain `UnitOfWork` port on PostgreSQL: one database transaction
 * (`sql.withTransaction`; a nested unit becomes a savepoint). Every query made
 * through `SqlClient` inside it, including appends (PgEventStore) and their
 * hook's read model and outbox rows, joins the transaction, because Effect SQL
 * carries the transaction's connection in the fiber's context.
 *
 * Appends inside a unit of work: see PgEventStore.ts. In short, the unit holds
 * the event position lock from its first append until it ends, so keep units
 * short (no provider calls inside), and append before writing anything else.
 *
 * Errors of the wrapped effect pass through unchanged (and roll back); a
 * failure of BEGIN/COMMIT itself becomes `EventStoreUnavailable`.
 *
 * When the connection is lost mid-unit (database restart, terminated backend)
 * the unit fails and then its ROLLBACK fails too; `withTransaction` reports
 * that ROLLBACK failure as a defect (a `Die` of the SqlError) next to the
 * unit's failure, and a defect present makes `Effect.catch` skip the cause, so
 * it used to reach the edge as a 500. Nothing was committed in that case (the
 * server aborts a transaction whose connection is gone), so a defect that is
 * a SqlError is treated as the database being unavailable: the unit's own
 * failure is kept if there is one, else `EventStoreUnavailable`. Any other
 * defect still propagates as a defect.
 */
import { EventStoreUnavailable, UnitOfWork } from "@partnerpay/domain"
import { Cause, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { isSqlError, type SqlError } from "effect/sql/SqlError"

/** Wraps the unit's own failures so they are told apart from the transaction's SqlErrors. */
class Inner<E> {
  readonly error: E
  constructor(error: E) {
    this.error = error
  }
}

export const make: Effect.Effect<UnitOfWork["Service"], never, SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient
  return UnitOfWork.of({
    transactional: <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | EventStoreUnavailable, R> =>
      sql.withTransaction(Effect.mapError(effect, (error) => new Inner(error))).pipe(
        Effect.catchCause((cause) => sqlDefectsAsFailures(cause)),
        Effect.catch((failure: Inner<E> | SqlError): Effect.Effect<never, E | EventStoreUnavailable> => {
          if (failure instanceof Inner) return Effect.fail(failure.error)
          return Effect.logWarning("unit of work failed", failure).pipe(
            Effect.andThen(
              Effect.fail(
                new EventStoreUnavailable({ reason: `unit of work: database error (${failure.reason._tag})` }),
              ),
            ),
          )
        }),
      ),
  })
})

/**
 * A cause whose only defects are SqlErrors (a failed ROLLBACK or COMMIT
 * cleanup on a lost connection) becomes a plain failure: the unit's own
 * failure if it has one, else the first SqlError. When a cause holds a
 * defect, Effect promotes its typed failures to defects too, so the unit's
 * failure (an `Inner`) may appear as a `Die`. Other causes (other defects,
 * interruptions) are unchanged.
 */
const sqlDefectsAsFailures = <E>(cause: Cause.Cause<E>): Effect.Effect<never, E | SqlError> => {
  const defects = cause.reasons.filter(Cause.isDieReason).map((reason) => reason.defect)
  if (defects.length === 0 || Cause.hasInterrupts(cause)) return Effect.failCause(cause)
  if (!defects.every((defect) => defect instanceof Inner || isSqlError(defect))) return Effect.failCause(cause)
  const errors: ReadonlyArray<unknown> = [...cause.reasons.filter(Cause.isFailReason).map((r) => r.error), ...defects]
  const unit = errors.find((error) => error instanceof Inner)
  return Effect.logWarning("unit of work: cleanup failed on a lost connection", cause).pipe(
    Effect.andThen(Effect.fail((unit ?? errors.find(isSqlError)) as E | SqlError)),
  )
}

/** `UnitOfWork` on the `SqlClient` in context. */
export const layer: Layer.Layer<UnitOfWork, never, SqlClient> = Layer.effect(UnitOfWork, make)
