/**
 * The PostgreSQL EventStore against the real server: the contract, then what
 * only a shared database can show (migrations racing, concurrent writers, a
 * reader following the global log while writers commit out of order, the
 * append hook's writes joining the append, bad stored data, error mapping).
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { CommandHandler, Decider, EventStore, ReadModel } from "@partnerpay/domain"
import { EventStoreContract } from "@partnerpay/domain/testing"
import { Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../src/Migrations.ts"
import * as PgDatabase from "../src/PgDatabase.ts"
import * as PgEventStore from "../src/PgEventStore.ts"
import * as PgReadModelStore from "../src/PgReadModelStore.ts"
import { databaseUrl, postgresAvailable, postgresStore } from "./support.ts"

const newEvent = (data: unknown, eventType = "Tested"): EventStore.NewEvent => ({
  eventId: crypto.randomUUID(),
  eventType,
  schemaVersion: 1,
  data,
  metadata: {},
})

const suite = postgresAvailable ? describe : describe.skip

if (postgresAvailable) {
  EventStoreContract.eventStoreContract("PostgreSQL", postgresStore(), { describe, it, beforeAll, afterAll })
}

suite("PostgreSQL", () => {
  // The real clock (no test services): writers keep their transactions open a random while.
  it.layer(Layer.fresh(postgresStore()), { timeout: 120_000, excludeTestServices: true })((it) => {
    /** A fresh, empty schema for one test, dropped after it. */
    const scratchSchema = (prefix: string) =>
      Effect.acquireRelease(
        Effect.flatMap(SqlClient, (sql) => {
          const schema = `${prefix}_${crypto.randomUUID().replaceAll("-", "")}`
          return Effect.as(sql.unsafe(`CREATE SCHEMA ${schema}`), schema)
        }),
        (schema) => Effect.orDie(Effect.flatMap(SqlClient, (sql) => sql.unsafe(`DROP SCHEMA ${schema} CASCADE`))),
      )

    it.effect(
      "migrations started by two processes at once apply exactly once",
      () =>
        Effect.gen(function* () {
          const schema = yield* scratchSchema("mig")
          // Two separate pools stand for two processes; both target the fresh schema.
          const process = Migrations.run.pipe(
            Effect.provide(PgDatabase.layerPostgres(databaseUrl, { startupParameters: { search_path: schema } })),
          )
          const [a, b] = yield* Effect.all([process, process], { concurrency: 2 })
          const applied = [...a, ...b]
          // Every migration exactly once, whichever process applied it.
          assert.deepStrictEqual(
            [...applied].sort((x, y) => x[0] - y[0]),
            Object.keys(Migrations.migrations).map((key) => {
              const [, id, name] = /^(\d+)_(.*)$/.exec(key) ?? []
              return [Number(id), name ?? ""] as const
            }),
          )
          const sql = yield* SqlClient
          const tables = yield* sql<{
            table_name: string
          }>`SELECT table_name FROM information_schema.tables WHERE table_schema = ${schema} ORDER BY table_name`
          const names = tables.map((row) => row.table_name)
          for (const table of ["events", "streams", Migrations.table, "read_models", "outbox", "partners"]) {
            assert.include(names, table)
          }
        }).pipe(Effect.scoped),
      30_000,
    )

    it.effect(
      "an event is indexed only by what a statement reads it by: position, id, stream version, commit order (no partial index: the sandbox's disputes are a read model)",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient
          const indexes = yield* sql<{ indexdef: string }>`
          SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'events'`
          // Migration 0080's partial indexes of the sandbox's disputes were dropped by 0130 (a read model now).
          const partial = indexes.filter((row) => row.indexdef.includes(" WHERE "))
          assert.deepStrictEqual(
            partial.map((row) => /^CREATE INDEX (\S+)/.exec(row.indexdef)?.[1]),
            [],
          )
          const columns = indexes
            .filter((row) => !row.indexdef.includes(" WHERE "))
            .map((row) => /\(([^)]*)\)$/.exec(row.indexdef)?.[1] ?? row.indexdef)
            .sort()
          assert.deepStrictEqual(columns, [
            "event_id",
            "global_position",
            "stream_id, stream_version",
            "transaction_id, global_position",
          ])
        }),
    )

    it.effect("32 fibers appending to one stream at the same expected version: exactly one wins", () =>
      Effect.gen(function* () {
        const streamId = `Race-${crypto.randomUUID()}`
        const outcomes = yield* Effect.gen(function* () {
          const store = yield* EventStore.EventStore
          yield* store.append(streamId, "Race", EventStore.ExpectedVersion.noStream, [newEvent({ n: 0 })])
          return yield* Effect.all(
            Array.from({ length: 32 }, (_, i) =>
              Effect.result(
                store.append(streamId, "Race", EventStore.ExpectedVersion.exact(1), [newEvent({ writer: i })]),
              ),
            ),
            { concurrency: "unbounded" },
          )
        })
        assert.strictEqual(outcomes.filter((o) => o._tag === "Success").length, 1)
        for (const outcome of outcomes) {
          if (outcome._tag === "Failure") {
            assert.strictEqual(outcome.failure._tag, "VersionConflict")
            if (outcome.failure._tag === "VersionConflict") assert.strictEqual(outcome.failure.actual, 2)
          }
        }
      }),
    )

    it.effect("many streams appended in parallel get unique global positions", () =>
      Effect.gen(function* () {
        const results = yield* Effect.flatMap(EventStore.EventStore, (store) =>
          Effect.all(
            Array.from({ length: 64 }, () =>
              store.append(`Parallel-${crypto.randomUUID()}`, "Parallel", EventStore.ExpectedVersion.any, [
                newEvent({}),
                newEvent({}),
              ]),
            ),
            { concurrency: 16 },
          ),
        )
        const positions = results.map((r) => r.lastPosition)
        assert.strictEqual(new Set(positions).size, positions.length)
      }),
    )

    it.effect(
      "a reader following readAll while 8 writers append sees every event exactly once, each stream in order",
      () =>
        Effect.gen(function* () {
          // Each append runs in a transaction kept open for a random while after its
          // positions are drawn, so commits land out of position order.
          const result = yield* Effect.gen(function* () {
            const store = yield* EventStore.EventStore
            const sql = yield* SqlClient
            const start = Number(
              (yield* sql<{ max: bigint | null }>`SELECT max(global_position) AS max FROM events`)[0]?.max ?? 0,
            )
            const streams = Array.from({ length: 24 }, () => `Follow-${crypto.randomUUID()}`)
            const expected = new Set<string>()
            const writer = (w: number) =>
              Effect.gen(function* () {
                for (let i = 0; i < 25; i++) {
                  const events = [newEvent({ w, i }), ...(i % 3 === 0 ? [newEvent({ w, i, second: true })] : [])]
                  for (const e of events) expected.add(e.eventId)
                  yield* sql.withTransaction(
                    store
                      .append(
                        streams[(w * 7 + i) % streams.length] ?? "",
                        "Follow",
                        EventStore.ExpectedVersion.any,
                        events,
                      )
                      .pipe(Effect.tap(() => Effect.sleep(Math.floor(Math.random() * 6)))),
                  )
                }
              })
            const seen: Array<EventStore.RecordedEvent> = []
            let writersDone = false
            const writers = Effect.all(
              Array.from({ length: 8 }, (_, w) => writer(w)),
              { concurrency: "unbounded" },
            ).pipe(Effect.ensuring(Effect.sync(() => (writersDone = true))))
            const reader = Effect.gen(function* () {
              let checkpoint = start
              const deadline = Date.now() + 20_000
              while (Date.now() < deadline) {
                const page = yield* store.readAll({ after: checkpoint, limit: 20 })
                for (const event of page) {
                  checkpoint = event.globalPosition
                  seen.push(event)
                }
                const mine = seen.filter((e) => expected.has(e.eventId)).length
                if (writersDone && mine === expected.size) return
                if (page.length === 0) yield* Effect.sleep(2)
              }
            })
            yield* Effect.all([writers, reader], { concurrency: 2 })
            return { seen, expected }
          }).pipe(Effect.provide(Layer.fresh(postgresStore())))
          const mine = result.seen.filter((e) => result.expected.has(e.eventId))
          assert.strictEqual(mine.length, result.expected.size)
          assert.strictEqual(new Set(mine.map((e) => e.eventId)).size, mine.length)
          const byStream = new Map<string, Array<number>>()
          for (const e of mine) byStream.set(e.streamId, [...(byStream.get(e.streamId) ?? []), e.streamVersion])
          for (const versions of byStream.values()) {
            assert.deepStrictEqual(
              versions,
              versions.map((_, i) => i + 1),
            )
          }
        }),
      30_000,
    )

    it.effect("units racing to create one stream with any version are read back by readAll in version order", () =>
      Effect.gen(function* () {
        // Each round, 8 appends expecting any version race to create the same new stream, each its own
        // unit (one statement, autocommit): the one that loses the race for the stream's row must not
        // hold the older transaction id, or readAll, ordered by (transaction id, position), would give
        // its later version first.
        const store = yield* EventStore.EventStore
        const sql = yield* SqlClient
        const start = Number(
          (yield* sql<{ max: bigint | null }>`SELECT max(global_position) AS max FROM events`)[0]?.max ?? 0,
        )
        const streams = Array.from({ length: 60 }, () => `Race-${crypto.randomUUID()}`)
        for (const streamId of streams) {
          yield* Effect.all(
            Array.from({ length: 8 }, (_, w) =>
              store.append(streamId, "Race", EventStore.ExpectedVersion.any, [newEvent({ w })]),
            ),
            { concurrency: "unbounded" },
          )
        }
        // readAll gives only what every running transaction of the server has passed: follow it until
        // the rounds' events are all read (or the deadline).
        const read: Array<EventStore.RecordedEvent> = []
        let checkpoint = start
        const deadline = Date.now() + 20_000
        while (read.length < streams.length * 8 && Date.now() < deadline) {
          const page = yield* store.readAll({ after: checkpoint, limit: 500 })
          read.push(...page)
          checkpoint = page[page.length - 1]?.globalPosition ?? checkpoint
          if (page.length === 0) yield* Effect.sleep(2)
        }
        const versionsOf = (streamId: string) => read.filter((e) => e.streamId === streamId).map((e) => e.streamVersion)
        for (const streamId of streams) assert.deepStrictEqual(versionsOf(streamId), [1, 2, 3, 4, 5, 6, 7, 8])
      }),
    )

    it.effect(
      "an append in a transaction that wrote before a newer transaction extended the stream is a version conflict",
      () =>
        Effect.gen(function* () {
          // readAll would give this transaction's event (older id) before the event it follows.
          const store = yield* EventStore.EventStore
          const sql = yield* SqlClient
          const streamId = `Outer-${crypto.randomUUID()}`
          const other = Layer.fresh(postgresStore())
          const outcome = yield* sql
            .withTransaction(
              Effect.gen(function* () {
                yield* sql`SELECT pg_current_xact_id()::text` // the transaction gets its id now, as a first write would
                yield* EventStore.EventStore.use((s) =>
                  s.append(streamId, "Outer", EventStore.ExpectedVersion.noStream, [newEvent({})]),
                ).pipe(Effect.provide(other), Effect.orDie)
                return yield* store.append(streamId, "Outer", EventStore.ExpectedVersion.exact(1), [newEvent({})])
              }),
            )
            .pipe(Effect.flip)
          assert.strictEqual(outcome._tag, "VersionConflict")
          const stored = yield* store.readStream(streamId)
          assert.deepStrictEqual(
            stored.map((e) => e.streamVersion),
            [1],
          )
        }),
    )

    it.effect("an append in a transaction that wrote before, on a stream older than it, is stored", () =>
      Effect.gen(function* () {
        const store = yield* EventStore.EventStore
        const sql = yield* SqlClient
        const streamId = `Outer-${crypto.randomUUID()}`
        yield* store.append(streamId, "Outer", EventStore.ExpectedVersion.noStream, [newEvent({})])
        yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`SELECT pg_current_xact_id()::text`
            yield* store.append(streamId, "Outer", EventStore.ExpectedVersion.exact(1), [newEvent({})])
          }),
        )
        const stored = yield* store.readStream(streamId)
        assert.deepStrictEqual(
          stored.map((e) => e.streamVersion),
          [1, 2],
        )
      }),
    )

    it.effect("the append hook's documents are written with the append, and not at all when the hook fails", () =>
      Effect.gen(function* () {
        const streamId = `Hooked-${crypto.randomUUID()}`
        const hooked = (fail: boolean) =>
          Layer.fresh(
            postgresStore({
              onAppend: (events) =>
                Effect.gen(function* () {
                  const readModels = yield* ReadModel.ReadModelStore
                  for (const e of events) {
                    yield* readModels.put({
                      collection: "hooked",
                      id: e.eventId,
                      data: { version: e.streamVersion },
                      index: { partnerId: "p", keys: {}, sortKey: e.eventId },
                    })
                  }
                  if (fail) return yield* Effect.fail("projection refused")
                }).pipe(Effect.provide(PgReadModelStore.layer)),
            }),
          )
        const first = newEvent({ n: 1 })
        yield* Effect.flatMap(EventStore.EventStore, (store) =>
          store.append(streamId, "Hooked", EventStore.ExpectedVersion.noStream, [first]),
        ).pipe(Effect.provide(hooked(false)))
        const second = newEvent({ n: 2 })
        const refused = yield* Effect.flip(
          Effect.flatMap(EventStore.EventStore, (store) =>
            store.append(streamId, "Hooked", EventStore.ExpectedVersion.exact(1), [second]),
          ),
        ).pipe(Effect.provide(hooked(true)))
        assert.strictEqual(refused._tag, "EventStoreUnavailable")
        const sql = yield* SqlClient
        const rows = yield* sql<{
          id: string
        }>`SELECT id FROM read_models WHERE collection = 'hooked' AND id IN (${first.eventId}, ${second.eventId})`
        assert.deepStrictEqual(
          rows.map((r) => r.id),
          [first.eventId],
        )
        const stored = yield* Effect.flatMap(EventStore.EventStore, (store) => store.readStream(streamId))
        assert.deepStrictEqual(
          stored.map((e) => e.eventId),
          [first.eventId],
        )
      }),
    )

    it.effect("an event its aggregate cannot decode is reported with stream, version and type", () =>
      Effect.gen(function* () {
        const Noted = Schema.TaggedStruct("Noted", { text: Schema.String })
        type Noted = typeof Noted.Type
        const aggregate: Decider.Aggregate<{ readonly _tag: "Note"; readonly text: string }, Noted, number, never> = {
          name: "Notebook",
          initialState: 0,
          decide: (command) => Decider.accept({ _tag: "Noted" as const, text: command.text }),
          evolve: (count) => count + 1,
          events: Noted,
          eventVersion: () => 1,
        }
        const id = crypto.randomUUID()
        const streamId = Decider.streamId(aggregate, id)
        const error = yield* Effect.gen(function* () {
          const store = yield* EventStore.EventStore
          const sql = yield* SqlClient
          yield* store.append(streamId, "Notebook", EventStore.ExpectedVersion.noStream, [
            newEvent({ _tag: "Noted", text: "fine" }, "Noted"),
            newEvent({ _tag: "Noted", text: "fine too" }, "Noted"),
          ])
          const loaded = yield* CommandHandler.load(aggregate, id)
          assert.deepStrictEqual(loaded, { state: 2, version: 2 })
          yield* sql`UPDATE events SET data = '{"_tag":"Noted","text":42}'::jsonb WHERE stream_id = ${streamId} AND stream_version = 2`
          return yield* Effect.flip(CommandHandler.load(aggregate, id))
        })
        assert.strictEqual(error._tag, "EventDecodeFailed")
        if (error._tag === "EventDecodeFailed") {
          assert.strictEqual(error.streamId, streamId)
          assert.strictEqual(error.streamVersion, 2)
          assert.strictEqual(error.eventType, "Noted")
        }
      }),
    )

    it.effect("database failures become EventStoreUnavailable without SQL text", () =>
      Effect.gen(function* () {
        // A store whose tables do not exist (a schema never migrated).
        const schema = yield* scratchSchema("empty")
        const broken = PgEventStore.layer().pipe(
          Layer.provide(PgDatabase.layerPostgres(databaseUrl, { startupParameters: { search_path: schema } })),
        )
        const errors = yield* Effect.gen(function* () {
          const store = yield* EventStore.EventStore
          return [
            yield* Effect.flip(store.readStream("S-1")),
            yield* Effect.flip(store.readAll({ after: 0, limit: 1 })),
            yield* Effect.flip(store.append("S-1", "S", EventStore.ExpectedVersion.any, [newEvent({})])),
          ]
        }).pipe(Effect.provide(broken))
        for (const error of errors) {
          assert.instanceOf(error, EventStore.EventStoreUnavailable)
          assert.notMatch(error.message, /select|insert|events|streams/i)
          assert.isUndefined((error as EventStore.EventStoreUnavailable).cause)
        }
      }).pipe(Effect.scoped),
    )
  })
})
