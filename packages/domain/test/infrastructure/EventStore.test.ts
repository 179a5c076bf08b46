/**
 * The in-memory EventStore passes the EventStore contract (the same suite the
 * PostgreSQL store runs), plus checks of the contract helper itself.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { EventStore, ExpectedVersion, makeMemory, VersionConflict } from "../../src/infrastructure/EventStore.ts"
import { EventStoreContract } from "../../src/testing/index.ts"

EventStoreContract.eventStoreContract("in memory", EventStore.layerMemory, { describe, it, beforeAll, afterAll })

describe("the in-memory store", () => {
  it.effect("starts empty: the global log begins at position 1", () =>
    Effect.gen(function* () {
      const store = yield* EventStore
      assert.deepStrictEqual(yield* store.readAll({ after: 0, limit: 10 }), [])
      const result = yield* store.append("S-1", "S", ExpectedVersion.noStream, [
        { eventId: "e1", eventType: "T", schemaVersion: 1, data: {}, metadata: {} },
      ])
      assert.deepStrictEqual(result, { streamVersion: 1, lastPosition: 1 })
    }).pipe(Effect.provide(EventStore.layerMemory)),
  )
})

describe("the EventStore contract", () => {
  // A contract that every store passes proves nothing: a store that breaks a rule must fail it.
  const failingCases = (broken: EventStore["Service"]) =>
    Effect.gen(function* () {
      const failed: Array<string> = []
      for (const contract of EventStoreContract.eventStoreContractCases) {
        const exit = yield* Effect.exit(Effect.provide(contract.run, Layer.succeed(EventStore, broken)))
        if (exit._tag === "Failure") failed.push(contract.name)
      }
      return failed
    })

  it.effect("fails a store that ignores the expected version", () =>
    Effect.gen(function* () {
      const memory = makeMemory()
      const failed = yield* failingCases({
        ...memory,
        append: (streamId, streamType, _expected, events) =>
          memory.append(streamId, streamType, ExpectedVersion.any, events),
      })
      assert.include(failed, "NoStream on an existing stream fails with VersionConflict carrying the actual version")
      assert.include(failed, "50 writers expecting the same version: exactly one wins, the others get VersionConflict")
    }),
  )

  it.effect("fails a store whose readStream ignores afterVersion", () =>
    Effect.gen(function* () {
      const memory = makeMemory()
      const failed = yield* failingCases({ ...memory, readStream: (streamId) => memory.readStream(streamId) })
      assert.deepStrictEqual(failed, [
        "readStream returns a stream in version order, and only the events after afterVersion",
      ])
    }),
  )

  it.effect("fails a store whose readAll ignores the limit", () =>
    Effect.gen(function* () {
      const memory = makeMemory()
      const failed = yield* failingCases({
        ...memory,
        readAll: ({ after }) => memory.readAll({ after, limit: 1_000_000 }),
      })
      assert.include(
        failed,
        "readAll returns every stream's events in global order from a checkpoint, at most limit at a time",
      )
    }),
  )

  // live clock: the contract waits (briefly) for events a store may still hold back
  it.live("fails a store that appends a repeated event again", () =>
    Effect.gen(function* () {
      const memory = makeMemory()
      let counter = 0
      const failed = yield* failingCases({
        ...memory,
        append: (streamId, streamType, expected, events) =>
          memory.append(
            streamId,
            streamType,
            expected,
            events.map((event) => ({ ...event, eventId: `${event.eventId}-${++counter}` })),
          ),
      })
      assert.include(failed, "re-appending the same event ids returns the stored result and writes nothing twice")
    }),
  )

  it.effect("fails a store that checks the version and writes in two steps (a race)", () =>
    Effect.gen(function* () {
      const memory = makeMemory()
      const failed = yield* failingCases({
        ...memory,
        append: (streamId, streamType, expected, events) =>
          Effect.gen(function* () {
            const actual = (yield* memory.readStream(streamId)).length
            if (!ExpectedVersion.matches(expected, actual)) {
              return yield* new VersionConflict({ streamId, expected: ExpectedVersion.describe(expected), actual })
            }
            yield* Effect.yieldNow
            return yield* memory.append(streamId, streamType, ExpectedVersion.any, events)
          }),
      })
      assert.include(failed, "50 writers expecting the same version: exactly one wins, the others get VersionConflict")
      assert.include(failed, "50 writers creating the same stream with NoStream: exactly one wins")
    }),
  )

  it.live("fails a store whose global order is not the commit order", () =>
    Effect.gen(function* () {
      const memory = makeMemory()
      const failed = yield* failingCases({
        ...memory,
        readAll: (options) => Effect.map(memory.readAll(options), (events) => events.slice().reverse()),
      })
      assert.include(
        failed,
        "readAll returns every stream's events in global order from a checkpoint, at most limit at a time",
      )
      assert.include(
        failed,
        "writers on many streams in parallel get unique positions; readAll returns each event once, every stream in order",
      )
    }),
  )

  it.effect("passes the in-memory store unchanged", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* failingCases(makeMemory()), [])
    }),
  )
})
