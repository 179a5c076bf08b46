/**
 * The database: a PostgreSQL server when DATABASE_URL is set, else the
 * embedded PGlite database in the data directory (same SQL, same
 * migrations). PGlite is closed when the layer's scope closes (after the HTTP
 * server and the workers stopped), so its data directory stays valid.
 * Also the real `HealthCheck`: `SELECT 1` within 2 s.
 */
import { mkdirSync } from "node:fs"
import { HealthCheck, Unhealthy } from "@partnerpay/adapters-http"
import { PgDatabase } from "@partnerpay/adapters-pg"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import type { DatabaseConfig } from "./Config.ts"

/** The connection layer for the configured database (migrations run with the domain stack). */
export const layer = (database: DatabaseConfig) =>
  database._tag === "Postgres"
    ? PgDatabase.layerPostgres(Redacted.value(database.url))
    : Layer.unwrap(
        Effect.sync(() => {
          mkdirSync(database.dataDir, { recursive: true, mode: 0o700 })
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
