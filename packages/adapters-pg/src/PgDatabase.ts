/**
 * Connection layers giving an `SqlClient` (and `PgClient`) from
 * @effect/sql-pg, either to a PostgreSQL server or to an embedded PGlite
 * database driven through the same client (see `PgliteBridge.ts`).
 *
 * Types as decoded by the client: bigint columns arrive as JS `bigint`,
 * jsonb as parsed JSON, timestamptz as `Date`. Stores convert at their edge.
 */

import { PgClient } from "@effect/sql-pg"
import { PGlite } from "@electric-sql/pglite"
import { Effect, type Layer, Redacted } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { connect, makeSession } from "./PgliteBridge.ts"

/** The default test/development server. */
export const defaultUrl = "postgres://postgres@127.0.0.1:5432/test"

/** `DATABASE_URL` from the environment, or `defaultUrl`. */
export const urlFromEnv = (): string => process.env.DATABASE_URL ?? defaultUrl

export interface PostgresOptions {
  /** Pool size (default 10). */
  readonly maxConnections?: number
  /**
   * Pipeline statements of concurrent fibers on each pooled connection (default true): statements
   * that are not in a transaction share a connection and go out in one write, which saves the
   * per-statement socket cost under load. Transactions still reserve a connection.
   */
  readonly multiplex?: boolean
  /** Session settings sent at connect, e.g. `{ search_path: "my_schema" }`. */
  readonly startupParameters?: Readonly<Record<string, string>>
  readonly connectTimeoutMillis?: number
}

/** A pooled client for a PostgreSQL server. */
export const layerPostgres = (
  url: string,
  options: PostgresOptions = {},
): Layer.Layer<PgClient.PgClient | SqlClient, SqlError> =>
  PgClient.layer({
    url: Redacted.make(url),
    maxConnections: options.maxConnections ?? 10,
    multiplex: options.multiplex ?? true,
    connectTimeout: options.connectTimeoutMillis ?? 5000,
    ...(options.startupParameters === undefined ? {} : { startupParameters: options.startupParameters }),
  })

export interface PgliteOptions {
  /** Directory holding the database files; omitted: in memory, lost at the end of the layer. */
  readonly dataDir?: string
}

/**
 * An embedded PGlite database behind the regular @effect/sql-pg client.
 * PGlite has a single backend session, so the pool holds exactly one
 * connection (kept open) and does not multiplex: a transaction reserves the
 * only connection and other fibers wait for it, so statements of concurrent
 * transactions never interleave.
 */
export const layerPglite = (options: PgliteOptions = {}): Layer.Layer<PgClient.PgClient | SqlClient, SqlError> =>
  PgClient.layerFrom(
    Effect.gen(function* () {
      const session = yield* Effect.acquireRelease(
        Effect.promise(async () => {
          const db = options.dataDir === undefined ? new PGlite() : new PGlite(options.dataDir)
          await db.waitReady
          return makeSession(db)
        }),
        (session) =>
          Effect.promise(async () => {
            await session.idle()
            await session.db.close()
          }),
      )
      return yield* PgClient.make({
        stream: () => connect(session),
        ssl: false,
        username: "postgres",
        database: "postgres",
        maxConnections: 1,
        minConnections: 1,
        multiplex: false,
      })
    }),
  )
