/**
 * Every pooled PostgreSQL session has a statement, lock and idle-in-transaction
 * timeout (issue 34): set at connect from the configuration; a statement ended
 * by one is counted by kind at GET /metrics (`partnerpay_database_timeouts_total`)
 * and reported to the domain as the store being unavailable (503 with
 * Retry-After at the edge); a statement that waits for a session of a busy pool
 * longer than the acquisition bound fails the same way (kind `acquire`); and
 * /readyz's `sessions` check names a session of the service left idle in a
 * transaction longer than the lock timeout.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { PgDatabase, PgMetrics, SqlErrors } from "@partnerpay/adapters-pg"
import { Deferred, Effect, Fiber } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Readiness from "../src/http/Readiness.ts"
import * as Metrics from "../src/observability/Metrics.ts"
import { freshDatabase, postgresAvailable } from "./support.ts"

const drops: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const drop of drops) await drop()
})

const timeouts: PgDatabase.SessionTimeouts = { statementMillis: 300, lockMillis: 200, idleInTransactionMillis: 5_000 }

const pool = (url: string, application: string) =>
  PgDatabase.layerPostgres(url, { maxConnections: 2, timeouts, startupParameters: { application_name: application } })

const counted = (text: string, kind: string) =>
  Number(new RegExp(`partnerpay_database_timeouts_total\\{kind="${kind}"[^}]*\\} (\\d+)`).exec(text)?.[1] ?? "NaN")

describe.skipIf(!postgresAvailable)("a PostgreSQL session", () => {
  it.live(
    "has the configured statement, lock and idle-in-transaction timeouts",
    () =>
      Effect.gen(function* () {
        const db = yield* Effect.promise(freshDatabase)
        drops.push(db.drop)
        const settings = yield* Effect.gen(function* () {
          const sql = yield* SqlClient
          return yield* sql<{ readonly name: string; readonly setting: string }>`
            SELECT name, setting FROM pg_settings
            WHERE name IN ('statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout')
            ORDER BY name`
        }).pipe(Effect.provide(pool(db.url, "partnerpay")))
        assert.deepStrictEqual(
          settings.map((row) => `${row.name}=${row.setting}`),
          ["idle_in_transaction_session_timeout=5000", "lock_timeout=200", "statement_timeout=300"],
        )
      }),
    30_000,
  )

  it.live(
    "ends a statement past its timeout, and one waiting on a lock past the lock timeout: counted by kind, the store unavailable",
    () =>
      Effect.gen(function* () {
        const db = yield* Effect.promise(freshDatabase)
        drops.push(db.drop)
        const before = yield* Metrics.render.pipe(Effect.provide(pool(db.url, "partnerpay")))
        const outcome = yield* Effect.gen(function* () {
          const sql = yield* SqlClient
          const slow = yield* Effect.flip(sql`SELECT pg_sleep(2)`.pipe(SqlErrors.unavailable("a slow read")))
          // One session holds a lock in a transaction; another waits on it.
          yield* sql`CREATE TABLE held (id int PRIMARY KEY)`
          yield* sql`INSERT INTO held VALUES (1)`
          const waiting = yield* sql
            .withTransaction(
              Effect.gen(function* () {
                yield* sql`SELECT id FROM held WHERE id = 1 FOR UPDATE`
                return yield* Effect.flip(
                  Effect.provide(
                    Effect.flatMap(SqlClient, (other) =>
                      other`UPDATE held SET id = 1 WHERE id = 1`.pipe(SqlErrors.unavailable("a locked write")),
                    ),
                    pool(db.url, "partnerpay-other"),
                  ),
                )
              }),
            )
            .pipe(Effect.orDie)
          return { slow, waiting }
        }).pipe(Effect.provide(pool(db.url, "partnerpay")))
        assert.strictEqual(outcome.slow._tag, "EventStoreUnavailable")
        assert.strictEqual(outcome.waiting._tag, "EventStoreUnavailable")
        const after = yield* Metrics.render.pipe(Effect.provide(pool(db.url, "partnerpay")))
        assert.strictEqual(counted(after, "statement") - counted(before, "statement"), 1)
        assert.strictEqual(counted(after, "lock") - counted(before, "lock"), 1)
      }),
    30_000,
  )

  it.live(
    "that every statement of a busy pool waits for past the acquisition bound fails it: counted as acquire, the store unavailable, served again once released",
    () =>
      Effect.gen(function* () {
        const db = yield* Effect.promise(freshDatabase)
        drops.push(db.drop)
        const busy = PgDatabase.layerPostgres(db.url, {
          maxConnections: 1,
          timeouts: { ...timeouts, acquireMillis: 200 },
          startupParameters: { application_name: "partnerpay" },
        })
        const before = yield* Metrics.render.pipe(Effect.provide(pool(db.url, "partnerpay-metrics")))
        const outcome = yield* Effect.gen(function* () {
          const sql = yield* SqlClient
          const read = sql<{ readonly one: number }>`SELECT 1 AS one`.pipe(SqlErrors.unavailable("a read"))
          // The pool's one session held by a transaction (another fiber's) until the read has given up.
          const holding = yield* Deferred.make<void>()
          const release = yield* Deferred.make<void>()
          const holder = yield* Effect.forkChild(
            sql.withTransaction(
              sql`SELECT 1`.pipe(
                Effect.andThen(Deferred.succeed(holding, undefined)),
                Effect.andThen(Deferred.await(release)),
              ),
            ),
          )
          yield* Deferred.await(holding)
          const waited = yield* Effect.flip(read)
          yield* Deferred.succeed(release, undefined)
          yield* Fiber.join(holder).pipe(Effect.orDie)
          // Released: the same read is served.
          const served = yield* Effect.orDie(read)
          return { waited, served }
        }).pipe(Effect.provide(busy))
        assert.strictEqual(outcome.waited._tag, "EventStoreUnavailable")
        assert.match(outcome.waited.reason, /ConnectionError/)
        assert.deepStrictEqual(outcome.served, [{ one: 1 }])
        const after = yield* Metrics.render.pipe(Effect.provide(pool(db.url, "partnerpay-metrics")))
        assert.strictEqual(counted(after, "acquire") - counted(before, "acquire"), 1)
      }),
    30_000,
  )

  it.live(
    "of the service left idle in a transaction longer than the lock timeout makes /readyz name it",
    () =>
      Effect.gen(function* () {
        const db = yield* Effect.promise(freshDatabase)
        drops.push(db.drop)
        const report = yield* Effect.gen(function* () {
          const workers = yield* SqlClient
          return yield* workers.withTransaction(
            Effect.gen(function* () {
              yield* workers`SELECT 1`
              yield* Effect.sleep("1500 millis")
              return yield* Readiness.sessionsCheck.pipe(Effect.provide(pool(db.url, "partnerpay")))
            }),
          )
        }).pipe(Effect.provide(pool(db.url, "partnerpay-workers")), Effect.orDie)
        assert.match(report, /^stuck: partnerpay-workers idle in transaction for 1\.\d s$/)
      }),
    30_000,
  )
})

// The kinds a SQLSTATE names (the counter's label).
describe("a timeout's kind", () => {
  it("is read from its SQLSTATE: 57014 statement, 55P03 lock, 25P03 idle in transaction", () => {
    assert.deepStrictEqual(
      ["57014", "55P03", "25P03", "23505", undefined].map((code) => PgMetrics.timeoutKindOf(code) ?? "none"),
      ["statement", "lock", "idle_in_transaction", "none", "none"],
    )
  })
})
