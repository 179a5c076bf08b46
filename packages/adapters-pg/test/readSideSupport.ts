/**
 * Test support for the read side: the databases the suites run on. PostgreSQL
 * suites get a fresh schema each (created at layer build, dropped at its
 * release), so their tables start empty and never meet other test files'
 * rows; the availability rule of `support.ts` applies (CI=true fails when the
 * server is unreachable).
 */
import type { PgClient } from "@effect/sql-pg"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as PgDatabase from "../src/PgDatabase.ts"
import { databaseUrl, postgresAvailable } from "./support.ts"

export { postgresAvailable }

const admin = (statement: string) =>
  Effect.flatMap(SqlClient, (sql) => sql.unsafe(statement)).pipe(
    Effect.provide(PgDatabase.layerPostgres(databaseUrl, { maxConnections: 1 })),
  )

/** A PostgreSQL pool whose `search_path` is a new, empty schema, dropped when the layer is released. */
export const postgresFreshSchema = (
  options: { readonly maxConnections?: number } = {},
): Layer.Layer<SqlClient | PgClient.PgClient, SqlError> =>
  Layer.unwrap(
    Effect.map(
      Effect.acquireRelease(
        Effect.gen(function* () {
          const schema = `t_${crypto.randomUUID().replaceAll("-", "")}`
          yield* admin(`CREATE SCHEMA ${schema}`)
          return schema
        }),
        (schema) => Effect.ignore(admin(`DROP SCHEMA ${schema} CASCADE`)),
      ),
      (schema) =>
        PgDatabase.layerPostgres(databaseUrl, {
          startupParameters: { search_path: schema },
          ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
        }),
    ),
  )

/** The SQL databases every read-side suite runs on (PostgreSQL only when reachable). */
export const databases: ReadonlyArray<{
  readonly name: string
  readonly layer: () => Layer.Layer<SqlClient, SqlError>
}> = [
  { name: "PGlite", layer: () => PgDatabase.layerPglite() },
  ...(postgresAvailable ? [{ name: "PostgreSQL", layer: () => postgresFreshSchema() }] : []),
]
