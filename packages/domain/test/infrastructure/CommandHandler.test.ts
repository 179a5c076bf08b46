/**
 * The command handler: load a stream, fold it, decide, append with the loaded
 * version as the expected version, then apply the policies in context.
 * Shown with the Counter test aggregate.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Layer } from "effect"
import { handle, load } from "../../src/infrastructure/CommandHandler.ts"
import { EventStore, ExpectedVersion, makeMemory, type NewEvent } from "../../src/infrastructure/EventStore.ts"
import { IdGenerator } from "../../src/infrastructure/IdGenerator.ts"
import * as Policy from "../../src/infrastructure/Policy.ts"
import { Policies } from "../../src/infrastructure/Policy.ts"
import { streamId } from "../../src/kernel/Decider.ts"
import { NotFound } from "../../src/kernel/DomainError.ts"
import * as Counter from "../fixtures/Counter.ts"

const at = DateTime.makeUnsafe("2026-03-01T10:00:00Z")
const open: Counter.CounterCommand = { _tag: "Open", at }
const increment = (by: number): Counter.CounterCommand => ({ _tag: "Increment", by, at })
const decrement = (by: number): Counter.CounterCommand => ({ _tag: "Decrement", by, at })

const counterId = "0b6c3d1e-1f2a-4b3c-8d4e-5f6a7b8c9d0e"
const stream = streamId(Counter.aggregate, counterId)

const withStore = (store: EventStore["Service"]) =>
  Layer.mergeAll(Layer.succeed(EventStore, store), IdGenerator.layerSequential, Policies.layerNone)
const fresh = () => withStore(makeMemory())

let foreignIds = 0
/** An event another writer appends, with an id the sequential generator never makes. */
const foreignIncrement = (by: number): NewEvent => ({
  eventId: `ffffffff-ffff-4fff-bfff-${String(++foreignIds).padStart(12, "0")}`,
  eventType: "Incremented",
  schemaVersion: 1,
  data: { _tag: "Incremented", by, at: "2026-03-01T10:00:00.000Z" },
  metadata: {},
})

/** A store where another writer appends `by` just after each of the first `times` loads of the stream. */
const interferingStore = (times: number) => {
  const memory = makeMemory()
  const counters = { loads: 0 }
  const store: EventStore["Service"] = {
    ...memory,
    readStream: (id, options) =>
      Effect.tap(memory.readStream(id, options), (events) => {
        counters.loads++
        return counters.loads <= times && events.length > 0
          ? Effect.orDie(Effect.asVoid(memory.append(id, "Counter", ExpectedVersion.any, [foreignIncrement(1)])))
          : Effect.void
      }),
  }
  return { memory, store, counters }
}

describe("handling a command", () => {
  it.effect("loads the stream, decides, appends the events and returns the new state and version", () =>
    Effect.gen(function* () {
      const opened = yield* handle(Counter.aggregate, counterId, open, { metadata: { correlationId: "c-1" } })
      assert.deepStrictEqual(opened.state, { _tag: "Open", value: 0, changes: 0 })
      assert.strictEqual(opened.version, 1)
      assert.deepStrictEqual(opened.events, [{ _tag: "CounterOpened", at }])

      const counted = yield* handle(Counter.aggregate, counterId, increment(5))
      assert.deepStrictEqual(counted.state, { _tag: "Open", value: 5, changes: 1 })
      assert.strictEqual(counted.version, 2)

      const stored = yield* (yield* EventStore).readStream(stream)
      assert.deepStrictEqual(
        stored.map(({ eventId, eventType, schemaVersion, data, metadata, streamType, streamVersion }) => ({
          eventId,
          eventType,
          schemaVersion,
          data,
          metadata,
          streamType,
          streamVersion,
        })),
        [
          {
            eventId: "00000000-0000-4000-8000-000000000001",
            eventType: "CounterOpened",
            schemaVersion: 1,
            data: { _tag: "CounterOpened", at: "2026-03-01T10:00:00.000Z" },
            metadata: { correlationId: "c-1" },
            streamType: "Counter",
            streamVersion: 1,
          },
          {
            eventId: "00000000-0000-4000-8000-000000000002",
            eventType: "Incremented",
            schemaVersion: 1,
            data: { _tag: "Incremented", by: 5, at: "2026-03-01T10:00:00.000Z" },
            metadata: {},
            streamType: "Counter",
            streamVersion: 2,
          },
        ],
      )
      const loaded = yield* load(Counter.aggregate, counterId)
      assert.deepStrictEqual(loaded, { state: { _tag: "Open", value: 5, changes: 1 }, version: 2 })
    }).pipe(Effect.provide(fresh())),
  )

  it.effect("a no-op decision appends nothing and keeps the version", () =>
    Effect.gen(function* () {
      yield* handle(Counter.aggregate, counterId, open)
      const result = yield* handle(Counter.aggregate, counterId, increment(0))
      assert.deepStrictEqual(result, { events: [], state: { _tag: "Open", value: 0, changes: 0 }, version: 1 })
      assert.strictEqual((yield* (yield* EventStore).readStream(stream)).length, 1)
    }).pipe(Effect.provide(fresh())),
  )

  it.effect("a refusal fails with the decider's error and appends nothing", () =>
    Effect.gen(function* () {
      const notFound = yield* Effect.flip(handle(Counter.aggregate, counterId, increment(1)))
      assert.strictEqual(notFound._tag, "NotFound")
      yield* handle(Counter.aggregate, counterId, open)
      yield* handle(Counter.aggregate, counterId, increment(2))
      const refused = yield* Effect.flip(handle(Counter.aggregate, counterId, decrement(3)))
      assert.strictEqual(refused._tag, "RuleViolated")
      assert.deepStrictEqual(
        (yield* (yield* EventStore).readStream(stream)).map((event) => event.eventType),
        ["CounterOpened", "Incremented"],
      )
    }).pipe(Effect.provide(fresh())),
  )

  it.effect("uses a separate stream per aggregate instance", () =>
    Effect.gen(function* () {
      const other = "7d9e8f10-2a3b-4c5d-9e6f-708192a3b4c5"
      yield* handle(Counter.aggregate, counterId, open)
      yield* handle(Counter.aggregate, counterId, increment(4))
      const otherOpened = yield* handle(Counter.aggregate, other, open)
      assert.strictEqual(otherOpened.version, 1)
      assert.deepStrictEqual((yield* load(Counter.aggregate, other)).state, { _tag: "Open", value: 0, changes: 0 })
    }).pipe(Effect.provide(fresh())),
  )
})

describe("a concurrent writer", () => {
  it.effect("makes the append fail with VersionConflict when no retry is asked for", () => {
    const { memory, store } = interferingStore(Number.POSITIVE_INFINITY)
    return Effect.gen(function* () {
      yield* memory.append(stream, "Counter", ExpectedVersion.noStream, [
        {
          eventId: "aaaaaaaa-0000-4000-8000-000000000001",
          eventType: "CounterOpened",
          schemaVersion: 1,
          data: { _tag: "CounterOpened", at: "2026-03-01T10:00:00.000Z" },
          metadata: {},
        },
      ])
      const conflict = yield* Effect.flip(handle(Counter.aggregate, counterId, increment(10)))
      assert.strictEqual(conflict._tag, "VersionConflict")
      if (conflict._tag === "VersionConflict") {
        assert.strictEqual(conflict.streamId, stream)
        assert.strictEqual(conflict.actual, 2)
      }
      // only the other writer's event was stored
      assert.deepStrictEqual(
        (yield* memory.readStream(stream)).map((event) => event.data),
        [
          { _tag: "CounterOpened", at: "2026-03-01T10:00:00.000Z" },
          { _tag: "Incremented", by: 1, at: "2026-03-01T10:00:00.000Z" },
        ],
      )
    }).pipe(Effect.provide(withStore(store)))
  })

  it.effect("retryOnConflict: 3 reloads and decides again, on top of the other writer's events", () => {
    const { memory, store, counters } = interferingStore(2)
    return Effect.gen(function* () {
      yield* memory.append(stream, "Counter", ExpectedVersion.noStream, [
        {
          eventId: "aaaaaaaa-0000-4000-8000-000000000001",
          eventType: "CounterOpened",
          schemaVersion: 1,
          data: { _tag: "CounterOpened", at: "2026-03-01T10:00:00.000Z" },
          metadata: {},
        },
      ])
      const result = yield* handle(Counter.aggregate, counterId, increment(10), { retryOnConflict: 3 })
      assert.strictEqual(counters.loads, 3)
      assert.deepStrictEqual(result.state, { _tag: "Open", value: 12, changes: 3 })
      assert.strictEqual(result.version, 4)
      assert.deepStrictEqual(
        (yield* memory.readStream(stream)).map((event) => event.streamVersion),
        [1, 2, 3, 4],
      )
    }).pipe(Effect.provide(withStore(store)))
  })

  it.effect("retries are bounded: after 1 + 3 attempts the conflict is returned", () => {
    const { memory, store, counters } = interferingStore(Number.POSITIVE_INFINITY)
    return Effect.gen(function* () {
      yield* memory.append(stream, "Counter", ExpectedVersion.noStream, [
        {
          eventId: "aaaaaaaa-0000-4000-8000-000000000001",
          eventType: "CounterOpened",
          schemaVersion: 1,
          data: { _tag: "CounterOpened", at: "2026-03-01T10:00:00.000Z" },
          metadata: {},
        },
      ])
      const error = yield* Effect.flip(handle(Counter.aggregate, counterId, increment(10), { retryOnConflict: 3 }))
      assert.strictEqual(error._tag, "VersionConflict")
      assert.strictEqual(counters.loads, 4)
    }).pipe(Effect.provide(withStore(store)))
  })

  it.effect("a refusal is never retried", () => {
    const { memory, store, counters } = interferingStore(0)
    return Effect.gen(function* () {
      const error = yield* Effect.flip(handle(Counter.aggregate, counterId, increment(1), { retryOnConflict: 3 }))
      assert.strictEqual(error._tag, "NotFound")
      assert.strictEqual(counters.loads, 1)
      assert.strictEqual((yield* memory.readStream(stream)).length, 0)
    }).pipe(Effect.provide(withStore(store)))
  })

  it.effect("ten increments racing with retries all land exactly once", () => {
    const memory = makeMemory()
    // yield after every load so the racing fibers all load before any of them appends
    const store: EventStore["Service"] = {
      ...memory,
      readStream: (id, options) => Effect.tap(memory.readStream(id, options), () => Effect.yieldNow),
    }
    return Effect.gen(function* () {
      yield* handle(Counter.aggregate, counterId, open)
      const withoutRetry = yield* Effect.all(
        Array.from({ length: 10 }, () => Effect.result(handle(Counter.aggregate, counterId, increment(1)))),
        { concurrency: "unbounded" },
      )
      assert.strictEqual(withoutRetry.filter((result) => result._tag === "Success").length, 1)
      yield* Effect.all(
        Array.from({ length: 10 }, () => handle(Counter.aggregate, counterId, increment(1), { retryOnConflict: 20 })),
        { concurrency: "unbounded" },
      )
      assert.deepStrictEqual(yield* load(Counter.aggregate, counterId), {
        state: { _tag: "Open", value: 11, changes: 11 },
        version: 12,
      })
    }).pipe(Effect.provide(withStore(store)))
  })
})

describe("a stored event the aggregate cannot decode", () => {
  const corrupt = (event: Omit<NewEvent, "eventId" | "schemaVersion" | "metadata">) =>
    Effect.gen(function* () {
      yield* handle(Counter.aggregate, counterId, open)
      yield* handle(Counter.aggregate, counterId, increment(1))
      const store = yield* EventStore
      yield* store.append(stream, "Counter", ExpectedVersion.exact(2), [
        { ...event, eventId: "bbbbbbbb-0000-4000-8000-000000000001", schemaVersion: 1, metadata: {} },
      ])
      return yield* Effect.flip(handle(Counter.aggregate, counterId, increment(1)))
    })

  it.effect("fails the command with EventDecodeFailed naming the stream, version and type", () =>
    Effect.gen(function* () {
      const error = yield* corrupt({
        eventType: "Incremented",
        data: { _tag: "Incremented", by: -1, at: "2026-03-01T10:00:00.000Z" },
      })
      assert.strictEqual(error._tag, "EventDecodeFailed")
      if (error._tag === "EventDecodeFailed") {
        assert.strictEqual(error.streamId, stream)
        assert.strictEqual(error.streamVersion, 3)
        assert.strictEqual(error.eventType, "Incremented")
        assert.isAbove(error.reason.length, 0)
        assert.include(error.message, `${stream}@3`)
      }
      // and nothing was appended after it
      assert.strictEqual((yield* (yield* EventStore).readStream(stream)).length, 3)
    }).pipe(Effect.provide(fresh())),
  )

  it.effect("an unknown event type is reported, never skipped", () =>
    Effect.gen(function* () {
      const error = yield* corrupt({ eventType: "Exploded", data: { _tag: "Exploded" } })
      assert.strictEqual(error._tag, "EventDecodeFailed")
      if (error._tag === "EventDecodeFailed") {
        assert.strictEqual(error.eventType, "Exploded")
        assert.strictEqual(error.streamVersion, 3)
      }
      const loaded = yield* Effect.flip(load(Counter.aggregate, counterId))
      assert.strictEqual(loaded._tag, "EventDecodeFailed")
    }).pipe(Effect.provide(fresh())),
  )
})

/** A second aggregate with the Counter's rules, told by a policy what the counter records. */
const tally: typeof Counter.aggregate = { ...Counter.aggregate, name: "Tally" }
const tallyId = "1c7d4e2f-2a3b-4c4d-9e5f-6a7b8c9d0e1f"
const counted = Policy.make<Counter.CounterEvent, Counter.CounterState, Counter.CounterCommand>({
  name: "what a counter counts up, its tally counts too",
  source: Counter.aggregate,
  reactsTo: ["Incremented"],
  target: tally,
  react: (event) => (event._tag === "Incremented" ? { id: tallyId, command: increment(event.by) } : undefined),
})
const withPolicies = () =>
  Layer.mergeAll(Layer.succeed(EventStore, makeMemory()), IdGenerator.layerSequential, Policies.layer([counted]))

describe("the policies in context", () => {
  it.effect("react to what a command recorded: the command they issue is handled too, with the same metadata", () =>
    Effect.gen(function* () {
      yield* handle(tally, tallyId, open)
      yield* handle(Counter.aggregate, counterId, open)
      const counter = yield* handle(Counter.aggregate, counterId, increment(2), { metadata: { correlationId: "c-7" } })
      assert.deepStrictEqual(counter.state, { _tag: "Open", value: 2, changes: 1 })
      assert.deepStrictEqual((yield* load(tally, tallyId)).state, { _tag: "Open", value: 2, changes: 1 })
      const tallied = yield* (yield* EventStore).readStream(streamId(tally, tallyId))
      assert.strictEqual(tallied[1]?.metadata.correlationId, "c-7")
    }).pipe(Effect.provide(withPolicies())),
  )

  it.effect("a refusal by the policy's target fails the command", () =>
    Effect.gen(function* () {
      yield* handle(Counter.aggregate, counterId, open)
      const error = yield* Effect.flip(handle(Counter.aggregate, counterId, increment(2)))
      assert.deepStrictEqual(error, new NotFound({ entity: "Counter" }))
    }).pipe(Effect.provide(withPolicies())),
  )

  it.effect("issue nothing for events they do not react to, and nothing without policies", () =>
    Effect.gen(function* () {
      yield* handle(tally, tallyId, open)
      yield* handle(Counter.aggregate, counterId, open)
      yield* handle(Counter.aggregate, counterId, increment(3)).pipe(Effect.provide(Policies.layerNone))
      assert.deepStrictEqual((yield* load(tally, tallyId)).state, { _tag: "Open", value: 0, changes: 0 })
    }).pipe(Effect.provide(withPolicies())),
  )
})
