/**
 * EventStore benchmark (node bench/eventstore.ts, or `pnpm bench` in this package).
 *
 * On the PostgreSQL server at DATABASE_URL (same pool size for everything):
 * appends of single events by 1, 8 and 32 concurrent writers and batches of
 * 100 events by 8 writers, each beside a baseline of plain INSERT transactions
 * into a table of the same shape, measured in the same run. Then the PGlite
 * append rate and the read rate of a 10,000-event stream on both.
 * Bounded: about a minute in total (BENCH_SECONDS_PER_RUN, default 2.5, sets the length of each run).
 */
import { EventStore, ExpectedVersion, type NewEvent } from "@partnerpay/domain"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../src/Migrations.ts"
import * as PgDatabase from "../src/PgDatabase.ts"
import * as PgEventStore from "../src/PgEventStore.ts"

const poolSize = 32
const secondsPerRun = Number(process.env.BENCH_SECONDS_PER_RUN ?? 2.5)

const newEvent = (n: number): NewEvent => ({
  eventId: crypto.randomUUID(),
  eventType: "Benchmarked",
  schemaVersion: 1,
  data: { n, amount: { minorUnits: 1234, currency: "USD" }, note: "a typical small event payload" },
  metadata: { partnerId: "6f1c1b7e-2a4b-4c7e-9f2a-1b2c3d4e5f60", correlationId: "bench" },
})

/** Runs `writers` loops of `step` for the given seconds; returns events per second. */
const measure = (
  writers: number,
  eventsPerStep: number,
  step: (writer: number, i: number) => Effect.Effect<unknown, unknown>,
) =>
  Effect.gen(function* () {
    const deadline = Date.now() + secondsPerRun * 1000
    const started = performance.now()
    const counts = yield* Effect.all(
      Array.from({ length: writers }, (_, w) =>
        Effect.gen(function* () {
          let i = 0
          while (Date.now() < deadline) {
            yield* step(w, i)
            i++
          }
          return i
        }),
      ),
      { concurrency: "unbounded" },
    )
    const seconds = (performance.now() - started) / 1000
    return (counts.reduce((a, b) => a + b, 0) * eventsPerStep) / seconds
  })

const appendRun = (writers: number, batch: number) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const prefix = `Bench-${crypto.randomUUID()}`
    const versions = Array.from({ length: writers }, () => 0)
    return yield* measure(writers, batch, (w, i) => {
      const events = Array.from({ length: batch }, (_, k) => newEvent(i * batch + k))
      const expected = ExpectedVersion.exact(versions[w] ?? 0)
      return Effect.tap(store.append(`${prefix}-${w}`, "Bench", expected, events), (r) =>
        Effect.sync(() => {
          versions[w] = r.streamVersion
        }),
      )
    })
  })

const baselineRun = (writers: number, batch: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient
    const prefix = `Baseline-${crypto.randomUUID()}`
    const versions = Array.from({ length: writers }, () => 0)
    return yield* measure(writers, batch, (w) => {
      const from = versions[w] ?? 0
      versions[w] = from + batch
      const rows = Array.from({ length: batch }, (_, k) => {
        const e = newEvent(from + k)
        return {
          stream_id: `${prefix}-${w}`,
          stream_type: "Bench",
          stream_version: from + k + 1,
          event_id: e.eventId,
          event_type: e.eventType,
          schema_version: 1,
          data: JSON.stringify(e.data),
          metadata: JSON.stringify(e.metadata),
        }
      })
      const [first, ...rest] = rows
      return first === undefined
        ? Effect.void
        : sql.withTransaction(sql`INSERT INTO bench_events_baseline ${sql.insert([first, ...rest])}`)
    })
  })

const readRate = Effect.gen(function* () {
  const store = yield* EventStore
  const streamId = `BenchRead-${crypto.randomUUID()}`
  for (let v = 0; v < 10_000; v += 500) {
    yield* store.append(
      streamId,
      "BenchRead",
      ExpectedVersion.exact(v),
      Array.from({ length: 500 }, (_, k) => newEvent(v + k)),
    )
  }
  const started = performance.now()
  let read = 0
  for (let i = 0; i < 3; i++) read += (yield* store.readStream(streamId)).length
  return read / ((performance.now() - started) / 1000)
})

const fmt = (n: number) => Math.round(n).toLocaleString("en-US").padStart(10)

const postgres = Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`DROP TABLE IF EXISTS bench_events_baseline`
  yield* sql`CREATE TABLE bench_events_baseline (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES INCLUDING IDENTITY)`
  const scenarios: Array<[string, number, number]> = [
    ["1 writer, single events", 1, 1],
    ["8 writers, single events", 8, 1],
    ["32 writers, single events", 32, 1],
    ["8 writers, batches of 100", 8, 100],
  ]
  console.log(
    `PostgreSQL (${PgDatabase.urlFromEnv().replace(/:[^:@/]*@/, ":***@")}), pool of ${poolSize}, ${secondsPerRun}s per run`,
  )
  console.log(`${"scenario".padEnd(28)} ${"store ev/s".padStart(10)} ${"baseline".padStart(10)}  ratio`)
  for (const [name, writers, batch] of scenarios) {
    const store = yield* appendRun(writers, batch)
    const baseline = yield* baselineRun(writers, batch)
    console.log(`${name.padEnd(28)} ${fmt(store)} ${fmt(baseline)}  ${(store / baseline).toFixed(2)}`)
  }
  console.log(`${"read a 10,000-event stream".padEnd(28)} ${fmt(yield* readRate)}`)
  yield* sql`DROP TABLE bench_events_baseline`
})

const pglite = Effect.gen(function* () {
  console.log("\nPGlite (in memory, one connection)")
  console.log(`${"1 writer, single events".padEnd(28)} ${fmt(yield* appendRun(1, 1))}`)
  console.log(`${"8 writers, single events".padEnd(28)} ${fmt(yield* appendRun(8, 1))}`)
  console.log(`${"read a 10,000-event stream".padEnd(28)} ${fmt(yield* readRate)}`)
})

const storeOn = <E>(database: Layer.Layer<SqlClient, E>) =>
  PgEventStore.layer().pipe(Layer.provideMerge(Migrations.layer), Layer.provideMerge(database))

await Effect.runPromise(
  postgres.pipe(
    Effect.provide(storeOn(PgDatabase.layerPostgres(PgDatabase.urlFromEnv(), { maxConnections: poolSize }))),
  ),
)
await Effect.runPromise(pglite.pipe(Effect.provide(storeOn(PgDatabase.layerPglite()))))
