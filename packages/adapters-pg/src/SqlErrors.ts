/**
 * How database failures are reported and logged.
 *
 * A SQL error's message, detail and query may quote data (a duplicate key's
 * value, a parameter), so none of them is ever logged or returned: a failure
 * is described by the operation that failed, the error's kind and its
 * SQLSTATE code (`describe`), e.g. `{ operation: "read model query", reason:
 * "UniqueViolation", code: "23505" }`. The read-side adapters report it as
 * the domain's `EventStoreUnavailable` with a short reason; the app's logger
 * replaces any SQL error that still reaches a log line (`redact`).
 */
import { EventStore } from "@partnerpay/domain"
import { Effect, Metric } from "effect"
import { isSqlError, type SqlError } from "effect/sql/SqlError"
import * as PgMetrics from "./PgMetrics.ts"

/** What may be logged about a database failure. */
export interface DatabaseFailure {
  /** What partnerpay was doing (ours, or the SQL client's operation). */
  readonly operation: string
  /** The error's kind (`UniqueViolation`, `ConnectionError`, ...). */
  readonly reason: string
  /** The SQLSTATE code when the server gave one (`23505`), else the driver's code (`ECONNREFUSED`). */
  readonly code: string | undefined
}

const codeOf = (error: SqlError): string | undefined => {
  const cause = (error.reason as { readonly cause?: unknown }).cause
  const code = typeof cause === "object" && cause !== null ? (cause as { readonly code?: unknown }).code : undefined
  return typeof code === "string" && /^[A-Za-z0-9_]{1,32}$/.test(code) ? code : undefined
}

/** The loggable description of `error` while doing `operation`. */
export const describe = (error: SqlError, operation?: string): DatabaseFailure => ({
  operation: operation ?? error.reason.operation ?? "query",
  reason: error.reason._tag,
  code: codeOf(error),
})

/**
 * Whether `error` is a statement's wait for a pooled session that ran out (`SessionTimeouts.acquireMillis`:
 * the patched pool fails it with a `ConnectionError` of operation "acquire").
 */
export const isAcquireTimeout = (error: SqlError): boolean =>
  error.reason._tag === "ConnectionError" && error.reason.operation === "acquire"

/** Counts `error` when a timeout ended it (`partnerpay_database_timeouts_total{kind}`). */
export const countTimeout = (error: SqlError): Effect.Effect<void> => {
  const kind = isAcquireTimeout(error) ? "acquire" : PgMetrics.timeoutKindOf(codeOf(error))
  return kind === undefined ? Effect.void : Metric.update(PgMetrics.databaseTimeouts(kind), 1)
}

/** Logs a database failure at warning level: the operation, reason and code only (a timeout is counted). */
export const logFailure = (operation: string, error: SqlError): Effect.Effect<void> =>
  Effect.andThen(countTimeout(error), Effect.logWarning("database failure", describe(error, operation)))

/** An error standing for a SQL error in logs: its message is the description, it has no stack of the original. */
export class RedactedSqlError extends Error {
  readonly failure: DatabaseFailure
  constructor(failure: DatabaseFailure) {
    super(
      `database failure in ${failure.operation}: ${failure.reason}${failure.code === undefined ? "" : ` (code ${failure.code})`}`,
    )
    this.name = "SqlError"
    this.failure = failure
    this.stack = `${this.name}: ${this.message}`
  }
  toJSON(): DatabaseFailure & { readonly _tag: "SqlError" } {
    return { _tag: "SqlError", ...this.failure }
  }
}

/** `value` itself, or, when it is a SQL error, its redacted stand-in (for loggers). */
export const redact = (value: unknown): unknown => (isSqlError(value) ? new RedactedSqlError(describe(value)) : value)

/** Maps `SqlError` to `EventStoreUnavailable("<what>: database error (<reason>)")`, logging only what `describe` says. */
export const unavailable =
  (what: string) =>
  <A, E, R>(
    effect: Effect.Effect<A, E | SqlError, R>,
  ): Effect.Effect<A, Exclude<E, SqlError> | EventStore.EventStoreUnavailable, R> =>
    Effect.catchTag(effect as Effect.Effect<A, SqlError, R>, "SqlError", (error: SqlError) =>
      logFailure(what, error).pipe(
        Effect.andThen(
          Effect.fail(
            new EventStore.EventStoreUnavailable({ reason: `${what}: database error (${error.reason._tag})` }),
          ),
        ),
      ),
    ) as Effect.Effect<A, Exclude<E, SqlError> | EventStore.EventStoreUnavailable, R>
