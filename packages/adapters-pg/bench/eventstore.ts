/**
 * EventStore benchmark (node bench/eventstore.ts, or `pnpm bench` in this package).
 *
 * On the PostgreSQL server at DATABASE_URL (same pool size for everything):
 * appends of single events by 1, 8 and 32 concurrent writers and batches of
 * 100 events by 8 writers, each beside a baseline of plain INSERT transactions
 * into a table of the same shape, measured in the same run: 3 rounds, store and
 * baseline alternating, medians reported (with each round's ratio). Then the PGlite
 * append rate and the read rate of a 10,000-event stream on both, and the
 * time to load a Customer aggregate with 10,000 events, from its snapshot and
 * (for comparison) by replaying the whole stream.
 * Bounded: about a minute and a half in total (BENCH_SECONDS_PER_RUN, default 2.5, sets the length of each run).
 */
import { CommandHandler, Customer, EventStore, IdGenerator, type Ids, Policy } from "@partnerpay/domain"
import { DateTime, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../src/Migrations.ts"
import * as PgDatabase from "../src/PgDatabase.ts"
import * as PgEventStore from "../src/PgEventStore.ts"

const poolSize = 32
/**
 * Statements to a pooled session: 4, for an append-bound workload (the default, 32, suits the
 * CPU-bound service; see PgDatabase.PostgresOptions). 32 writers at 32 to a session commit one at
 * a time on one session: about 0.6-0.8x the baseline instead of 1.3x.
 */
const multiplexConcurrency = 4
const secondsPerRun = Number(process.env.BENCH_SECONDS_PER_RUN ?? 2)
/** Store and baseline runs alternate, this many of each; the table gives their medians. */
const rounds = 3

const newEvent = (n: number): EventStore.NewEvent => ({
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
    const store = yield* EventStore.EventStore
    const prefix = `Bench-${crypto.randomUUID()}`
    const versions = Array.from({ length: writers }, () => 0)
    return yield* measure(writers, batch, (w, i) => {
      const events = Array.from({ length: batch }, (_, k) => newEvent(i * batch + k))
      const expected = EventStore.ExpectedVersion.exact(versions[w] ?? 0)
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
  const store = yield* EventStore.EventStore
  const streamId = `BenchRead-${crypto.randomUUID()}`
  for (let v = 0; v < 10_000; v += 500) {
    yield* store.append(
      streamId,
      "BenchRead",
      EventStore.ExpectedVersion.exact(v),
      Array.from({ length: 500 }, (_, k) => newEvent(v + k)),
    )
  }
  const started = performance.now()
  let read = 0
  for (let i = 0; i < 3; i++) read += (yield* store.readStream(streamId)).length
  return read / ((performance.now() - started) / 1000)
})

/**
 * A customer stream of 10,000 events (a registration, then push tokens registered and, past the cap,
 * replaced), written in batches; then the median time of `CommandHandler.load` over the whole stream
 * (no snapshot yet), and after one command (which stores a snapshot) from the snapshot.
 */
const customerLoad = Effect.gen(function* () {
  const store = yield* EventStore.EventStore
  const registrationId = crypto.randomUUID() as Ids.RegistrationId
  const partnerId = crypto.randomUUID() as Ids.PartnerId
  const at = DateTime.makeUnsafe("2026-11-01T09:00:00Z")
  const expireAt = DateTime.makeUnsafe("2027-11-01T09:00:00Z")
  const events: Array<Customer.Event> = []
  let state = Customer.initialState
  const record = (command: Customer.Command) => {
    const decision = Customer.decide(command, state)
    if (decision._tag === "Failure") throw new Error(`bench history refused: ${command._tag}`)
    for (const event of decision.success) {
      events.push(event)
      state = Customer.evolve(state, event)
    }
  }
  record({ _tag: "RegisterCustomer", registrationId, partnerId, phoneNumber: "+14155550123", at })
  for (let i = 0; events.length < 10_000; i++) record({ _tag: "RegisterPushToken", token: `t-${i}`, expireAt, at })
  const encode = Schema.encodeSync(Customer.aggregate.events)
  const streamId = `Customer-${registrationId}`
  for (let v = 0; v < events.length; v += 500) {
    yield* store.append(
      streamId,
      "Customer",
      EventStore.ExpectedVersion.exact(v),
      events.slice(v, v + 500).map((event) => ({
        eventId: crypto.randomUUID(),
        eventType: event._tag,
        schemaVersion: 1,
        data: encode(event),
        metadata: { partnerId },
      })),
    )
  }
  const timeLoads = (times: number) =>
    Effect.gen(function* () {
      const samples: Array<number> = []
      for (let i = 0; i < times; i++) {
        const started = performance.now()
        yield* CommandHandler.load(Customer.aggregate, registrationId)
        samples.push(performance.now() - started)
      }
      return median(samples)
    })
  const replay = yield* timeLoads(5)
  yield* CommandHandler.handle(Customer.aggregate, registrationId, {
    _tag: "RegisterPushToken",
    token: "snapshot-maker",
    expireAt,
    at,
  }).pipe(Effect.provide(Layer.merge(IdGenerator.IdGenerator.layerRandom, Policy.Policies.layerNone)))
  const fromSnapshot = yield* timeLoads(21)
  return { events: events.length + 2, replay, fromSnapshot }
})

const median = (samples: ReadonlyArray<number>) =>
  [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? 0

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
    `PostgreSQL (${PgDatabase.urlFromEnv().replace(/:[^:@/]*@/, ":***@")}), pool of ${poolSize}, ${multiplexConcurrency} statements to a session, ${secondsPerRun}s per run`,
  )
  console.log(`${"scenario".padEnd(28)} ${"store ev/s".padStart(10)} ${"baseline".padStart(10)}  ratio`)
  for (const [name, writers, batch] of scenarios) {
    const stores: Array<number> = []
    const baselines: Array<number> = []
    for (let round = 0; round < rounds; round++) {
      stores.push(yield* appendRun(writers, batch))
      baselines.push(yield* baselineRun(writers, batch))
    }
    const store = median(stores)
    const baseline = median(baselines)
    console.log(`${name.padEnd(28)} ${fmt(store)} ${fmt(baseline)}  ${(store / baseline).toFixed(2)}`)
    console.log(`${"".padEnd(28)} rounds: ${stores.map((x, i) => (x / (baselines[i] ?? x)).toFixed(2)).join(", ")}`)
  }
  console.log(`${"read a 10,000-event stream".padEnd(28)} ${fmt(yield* readRate)}`)
  const load = yield* customerLoad
  console.log(
    `${"load a 10,000-event customer".padEnd(28)} ${load.fromSnapshot.toFixed(2).padStart(8)}ms from its snapshot (target < 5 ms), ${load.replay.toFixed(1)}ms replaying all ${load.events} events`,
  )
  yield* sql`DROP TABLE bench_events_baseline`
})

const pglite = Effect.gen(function* () {
  console.log("\nPGlite (in memory, one connection)")
  console.log(`${"1 writer, single events".padEnd(28)} ${fmt(yield* appendRun(1, 1))}`)
  console.log(`${"8 writers, single events".padEnd(28)} ${fmt(yield* appendRun(8, 1))}`)
  console.log(`${"read a 10,000-event stream".padEnd(28)} ${fmt(yield* readRate)}`)
  const load = yield* customerLoad
  console.log(
    `${"load a 10,000-event customer".padEnd(28)} ${load.fromSnapshot.toFixed(2).padStart(8)}ms from its snapshot, ${load.replay.toFixed(1)}ms replaying all ${load.events} events`,
  )
})

const storeOn = <E>(database: Layer.Layer<SqlClient, E>) =>
  PgEventStore.layer().pipe(Layer.provideMerge(Migrations.layer), Layer.provideMerge(database))

await Effect.runPromise(
  postgres.pipe(
    Effect.provide(
      storeOn(PgDatabase.layerPostgres(PgDatabase.urlFromEnv(), { maxConnections: poolSize, multiplexConcurrency })),
    ),
  ),
)
await Effect.runPromise(pglite.pipe(Effect.provide(storeOn(PgDatabase.layerPglite()))))
