/**
 * Baseline child processes for bench/run.ts (never run by hand):
 *
 *   node bench/baselines.ts http
 *     A bare node:http server on 127.0.0.1 (any free port) answering every
 *     request with a fixed small JSON body: the ceiling of the read path.
 *     Prints `{"port":N}` once listening; runs until killed.
 *
 *   node bench/baselines.ts insert '{"kind":"postgres","url":...,"poolSize":10,"connections":[1,64],"seconds":5}'
 *   node bench/baselines.ts insert '{"kind":"pglite","dataDir":...,"connections":[1,64],"seconds":5}'
 *     The durable-write ceiling: for each entry of `connections` (a number or a
 *     list, measured one after the other on one open database), that many
 *     concurrent loops of one single-row INSERT transaction each, for `seconds`
 *     (and at most 1,000,000 transactions). PostgreSQL goes through the same client as the service
 *     (@effect/sql-pg) with the same pool size; PGlite is driven directly
 *     (@electric-sql/pglite, one session, transactions serialise as in the
 *     service). Prints one JSON line per entry of `connections`: requestsPerSecond,
 *     p50, p99 (ms).
 */
import { createServer } from "node:http"
import { createRequire } from "node:module"
import type { AddressInfo } from "node:net"
import type { PGlite as PGliteClass } from "@electric-sql/pglite"
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as PgDatabase from "../packages/adapters-pg/src/PgDatabase.ts"

interface InsertSpec {
  readonly kind: "postgres" | "pglite"
  readonly url?: string
  readonly dataDir?: string
  readonly poolSize?: number
  readonly connections: number | ReadonlyArray<number>
  readonly seconds: number
}

const levels = (spec: InsertSpec): ReadonlyArray<number> =>
  typeof spec.connections === "number" ? [spec.connections] : spec.connections

const maxTransactions = 1_000_000

// PGlite is a dependency of the adapters package, not of the root: resolve it from there.
const { PGlite } = createRequire(new URL("../packages/adapters-pg/package.json", import.meta.url))(
  "@electric-sql/pglite",
) as { PGlite: typeof PGliteClass }

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

type Figures = { requestsPerSecond: number; p50: number; p99: number; transactions: number }

/** Runs `connections` loops of `insert` for `seconds`; returns the figures. */
const measure = async (
  connections: number,
  seconds: number,
  insert: (n: number) => Promise<unknown>,
): Promise<Figures> => {
  const latencies: Array<number> = []
  let issued = 0
  const deadline = Date.now() + seconds * 1000
  const started = performance.now()
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < deadline && issued < maxTransactions) {
        const n = issued++
        const begin = performance.now()
        await insert(n)
        latencies.push(performance.now() - begin)
      }
    }),
  )
  const elapsed = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  return {
    requestsPerSecond: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    transactions: latencies.length,
  }
}

/** Prints one figures line per connection level, measured one after the other. */
const eachLevel = async (spec: InsertSpec, insert: (n: number) => Promise<unknown>) => {
  for (const connections of levels(spec))
    process.stdout.write(`${JSON.stringify(await measure(connections, spec.seconds, insert))}\n`)
}

const row = (n: number) => JSON.stringify({ n, amount: { minorUnits: 1234, currency: "USD" }, note: "bench" })

const insertPostgres = (spec: InsertSpec) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient
      yield* sql`CREATE TABLE IF NOT EXISTS bench_insert_baseline (id uuid PRIMARY KEY, data jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`
      const insert = (n: number) =>
        Effect.runPromise(
          sql.withTransaction(
            sql`INSERT INTO bench_insert_baseline (id, data) VALUES (${crypto.randomUUID()}, ${row(n)}::jsonb)`,
          ),
        )
      yield* Effect.promise(() => eachLevel(spec, insert))
      yield* sql`DROP TABLE bench_insert_baseline`
    }).pipe(Effect.provide(PgDatabase.layerPostgres(spec.url!, { maxConnections: spec.poolSize ?? 10 }))),
  )

const insertPglite = async (spec: InsertSpec) => {
  const db = new PGlite(spec.dataDir!)
  await db.waitReady
  try {
    await db.exec(
      "CREATE TABLE IF NOT EXISTS bench_insert_baseline (id uuid PRIMARY KEY, data jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())",
    )
    await eachLevel(spec, (n) =>
      db.transaction((tx) =>
        tx.query("INSERT INTO bench_insert_baseline (id, data) VALUES ($1, $2::jsonb)", [crypto.randomUUID(), row(n)]),
      ),
    )
    await db.exec("DROP TABLE bench_insert_baseline")
  } finally {
    await db.close()
  }
}

const mode = process.argv[2]
if (mode === "http") {
  const body = JSON.stringify({ CompanyId: "6f1c1b7e-2a4b-4c7e-9f2a-1b2c3d4e5f60", Status: "Verified" })
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
    response.end(body)
  })
  server.listen(0, "127.0.0.1", () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`)
  })
} else if (mode === "insert") {
  const spec = JSON.parse(process.argv[3] ?? "{}") as InsertSpec
  if (spec.kind === "postgres") await insertPostgres(spec)
  else await insertPglite(spec)
} else {
  throw new Error("usage: node bench/baselines.ts http | insert <json>")
}
