/**
 * The database: a PostgreSQL server when DATABASE_URL is set, else the
 * embedded PGlite database in the data directory (same SQL, same
 * migrations). PGlite is closed when the layer's scope closes (after the HTTP
 * server and the workers stopped), so its data directory stays valid.
 * Also the real `HealthCheck`: `SELECT 1` within 2 s.
 *
 * PGlite is single-process: two processes opening one data directory would
 * corrupt it (PGlite itself does not lock it). So the PGlite layer first
 * takes a lock file next to the directory (`<dataDir>.lock`, holding the
 * owner's pid; created exclusively): while a live process holds it, opening
 * fails with `DatabaseInUse`, a clear message. A lock left by a dead process
 * (crash, SIGKILL) is taken over. The lock is released after PGlite closed.
 *
 * A new (empty) data directory gets its cluster from the cached,
 * pre-initialised image (`PgDatabase.openPglite`, `PgliteImage`), not from
 * initdb: the first start of a new directory takes about as long as a restart.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { HealthCheck, Unhealthy } from "@partnerpay/adapters-http"
import { PgDatabase } from "@partnerpay/adapters-pg"
import { Effect, Layer, Redacted, Schema, type Scope } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import type { DatabaseConfig } from "./Config.ts"

/** The embedded database's directory is held by another live process. */
export class DatabaseInUse extends Schema.TaggedError<DatabaseInUse>()("DatabaseInUse", {
  dataDir: Schema.String,
  pid: Schema.Number,
}) {
  override get message(): string {
    return (
      `the embedded database in ${this.dataDir} is in use by process ${this.pid} (PGlite allows one process at a time). ` +
      "Stop that process first, or use the running service's operator API (/admin), or a PostgreSQL server (DATABASE_URL). " +
      `If no such process exists any more, delete ${lockPathOf(this.dataDir)}.`
    )
  }
}

/** The lock file of an embedded database directory. */
export const lockPathOf = (dataDir: string): string => `${dataDir.replace(/\/+$/, "")}.lock`

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Takes the lock file of `dataDir` for this process (see the module doc). */
export const lockDataDir = (dataDir: string): Effect.Effect<void, DatabaseInUse, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      const path = lockPathOf(dataDir)
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          writeFileSync(path, String(process.pid), { flag: "wx", mode: 0o600 })
          return Effect.succeed(path)
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") return Effect.die(error)
        }
        let owner = Number.NaN
        try {
          owner = Number(readFileSync(path, "utf8").trim())
        } catch {
          continue // removed meanwhile: try again
        }
        if (Number.isSafeInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
          return Effect.fail(new DatabaseInUse({ dataDir, pid: owner }))
        }
        rmSync(path, { force: true }) // left by a dead process
      }
      return Effect.fail(new DatabaseInUse({ dataDir, pid: -1 }))
    }),
    (path) =>
      Effect.sync(() => {
        try {
          if (readFileSync(path, "utf8").trim() === String(process.pid)) rmSync(path, { force: true })
        } catch {
          // already gone
        }
      }),
  ).pipe(Effect.asVoid)

/** The connection layer for the configured database (migrations run with the domain stack). */
export const layer = (database: DatabaseConfig) =>
  database._tag === "Postgres"
    ? PgDatabase.layerPostgres(Redacted.value(database.url))
    : Layer.unwrap(
        Effect.gen(function* () {
          mkdirSync(database.dataDir, { recursive: true, mode: 0o700 })
          // Released after PGlite closed (finalizers run in reverse order).
          yield* lockDataDir(database.dataDir)
          return PgDatabase.layerPglite({ dataDir: database.dataDir })
        }),
      )

/** GET /HealthCheck/Get: healthy when the database answers `SELECT 1` within 2 seconds. */
export const healthCheck: Layer.Layer<HealthCheck, never, SqlClient> = Layer.effect(
  HealthCheck,
  Effect.gen(function* () {
    const sql = yield* SqlClient
    return HealthCheck.of({
      check: sql`SELECT 1`.pipe(
        Effect.asVoid,
        Effect.catchCause((cause) =>
          Effect.fail(new Unhealthy({ reason: `database unreachable: ${String(cause).split("\n")[0]}` })),
        ),
        Effect.timeoutOrElse({
          duration: "2 seconds",
          orElse: () => Effect.fail(new Unhealthy({ reason: "database did not answer within 2 s" })),
        }),
      ),
    })
  }),
)
