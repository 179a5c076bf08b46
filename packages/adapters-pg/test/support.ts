/**
 * Test support: the database layers under test, and the PostgreSQL
 * availability rule. Locally without a server the PostgreSQL suites are
 * skipped with a loud message; with CI=true an unreachable server FAILS the
 * run (never a silent skip). A test file's PostgreSQL store lives in a schema
 * of its own (`postgresDatabase`), so runs sharing the server (other files,
 * other checkouts whose migrations differ) never meet its tables.
 */
import { afterAll } from "@effect/vitest"
import type { EventStore } from "@partnerpay/domain"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../src/Migrations.ts"
import * as PgDatabase from "../src/PgDatabase.ts"
import * as PgEventStore from "../src/PgEventStore.ts"

export const databaseUrl = PgDatabase.urlFromEnv()

const probe = (): Promise<string | undefined> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient
      yield* sql`SELECT 1`
      return undefined
    }).pipe(
      Effect.provide(PgDatabase.layerPostgres(databaseUrl, { maxConnections: 1, connectTimeoutMillis: 3000 })),
      Effect.timeout(5000),
      Effect.catchCause((cause) => Effect.succeed(String(cause).split("\n")[0] ?? "unreachable")),
    ),
  )

const problem = await probe()
if (problem !== undefined) {
  const message = `PostgreSQL is not reachable at ${databaseUrl.replace(/:[^:@/]*@/, ":***@")} (${problem})`
  if (process.env.CI === "true") {
    throw new Error(`${message}: with CI=true the PostgreSQL suites must run, failing.`)
  }
  console.warn(
    `\n${"!".repeat(80)}\n!!! ${message}\n!!! SKIPPING the PostgreSQL test suites (set DATABASE_URL or start a server)\n${"!".repeat(80)}\n`,
  )
}

/** True when the PostgreSQL suites run. */
export const postgresAvailable = problem === undefined

/** A migrated event store on the given database layer. */
export const storeOn = <E>(
  database: Layer.Layer<SqlClient, E>,
  options: PgEventStore.Options = {},
): Layer.Layer<EventStore.EventStore | SqlClient, unknown> =>
  PgEventStore.layer(options).pipe(Layer.provideMerge(Migrations.layer), Layer.provideMerge(database))

const admin = (statement: string) =>
  Effect.flatMap(SqlClient, (sql) => sql.unsafe(statement)).pipe(
    Effect.provide(PgDatabase.layerPostgres(databaseUrl, { maxConnections: 1 })),
  )

/** This test file's schema on the server: made at the first use, dropped after the file's tests. */
const fileSchema = `t_${crypto.randomUUID().replaceAll("-", "")}`
let fileSchemaMade = false
afterAll(async () => {
  if (fileSchemaMade) await Effect.runPromise(Effect.ignore(admin(`DROP SCHEMA ${fileSchema} CASCADE`)))
})

/**
 * A PostgreSQL pool on this test file's own schema (`search_path`): every pool of the file sees the
 * same tables, and nothing outside the file does (a server shared with other runs, whose migrations
 * may differ, cannot make this one's fail).
 */
export const postgresDatabase = (options: { readonly maxConnections?: number } = {}) =>
  Layer.unwrap(
    Effect.gen(function* () {
      if (!fileSchemaMade) {
        yield* admin(`CREATE SCHEMA IF NOT EXISTS ${fileSchema}`)
        fileSchemaMade = true
      }
      return PgDatabase.layerPostgres(databaseUrl, {
        startupParameters: { search_path: fileSchema },
        ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
      })
    }),
  )

export const postgresStore = (options: PgEventStore.Options = {}) => storeOn(postgresDatabase(), options)

export const pgliteStore = (options: PgEventStore.Options = {}) => storeOn(PgDatabase.layerPglite(), options)
