/**
 * Test support: the database layers under test, and the PostgreSQL
 * availability rule. Locally without a server the PostgreSQL suites are
 * skipped with a loud message; with CI=true an unreachable server FAILS the
 * run (never a silent skip).
 */
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

export const postgresStore = (options: PgEventStore.Options = {}) =>
  storeOn(PgDatabase.layerPostgres(databaseUrl), options)

export const pgliteStore = (options: PgEventStore.Options = {}) => storeOn(PgDatabase.layerPglite(), options)
