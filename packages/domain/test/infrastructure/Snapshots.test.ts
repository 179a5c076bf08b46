/**
 * Snapshots: an aggregate with a snapshot policy is loaded from its latest
 * snapshot plus the events after it, and the state is the same as replaying
 * the whole stream. Shown with the Counter test aggregate, snapshotted every
 * 3 events, on the in-memory store.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Layer, Schema } from "effect"
import { handle, load } from "../../src/infrastructure/CommandHandler.ts"
import { EventStore, makeMemory } from "../../src/infrastructure/EventStore.ts"
import { IdGenerator } from "../../src/infrastructure/IdGenerator.ts"
import { Policies } from "../../src/infrastructure/Policy.ts"
import { type Aggregate, fold, streamId } from "../../src/kernel/Decider.ts"
import * as Counter from "../fixtures/Counter.ts"

const at = DateTime.makeUnsafe("2026-03-01T10:00:00Z")
const counterId = "5a1e0c8b-9d3f-4e2a-8b7c-6d5e4f3a2b1c"

const CounterStateJson: Schema.Codec<Counter.CounterState, unknown> = Schema.Union([
  Schema.TaggedStruct("Unopened", {}),
  Schema.TaggedStruct("Open", { value: Schema.Number, changes: Schema.Number }),
  Schema.TaggedStruct("Closed", { value: Schema.Number }),
])

const snapshotted = (schemaVersion: number) =>
  ({
    ...Counter.aggregate,
    snapshot: { schemaVersion, state: CounterStateJson, every: 3 },
  }) satisfies Aggregate<Counter.CounterCommand, Counter.CounterEvent, Counter.CounterState, Counter.CounterError>

/** A memory store that counts the events its loaders read. */
const countingStore = () => {
  const memory = makeMemory()
  const read = { events: 0 }
  const store: EventStore["Service"] = {
    ...memory,
    readStream: (id, options) =>
      Effect.tap(memory.readStream(id, options), (events) =>
        Effect.sync(() => {
          read.events += events.length
        }),
      ),
    readFromSnapshot: (id, version) =>
      Effect.tap(memory.readFromSnapshot!(id, version), ({ events }) =>
        Effect.sync(() => {
          read.events += events.length
        }),
      ),
  }
  return {
    store,
    read,
    layer: Layer.mergeAll(Layer.succeed(EventStore, store), IdGenerator.layerSequential, Policies.layerNone),
  }
}

const history = (aggregate: ReturnType<typeof snapshotted>, increments: number) =>
  Effect.gen(function* () {
    yield* handle(aggregate, counterId, { _tag: "Open", at })
    for (let i = 1; i <= increments; i++) yield* handle(aggregate, counterId, { _tag: "Increment", by: i, at })
  })

describe("an aggregate with a snapshot policy", () => {
  it.effect("loads from its latest snapshot: only the events after it are read", () => {
    const { read, layer } = countingStore()
    return Effect.gen(function* () {
      const aggregate = snapshotted(1)
      yield* history(aggregate, 10) // 11 events: snapshots at 3, 6, 9
      read.events = 0
      const loaded = yield* load(aggregate, counterId)
      assert.strictEqual(read.events, 2)
      assert.deepStrictEqual(loaded, { state: { _tag: "Open", value: 55, changes: 10 }, version: 11 })
    }).pipe(Effect.provide(layer))
  })

  it.effect("is in the same state as a replay of the whole stream", () => {
    const { layer } = countingStore()
    return Effect.gen(function* () {
      const aggregate = snapshotted(1)
      yield* history(aggregate, 7)
      const store = yield* EventStore
      const replayed = yield* store.readStream(streamId(aggregate, counterId))
      const events = replayed.map((event) => Schema.decodeUnknownSync(Counter.CounterEvent)(event.data))
      const loaded = yield* load(aggregate, counterId)
      assert.deepStrictEqual(loaded.state, fold(Counter.aggregate, events))
      assert.strictEqual(loaded.version, replayed.length)
    }).pipe(Effect.provide(layer))
  })

  it.effect("ignores a snapshot of another schema version and reads the whole stream", () => {
    const { read, layer } = countingStore()
    return Effect.gen(function* () {
      yield* history(snapshotted(1), 10)
      read.events = 0
      const loaded = yield* load(snapshotted(2), counterId)
      assert.strictEqual(read.events, 11)
      assert.strictEqual(loaded.version, 11)
    }).pipe(Effect.provide(layer))
  })

  it.effect("keeps deciding correctly after a snapshot (the version it appends at is the stream's)", () => {
    const { layer } = countingStore()
    return Effect.gen(function* () {
      const aggregate = snapshotted(1)
      yield* history(aggregate, 5)
      const result = yield* handle(aggregate, counterId, { _tag: "Decrement", by: 15, at })
      assert.strictEqual(result.version, 7)
      assert.deepStrictEqual(result.state, { _tag: "Open", value: 0, changes: 6 })
    }).pipe(Effect.provide(layer))
  })
})
