/**
 * The database: a PostgreSQL server when DATABASE_URL is set, else the
 * embedded PGlite database in the data directory (same SQL, same
 * migrations). PGlite is closed when the layer's scope closes (after the HTTP
 * server and the workers stopped), so its data directory stays valid.
 * Also the real `HealthCheck`: `SELECT 1` within 2 s.
 *
 * PGlite is single-process: two processes opening one data directory would
 * corrupt it (PGlite itself does not lock it). So the PGlite layer first
 * takes a lock file next to the directory (`DataDirLock.ts`: `<dataDir>.lock`,
 * holding the owner's pid and start time, created atomically): while a live
 * process holds it, opening fails with `DatabaseInUse`, a clear message. A
 * lock left by a dead process (crash, SIGKILL), or naming a pid since reused
 * by a process that started at another time, is taken over atomically (two
 * processes can never both take it over). The lock is released after PGlite
 * closed.
 *
 * A new (empty) data directory gets its cluster from the cached,
 * pre-initialised image (`PgDatabase.openPglite`, `PgliteImage`), not from
 * initdb: the first start of a new directory takes about as long as a restart.
 */
import { mkdirSync } from "node:fs"
import { HealthCheck } from "@partnerpay/adapters-http"
import { PgDatabase } from "@partnerpay/adapters-pg"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import type { DatabaseConfig } from "../config/Config.ts"
import { lockDataDir } from "./DataDirLock.ts"

export { DatabaseInUse, lockDataDir, lockPathOf } from "./DataDirLock.ts"

/** The connection layer for the configured database (migrations run with the domain stack). */
export const layer = (database: DatabaseConfig) =>
  database._tag === "Postgres"
    ? PgDatabase.layerPostgres(Redacted.value(database.url), {
        multiplexConcurrency: database.statementsPerSession,
        timeouts: database.timeouts,
        startupParameters: { application_name: "partnerpay" },
      })
    : Layer.unwrap(
        Effect.gen(function* () {
          mkdirSync(database.dataDir, { recursive: true, mode: 0o700 })
          // Released after PGlite closed (finalizers run in reverse order).
          yield* lockDataDir(database.dataDir)
          return PgDatabase.layerPglite({ dataDir: database.dataDir })
        }),
      )

/**
 * The connection layer of an operator command (`src/cli.ts`): on a PostgreSQL server, sessions that are
 * not shared between statements (`multiplex: false`). A command runs one statement or one transaction at
 * a time, so sharing buys it nothing; and a transaction pinned on a shared session while the pool opens
 * another (a command's first statements run beside its instance heartbeat) could wait for ever:
 * CliPersonalData's `projections rebuild` hung in 3 of 12 runs under load with shared sessions, none in
 * 12 without (docs/decisions.md).
 */
export const layerForCommands = (database: DatabaseConfig) =>
  database._tag === "Postgres"
    ? PgDatabase.layerPostgres(Redacted.value(database.url), {
        multiplex: false,
        timeouts: database.timeouts,
        startupParameters: { application_name: "partnerpay" },
      })
    : layer(database)

/** Connections of the background workers' own pool on a PostgreSQL server (see `layerBackground`). */
export const backgroundConnections = 3

/**
 * The background workers' connections: on a PostgreSQL server, a small pool of their own, so that a
 * request's statements never queue behind a worker's (statements share pooled connections, one
 * after the other: a 10 ms outbox claim would hold up every request pipelined behind it). On PGlite,
 * there is one session: `undefined`, the workers use the service's client.
 */
export const layerBackground = (database: DatabaseConfig) =>
  database._tag === "Postgres"
    ? PgDatabase.layerPostgres(Redacted.value(database.url), {
        maxConnections: backgroundConnections,
        timeouts: database.timeouts,
        startupParameters: { application_name: "partnerpay-workers" },
      })
    : undefined

/** GET /HealthCheck/Get: healthy when the database answers `SELECT 1` within 2 seconds. */
export const healthCheck: Layer.Layer<HealthCheck.HealthCheck, never, SqlClient> = Layer.effect(
  HealthCheck.HealthCheck,
  Effect.gen(function* () {
    const sql = yield* SqlClient
    return HealthCheck.HealthCheck.of({
      check: sql`SELECT 1`.pipe(
        Effect.asVoid,
        Effect.catchCause((cause) =>
          Effect.fail(new HealthCheck.Unhealthy({ reason: `database unreachable: ${String(cause).split("\n")[0]}` })),
        ),
        Effect.timeoutOrElse({
          duration: "2 seconds",
          orElse: () => Effect.fail(new HealthCheck.Unhealthy({ reason: "database did not answer within 2 s" })),
        }),
      ),
    })
  }),
)
