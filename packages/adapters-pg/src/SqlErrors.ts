/**
 * How the read-side adapters report database failures: as the domain's
 * `EventStoreUnavailable` with a short reason; the SQL error itself is logged
 * at warning level, never returned (it may quote data).
 */
import { EventStoreUnavailable } from "@partnerpay/domain"
import { Effect } from "effect"
import type { SqlError } from "effect/sql/SqlError"

/** Maps `SqlError` to `EventStoreUnavailable("<what>: database error (<reason>)")`. */
export const unavailable =
  (what: string) =>
  <A, E, R>(
    effect: Effect.Effect<A, E | SqlError, R>,
  ): Effect.Effect<A, Exclude<E, SqlError> | EventStoreUnavailable, R> =>
    Effect.catchTag(effect as Effect.Effect<A, SqlError, R>, "SqlError", (error: SqlError) =>
      Effect.logWarning(`${what} failed`, error).pipe(
        Effect.andThen(
          Effect.fail(new EventStoreUnavailable({ reason: `${what}: database error (${error.reason._tag})` })),
        ),
      ),
    ) as Effect.Effect<A, Exclude<E, SqlError> | EventStoreUnavailable, R>
