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
 */
import { EventStoreUnavailable, UnitOfWork } from "@partnerpay/domain"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"

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

/** `UnitOfWork` on the `SqlClient` in context. */
export const layer: Layer.Layer<UnitOfWork, never, SqlClient> = Layer.effect(UnitOfWork, make)
