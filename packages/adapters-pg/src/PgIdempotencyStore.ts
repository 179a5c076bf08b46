/**
 * The IdempotencyStore on PostgreSQL (table `idempotency_keys`, migration 0003).
 *
 * `begin` is one atomic statement: `INSERT ... ON CONFLICT (scope, key) DO
 * UPDATE ... WHERE <the existing row is expired or a stale in-progress claim>
 * RETURNING`. A returned row means this request claimed the key (`Started`);
 * otherwise the existing row is read and compared (`Replay`, `InProgress`,
 * `Mismatch`). Two simultaneous claims of one key serialise on the row lock
 * of the primary key, so exactly one wins.
 *
 * Expired rows are ignored by `begin` (a claim overwrites them) and deleted
 * by a purge that `begin` runs at most once per `purgeEveryMillis` per process.
 * Every database failure becomes `EventStoreUnavailable` (answered as 503).
 */
import { EventStore, IdempotencyStore, Traced } from "@partnerpay/domain"
import { DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { logFailure } from "./SqlErrors.ts"

export interface Options {
  /** Minimum interval between purges of expired rows (default one minute). */
  readonly purgeEveryMillis?: number
}

interface Row {
  readonly request_hash: string
  readonly status: number | null
  readonly content_type: string | null
  readonly body: Uint8Array | null
}

const unavailable = (error: SqlError) =>
  logFailure("idempotency store", error).pipe(
    Effect.andThen(
      Effect.fail(
        new EventStore.EventStoreUnavailable({ reason: `idempotency store: database error (${error.reason._tag})` }),
      ),
    ),
  )

/** Builds the store on the `SqlClient` in context. */
export const make = Traced.fn("PgIdempotencyStore.make")(function* (
  options: Options = {},
): Effect.fn.Return<IdempotencyStore.IdempotencyStore["Service"], never, SqlClient> {
  const sql = yield* SqlClient
  const purgeEveryMillis = options.purgeEveryMillis ?? 60_000
  let lastPurge = Number.NEGATIVE_INFINITY

  const purge = (now: number) =>
    Effect.suspend(() => {
      if (now - lastPurge < purgeEveryMillis) return Effect.void
      lastPurge = now
      return sql`DELETE FROM idempotency_keys WHERE expires_at <= ${new Date(now)}`.pipe(
        Effect.asVoid,
        Effect.catch((error) => logFailure("idempotency purge", error)),
      )
    })

  const claim = (scope: string, key: string, requestHash: string, now: number) =>
    sql<{ claimed: number }>`
        INSERT INTO idempotency_keys (scope, key, request_hash, started_at, expires_at)
        VALUES (${scope}, ${key}, ${requestHash}, ${new Date(now)}, ${new Date(now + IdempotencyStore.retentionMillis)})
        ON CONFLICT (scope, key) DO UPDATE SET
          request_hash = EXCLUDED.request_hash,
          started_at = EXCLUDED.started_at,
          expires_at = EXCLUDED.expires_at,
          status = NULL,
          content_type = NULL,
          body = NULL,
          completed_at = NULL
        WHERE idempotency_keys.expires_at <= EXCLUDED.started_at
           OR (idempotency_keys.status IS NULL
               AND idempotency_keys.started_at <= ${new Date(now - IdempotencyStore.staleAfterMillis)})
        RETURNING 1 AS claimed`

  const read = (scope: string, key: string) =>
    sql<Row>`
        SELECT request_hash, status, content_type, body
        FROM idempotency_keys WHERE scope = ${scope} AND key = ${key}`

  const begin = Traced.fn("PgIdempotencyStore.begin")(function* (
    scope: string,
    key: string,
    requestHash: string,
    at: DateTime.Utc,
  ): Effect.fn.Return<IdempotencyStore.BeginResult, SqlError> {
    const now = DateTime.toEpochMillis(at)
    yield* purge(now)
    // A row can vanish between the claim and the read (abandoned); then claim again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const claimed = yield* claim(scope, key, requestHash, now)
      if (claimed.length > 0) return IdempotencyStore.Started
      const [row] = yield* read(scope, key)
      if (row === undefined) continue
      if (row.request_hash !== requestHash) return IdempotencyStore.Mismatch
      if (row.status === null) return IdempotencyStore.InProgress
      return IdempotencyStore.Replay({
        status: row.status,
        contentType: row.content_type ?? undefined,
        body: row.body === null ? new Uint8Array() : new Uint8Array(row.body),
      })
    }
    return IdempotencyStore.InProgress
  })

  return IdempotencyStore.IdempotencyStore.of({
    begin: (scope, key, requestHash, now) =>
      begin(scope, key, requestHash, now).pipe(Effect.catchTag("SqlError", unavailable)),
    complete: (scope, key, response) =>
      sql`
          UPDATE idempotency_keys
          SET status = ${response.status}, content_type = ${response.contentType ?? null},
              body = ${Buffer.from(response.body)}, completed_at = now()
          WHERE scope = ${scope} AND key = ${key} AND status IS NULL`.pipe(
        Effect.asVoid,
        Effect.catchTag("SqlError", unavailable),
      ),
    abandon: (scope, key) =>
      sql`DELETE FROM idempotency_keys WHERE scope = ${scope} AND key = ${key} AND status IS NULL`.pipe(
        Effect.asVoid,
        Effect.catchTag("SqlError", unavailable),
      ),
  })
})

/** The store as a layer (run `Migrations.layer` first). */
export const layer = (options: Options = {}): Layer.Layer<IdempotencyStore.IdempotencyStore, never, SqlClient> =>
  Layer.effect(IdempotencyStore.IdempotencyStore, make(options))
