/**
 * The IdempotencyStore on PostgreSQL (table `idempotency_keys`, migrations 3
 * and 17).
 *
 * `begin` is one atomic statement: `INSERT ... ON CONFLICT (scope, key) DO
 * UPDATE ... WHERE <the existing row is expired, or an in-progress claim that
 * is the caller's own (resume) or whose holder is no longer live> RETURNING`.
 * A returned row means this request holds the key (`Started`, with its claim
 * token); otherwise the existing row is read and compared (`Replay`,
 * `InProgress`, `Mismatch`). Two simultaneous claims of one key serialise on
 * the row lock of the primary key, so exactly one wins.
 *
 * A claim records its holder, this process (`PgServiceInstance`): it is live
 * while the holder's heartbeat is, so a claim of a process that died is free
 * within `PgServiceInstance.livenessMillis` (seconds), and a live claim is
 * never taken over however long its request runs.
 *
 * `complete` inside a unit of work puts the answer in the unit: `commit_unit`
 * stores it in the same statement as the request's events, read models and
 * outbox rows, if the claim is still the caller's (else the whole unit fails
 * with PP005, a `VersionConflict`, and writes nothing). A committed request
 * therefore always has its answer stored; a request that did not commit leaves
 * the key free. Outside a unit, `complete` writes at once.
 *
 * `abandon` deletes the claim; when the database cannot be reached at that
 * moment, the claim is remembered and deleted by a background fiber as soon as
 * it can be, so a key is never left held by a live process that gave it up.
 *
 * Expired rows are ignored by `begin` (a claim overwrites them) and deleted
 * by a purge that `begin` runs at most once per `purgeEveryMillis` per process.
 * Every database failure becomes `EventStoreUnavailable` (answered as 503).
 */
import { EventStore, IdempotencyStore, Traced } from "@partnerpay/domain"
import { DateTime, Effect, Layer, Schedule } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as PartnerScope from "./PartnerScope.ts"
import { livenessMillis, ServiceInstance } from "./PgServiceInstance.ts"
import * as PgUnit from "./PgUnit.ts"
import { logFailure } from "./SqlErrors.ts"

export interface Options {
  /** Minimum interval between purges of expired rows (default one minute). */
  readonly purgeEveryMillis?: number
  /** How often claims that could not be abandoned are retried (default one second). */
  readonly retryAbandonMillis?: number
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

/** Builds the store on the `SqlClient` in context, its claims held by the `ServiceInstance`. */
export const make = Traced.fn("PgIdempotencyStore.make")(function* (options: Options = {}) {
  const sql = yield* SqlClient
  const { instanceId } = yield* ServiceInstance
  const purgeEveryMillis = options.purgeEveryMillis ?? 60_000
  let lastPurge = Number.NEGATIVE_INFINITY
  /** Claims given up while the database could not be told: `scope \0 key` -> claim. */
  const unreleased = new Map<
    string,
    { readonly partner: string; readonly scope: string; readonly key: string; readonly claim: string }
  >()

  const purge = (now: number) =>
    Effect.suspend(() => {
      if (now - lastPurge < purgeEveryMillis) return Effect.void
      lastPurge = now
      return sql`DELETE FROM idempotency_keys WHERE expires_at <= ${new Date(now)}`.pipe(
        Effect.asVoid,
        Effect.catch((error) => logFailure("idempotency purge", error)),
      )
    })

  const claimKey = (
    partner: string,
    scope: string,
    key: string,
    requestHash: string,
    now: number,
    claim: string,
    resume: string,
  ) =>
    sql<{ claim: string }>`
        INSERT INTO idempotency_keys (partner_id, scope, key, request_hash, started_at, expires_at, claim, holder)
        VALUES (${partner}, ${scope}, ${key}, ${requestHash}, ${new Date(now)},
                ${new Date(now + IdempotencyStore.retentionMillis)}, ${claim}, ${instanceId})
        ON CONFLICT (scope, key) DO UPDATE SET
          request_hash = EXCLUDED.request_hash,
          started_at = EXCLUDED.started_at,
          expires_at = EXCLUDED.expires_at,
          claim = EXCLUDED.claim,
          holder = EXCLUDED.holder,
          status = NULL,
          content_type = NULL,
          body = NULL,
          completed_at = NULL
        WHERE idempotency_keys.expires_at <= EXCLUDED.started_at
           OR (idempotency_keys.status IS NULL
               AND (idempotency_keys.claim = ${resume}
                    OR idempotency_keys.holder IS NULL
                    OR NOT EXISTS (
                      SELECT 1 FROM service_instances si
                      WHERE si.instance_id = idempotency_keys.holder
                        AND si.seen_at > now() - ${livenessMillis} * interval '1 millisecond')))
        RETURNING claim`

  const read = (partner: string, scope: string, key: string) =>
    sql<Row>`
        SELECT request_hash, status, content_type, body
        FROM idempotency_keys WHERE partner_id = ${partner} AND scope = ${scope} AND key = ${key}`

  const begin = Traced.fn("PgIdempotencyStore.begin")(function* (
    scope: string,
    key: string,
    requestHash: string,
    at: DateTime.Utc,
    resume: string | undefined,
  ): Effect.fn.Return<IdempotencyStore.BeginResult, SqlError> {
    const now = DateTime.toEpochMillis(at)
    yield* purge(now)
    const claim = resume ?? IdempotencyStore.newClaim()
    const partner = (yield* PartnerScope.current) ?? ""
    // A row can vanish between the claim and the read (abandoned); then claim again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const claimed = yield* claimKey(partner, scope, key, requestHash, now, claim, resume ?? "")
      if (claimed.length > 0) return IdempotencyStore.Started(claim)
      const [row] = yield* read(partner, scope, key)
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

  const completeNow = (
    partner: string,
    scope: string,
    key: string,
    claim: string,
    response: IdempotencyStore.StoredResponse,
  ) =>
    sql`
        UPDATE idempotency_keys
        SET status = ${response.status}, content_type = ${response.contentType ?? null},
            body = ${Buffer.from(response.body)}, completed_at = now(), holder = NULL
        WHERE partner_id = ${partner} AND scope = ${scope} AND key = ${key} AND claim = ${claim}
          AND status IS NULL`.pipe(Effect.asVoid, Effect.catchTag("SqlError", unavailable))

  const release = (partner: string, scope: string, key: string, claim: string) =>
    sql`DELETE FROM idempotency_keys
        WHERE partner_id = ${partner} AND scope = ${scope} AND key = ${key} AND claim = ${claim}
          AND status IS NULL`.pipe(Effect.asVoid)

  const retryReleases = Effect.suspend(() =>
    Effect.forEach(
      [...unreleased],
      ([id, { partner, scope, key, claim }]) =>
        release(partner, scope, key, claim).pipe(
          Effect.tap(() => Effect.sync(() => unreleased.delete(id))),
          Effect.ignore,
        ),
      { discard: true },
    ),
  )
  yield* retryReleases.pipe(Effect.repeat(Schedule.spaced(options.retryAbandonMillis ?? 1_000)), Effect.forkScoped)

  return IdempotencyStore.IdempotencyStore.of({
    begin: (scope, key, requestHash, now, resume) =>
      begin(scope, key, requestHash, now, resume).pipe(Effect.catchTag("SqlError", unavailable)),
    complete: (scope, key, claim, response) =>
      Effect.flatMap(Effect.all([Effect.service(PgUnit.CurrentUnit), PartnerScope.current]), ([unit, current]) => {
        const partner = current ?? ""
        if (unit === undefined) return completeNow(partner, scope, key, claim, response)
        unit.idempotency = { partnerId: partner, scope, key, claim, response }
        return Effect.void
      }),
    abandon: (scope, key, claim) =>
      Effect.flatMap(PartnerScope.current, (current) =>
        release(current ?? "", scope, key, claim).pipe(
          Effect.catchTag("SqlError", (error) => {
            unreleased.set(`${scope}\u0000${key}`, { partner: current ?? "", scope, key, claim })
            return unavailable(error)
          }),
        ),
      ),
  })
})

/** The store as a layer (run `Migrations.layer` first; `PgServiceInstance.layer` gives the holder). */
export const layer = (
  options: Options = {},
): Layer.Layer<IdempotencyStore.IdempotencyStore, never, SqlClient | ServiceInstance> =>
  Layer.effect(IdempotencyStore.IdempotencyStore, make(options))
