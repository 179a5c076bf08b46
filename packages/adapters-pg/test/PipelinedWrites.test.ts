/**
 * The multiplexed PostgreSQL pool (PgDatabase.layerPostgres) sends the
 * statements of every request handled in one event-loop iteration in one
 * socket write per connection: `@effect/sql-pg` flushes its pipeline in the
 * loop's check phase (patches/@effect__sql-pg@4.0.5.patch), where its own
 * flush, per microtask, sent each request's statement alone. Each write costs
 * ~50 µs of Node CPU here, so a read endpoint under load spent a quarter of
 * its CPU on them. Requests are modelled by callbacks of one check phase,
 * each starting its own fiber, as the HTTP server's callbacks do.
 *
 * How many statements a session takes at once is an option
 * (`multiplexConcurrency`): statements outside a transaction commit one at a
 * time on their session, so a lower number spreads concurrent writers over
 * sessions to share WAL flushes.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as PgDatabase from "../src/PgDatabase.ts"
import { databaseUrl, postgresAvailable } from "./support.ts"

const suite = postgresAvailable ? describe : describe.skip

/** Counts writes to sockets (`net.Socket#write`) while `run` runs. */
const countingSocketWrites = <A, E, R>(run: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.promise(async () => {
      const { Socket } = await import("node:net")
      const original = Socket.prototype.write
      const counter = { writes: 0 }
      Socket.prototype.write = function (this: unknown, ...args: Array<unknown>) {
        counter.writes++
        return (original as (...a: Array<unknown>) => boolean).apply(this, args)
      } as typeof original
      const restore = () => {
        Socket.prototype.write = original
      }
      return { counter, restore }
    }),
    ({ counter }) => Effect.map(run, (result) => ({ result, writes: counter.writes })),
    ({ restore }) => Effect.sync(restore),
  )

suite("statements of one event-loop iteration", () => {
  it.effect(
    "share one socket write per connection",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient
        const context = yield* Effect.context<SqlClient>()
        const query = (n: number) => Effect.map(sql<{ n: number }>`SELECT ${n}::int AS n`, (rows) => rows[0]!.n)
        yield* query(0) // connected, statement prepared
        const requests = 20
        const { result, writes } = yield* countingSocketWrites(
          Effect.promise(
            () =>
              new Promise<ReadonlyArray<number>>((resolve, reject) => {
                const answers: Array<Promise<number>> = []
                for (let i = 1; i <= requests; i++)
                  setImmediate(() => {
                    answers.push(Effect.runPromise(Effect.provideContext(query(i), context)))
                    if (answers.length === requests) Promise.all(answers).then(resolve, reject)
                  })
              }),
          ),
        )
        assert.deepStrictEqual(
          result,
          Array.from({ length: requests }, (_, i) => i + 1),
        )
        // One connection: one write for the whole iteration (a flush per request would make 20).
        assert.isAtMost(writes, 2)
      }).pipe(Effect.provide(PgDatabase.layerPostgres(databaseUrl, { maxConnections: 1 }))),
    30_000,
  )
})

suite("concurrent statements", () => {
  it.effect(
    "are spread over sessions, as many to a session as the pool is told, so that their commits need not queue on one",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient
        // Each statement holds its session half a second, so that all 32 are in flight together even on a
        // loaded machine (with shorter ones, a session freed early took a later statement: 7 sessions).
        const sessionOf = sql<{ pid: number }>`SELECT pg_backend_pid() AS pid, pg_sleep(0.5)::text AS slept`
        const rows = yield* Effect.all(
          Array.from({ length: 32 }, () => sessionOf),
          { concurrency: "unbounded" },
        )
        const sessions = new Set(rows.map((r) => r[0]!.pid))
        // With the default (32 to a session), all 32 run on one session, one commit at a time.
        assert.strictEqual(sessions.size, 8)
      }).pipe(Effect.provide(PgDatabase.layerPostgres(databaseUrl, { maxConnections: 10, multiplexConcurrency: 4 }))),
    30_000,
  )
})
