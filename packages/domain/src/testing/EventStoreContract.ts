/**
 * The contract every EventStore implementation must pass: optimistic
 * concurrency (NoStream, Exact, Any), atomic multi-event appends numbered
 * 1..n, stream and global reads, idempotent re-appends, and correct behaviour
 * under concurrent writers.
 *
 * Framework-neutral so that the domain keeps importing nothing but `effect`:
 * pass your runner's `describe`, `it`, `beforeAll` and `afterAll`:
 *
 *   import { afterAll, beforeAll, describe, it } from "@effect/vitest"
 *   eventStoreContract("PostgreSQL", PgEventStore.layer, { describe, it, beforeAll, afterAll })
 *
 * The layer is built once per suite and shared by its tests. Every test uses
 * fresh random stream ids and never assumes the store is empty, so a store
 * shared with other tests or other processes (one test database) is fine.
 * The cases are also exported as plain Effects (`eventStoreContractCases`).
 */

import { DateTime, Effect } from "effect"
import {
  type AppendResult,
  EventStore,
  type EventStoreUnavailable,
  ExpectedVersion,
  type NewEvent,
  type RecordedEvent,
  type VersionConflict,
} from "../infrastructure/EventStore.ts"
import * as Traced from "../kernel/Traced.ts"
import { type Case, contractOf } from "./Contract.ts"
import { stable } from "./StableJson.ts"

// The Web Crypto global exists in every supported runtime; declared because the domain compiles without DOM or Node typings.
declare const crypto: { randomUUID(): string }

export type { ContractOptions, TestRunner } from "./Contract.ts"

export type ContractCase = Case<VersionConflict | EventStoreUnavailable, EventStore>

// ---------------------------------------------------------------------------------------------
// helpers

const streamType = "ContractTest"
const newStreamId = (): string => `${streamType}-${crypto.randomUUID()}`

class ContractViolation extends Error {
  override readonly name = "EventStoreContractViolation"
}

const check = (condition: boolean, message: string): void => {
  if (!condition) throw new ContractViolation(message)
}

const checkEqual = (actual: unknown, expected: unknown, what: string): void => {
  if (stable(actual) !== stable(expected)) {
    throw new ContractViolation(`${what}: expected ${stable(expected)} but got ${stable(actual)}`)
  }
}

const newEvent = (data: unknown, eventType = "Tested"): NewEvent => ({
  eventId: crypto.randomUUID(),
  eventType,
  schemaVersion: 1,
  data,
  metadata: { correlationId: "contract" },
})

const newEvents = (count: number, from = 1): Array<NewEvent> =>
  Array.from({ length: count }, (_, i) => newEvent({ n: from + i }))

const append = (streamId: string, expected: ExpectedVersion, events: ReadonlyArray<NewEvent>) =>
  Effect.flatMap(EventStore, (store) => store.append(streamId, streamType, expected, events))

const readStream = (streamId: string, afterVersion?: number) =>
  Effect.flatMap(EventStore, (store) =>
    store.readStream(streamId, afterVersion === undefined ? undefined : { afterVersion }),
  )

/** Expects the append to fail with a VersionConflict and returns it. */
const conflict = Traced.fn("EventStoreContract.conflict")(function* (
  streamId: string,
  expected: ExpectedVersion,
  events: ReadonlyArray<NewEvent>,
) {
  const result = yield* Effect.result(append(streamId, expected, events))
  if (result._tag === "Success") {
    throw new ContractViolation(
      `append to ${streamId} expecting ${ExpectedVersion.describe(expected)} should fail with VersionConflict but succeeded at version ${result.success.streamVersion}`,
    )
  }
  const error = result.failure
  check(error._tag === "VersionConflict", `expected a VersionConflict but got ${error._tag}: ${error.message}`)
  return error as VersionConflict
})

/**
 * Appends one event to a fresh stream and returns its position: a checkpoint
 * before everything appended after it (whose transactions start later).
 */
const marker = Effect.map(
  append(newStreamId(), ExpectedVersion.noStream, [newEvent({ marker: true })]),
  (result) => result.lastPosition,
)

/**
 * Reads the global log after the event at position `after` in pages of
 * `limit` until every event of `awaited` (event ids) was returned. Checks each
 * page: at most `limit` events, and no event returned twice (positions are
 * unique, but a store orders the log by commit, so they need not increase).
 * A store may hold back events whose appends are still in flight, so an empty
 * page is retried briefly.
 */
const readAllUntil = Traced.fn("EventStoreContract.readAllUntil")(function* (
  after: number,
  awaited: ReadonlyArray<string>,
  limit: number,
) {
  const store = yield* EventStore
  const events: Array<RecordedEvent> = []
  const seen = new Set<string>()
  const missing = new Set(awaited)
  let checkpoint = after
  let emptyPages = 0
  while (missing.size > 0) {
    const page = yield* store.readAll({ after: checkpoint, limit })
    check(page.length <= limit, `readAll returned ${page.length} events for a limit of ${limit}`)
    if (page.length === 0) {
      emptyPages++
      check(
        emptyPages < 200,
        `readAll after ${checkpoint} stays empty although ${missing.size} appended events are missing`,
      )
      yield* Effect.sleep(10)
      continue
    }
    for (const event of page) {
      check(
        !seen.has(event.eventId),
        `readAll returned event ${event.eventId} (position ${event.globalPosition}) twice`,
      )
      seen.add(event.eventId)
      missing.delete(event.eventId)
      events.push(event)
      checkpoint = event.globalPosition
    }
  }
  return events
})

const versions = (events: ReadonlyArray<RecordedEvent>) => events.map((event) => event.streamVersion)
const dataOf = (events: ReadonlyArray<RecordedEvent>) => events.map((event) => event.data)

// ---------------------------------------------------------------------------------------------
// the cases

const cases: Array<ContractCase> = []
const contractCase = (name: string, run: ContractCase["run"]): void => {
  cases.push({ name, run })
}

contractCase(
  "appending to a new stream with NoStream records it at version 1 with every field kept",
  Effect.gen(function* () {
    const streamId = newStreamId()
    const event: NewEvent = {
      eventId: crypto.randomUUID(),
      eventType: "Opened",
      schemaVersion: 3,
      data: { text: 'héllo \u00e9 "quoted"', amount: { minorUnits: 1234, currency: "USD" }, list: [1, null, true] },
      metadata: {
        partnerId: crypto.randomUUID(),
        correlationId: "corr-1",
        causationId: "cause-1",
        idempotencyKey: "key-1",
      },
    }
    const result: AppendResult = yield* append(streamId, ExpectedVersion.noStream, [event])
    checkEqual(result.streamVersion, 1, "stream version after the first append")
    check(result.lastPosition > 0, `global positions start at 1, got ${result.lastPosition}`)
    const stored = yield* readStream(streamId)
    check(stored.length === 1, `the stream should hold 1 event, it holds ${stored.length}`)
    const recorded = stored[0]!
    checkEqual(
      {
        eventId: recorded.eventId,
        eventType: recorded.eventType,
        schemaVersion: recorded.schemaVersion,
        data: recorded.data,
        metadata: recorded.metadata,
        streamId: recorded.streamId,
        streamType: recorded.streamType,
        streamVersion: recorded.streamVersion,
        globalPosition: recorded.globalPosition,
      },
      { ...event, streamId, streamType, streamVersion: 1, globalPosition: result.lastPosition },
      "the recorded event",
    )
    check(
      DateTime.isDateTime(recorded.recordedAt) && DateTime.isUtc(recorded.recordedAt),
      "recordedAt must be a DateTime.Utc",
    )
  }),
)

contractCase(
  "NoStream on an existing stream fails with VersionConflict carrying the actual version",
  Effect.gen(function* () {
    const streamId = newStreamId()
    yield* append(streamId, ExpectedVersion.noStream, newEvents(2))
    const error = yield* conflict(streamId, ExpectedVersion.noStream, newEvents(1))
    checkEqual({ streamId: error.streamId, actual: error.actual }, { streamId, actual: 2 }, "the conflict")
    checkEqual(versions(yield* readStream(streamId)), [1, 2], "versions after the refused append")
  }),
)

contractCase(
  "Exact appends when the stream is at exactly that version",
  Effect.gen(function* () {
    const streamId = newStreamId()
    yield* append(streamId, ExpectedVersion.noStream, newEvents(2))
    const result = yield* append(streamId, ExpectedVersion.exact(2), newEvents(1, 3))
    checkEqual(result.streamVersion, 3, "stream version after an Exact append")
    checkEqual(dataOf(yield* readStream(streamId)), [{ n: 1 }, { n: 2 }, { n: 3 }], "the stream")
  }),
)

contractCase(
  "a wrong Exact version fails with VersionConflict carrying the actual version and writes nothing",
  Effect.gen(function* () {
    const streamId = newStreamId()
    yield* append(streamId, ExpectedVersion.noStream, newEvents(2))
    for (const expected of [1, 3, 7]) {
      const error = yield* conflict(streamId, ExpectedVersion.exact(expected), newEvents(2, 10))
      checkEqual(
        { streamId: error.streamId, actual: error.actual },
        { streamId, actual: 2 },
        `conflict expecting ${expected}`,
      )
    }
    checkEqual(dataOf(yield* readStream(streamId)), [{ n: 1 }, { n: 2 }], "the stream after refused appends")
  }),
)

contractCase(
  "Exact on a stream that does not exist fails with actual version 0",
  Effect.gen(function* () {
    const streamId = newStreamId()
    const error = yield* conflict(streamId, { _tag: "Exact", version: 1 }, newEvents(1))
    checkEqual(error.actual, 0, "actual version of a missing stream")
    checkEqual((yield* readStream(streamId)).length, 0, "events in the missing stream")
  }),
)

contractCase(
  "Any appends whatever the version, to a new stream as to an existing one",
  Effect.gen(function* () {
    const streamId = newStreamId()
    checkEqual(
      (yield* append(streamId, ExpectedVersion.any, newEvents(1))).streamVersion,
      1,
      "version after Any on a new stream",
    )
    checkEqual((yield* append(streamId, ExpectedVersion.any, newEvents(2, 2))).streamVersion, 3, "version after Any")
    checkEqual(versions(yield* readStream(streamId)), [1, 2, 3], "versions")
  }),
)

contractCase(
  "a multi-event append is atomic: numbered 1..n with increasing positions, or not written at all",
  Effect.gen(function* () {
    const streamId = newStreamId()
    const result = yield* append(streamId, ExpectedVersion.noStream, newEvents(5))
    checkEqual(result.streamVersion, 5, "stream version after appending 5 events")
    const stored = yield* readStream(streamId)
    checkEqual(versions(stored), [1, 2, 3, 4, 5], "versions")
    checkEqual(dataOf(stored), [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }, { n: 5 }], "data in append order")
    for (let i = 1; i < stored.length; i++) {
      check(stored[i]!.globalPosition > stored[i - 1]!.globalPosition, "positions increase within an append")
    }
    checkEqual(stored[4]!.globalPosition, result.lastPosition, "lastPosition is the position of the last event")
    // a refused multi-event append leaves no trace
    yield* conflict(streamId, ExpectedVersion.exact(4), newEvents(3, 6))
    checkEqual(versions(yield* readStream(streamId)), [1, 2, 3, 4, 5], "versions after a refused multi-event append")
  }),
)

contractCase(
  "readStream returns a stream in version order, and only the events after afterVersion",
  Effect.gen(function* () {
    const streamId = newStreamId()
    yield* append(streamId, ExpectedVersion.noStream, newEvents(2))
    yield* append(streamId, ExpectedVersion.exact(2), newEvents(3, 3))
    checkEqual(versions(yield* readStream(streamId)), [1, 2, 3, 4, 5], "the whole stream")
    checkEqual(versions(yield* readStream(streamId, 0)), [1, 2, 3, 4, 5], "after version 0")
    checkEqual(versions(yield* readStream(streamId, 2)), [3, 4, 5], "after version 2")
    checkEqual(dataOf(yield* readStream(streamId, 4)), [{ n: 5 }], "after version 4")
    checkEqual((yield* readStream(streamId, 5)).length, 0, "events after the last version")
    checkEqual((yield* readStream(newStreamId())).length, 0, "events of a stream never written")
    for (const event of yield* readStream(streamId)) {
      checkEqual(event.streamId, streamId, "streamId of an event read from the stream")
    }
  }),
)

contractCase(
  "readAll returns every stream's events in global order from a checkpoint, at most limit at a time",
  Effect.gen(function* () {
    const [a, b] = [newStreamId(), newStreamId()]
    const checkpoint = yield* marker
    const ev = (stream: string, n: number) => newEvent({ stream, n })
    const batches: ReadonlyArray<readonly [string, ExpectedVersion, ReadonlyArray<NewEvent>]> = [
      [a, ExpectedVersion.noStream, [ev("a", 1)]],
      [b, ExpectedVersion.noStream, [ev("b", 1)]],
      [a, ExpectedVersion.exact(1), [ev("a", 2), ev("a", 3)]],
      [b, ExpectedVersion.exact(1), [ev("b", 2)]],
      [a, ExpectedVersion.exact(3), [ev("a", 4)]],
    ]
    const results: Array<AppendResult> = []
    for (const [streamId, expected, events] of batches) results.push(yield* append(streamId, expected, events))
    const awaited = batches.flatMap(([, , events]) => events.map((event) => event.eventId))
    const all = yield* readAllUntil(checkpoint, awaited, 2)
    const ours = all.filter((event) => event.streamId === a || event.streamId === b)
    checkEqual(
      dataOf(ours),
      [
        { stream: "a", n: 1 },
        { stream: "b", n: 1 },
        { stream: "a", n: 2 },
        { stream: "a", n: 3 },
        { stream: "b", n: 2 },
        { stream: "a", n: 4 },
      ],
      "our events in the global log (appends one after the other keep their order)",
    )
    checkEqual(ours[0]!.globalPosition, results[0]!.lastPosition, "the first event after the checkpoint")
    // limit is honoured exactly when enough events follow the checkpoint
    const store = yield* EventStore
    const page = yield* store.readAll({ after: checkpoint, limit: 3 })
    checkEqual(page.length, 3, "a page of 3 when at least 3 events follow the checkpoint")
    checkEqual(page[0]!.eventId, all[0]!.eventId, "the first event of the page")
    const later = yield* store.readAll({ after: ours[2]!.globalPosition, limit: 1 })
    check(
      later.length === 1 && !ours.slice(0, 3).some((event) => event.eventId === later[0]!.eventId),
      "readAll after an event starts strictly after it",
    )
  }),
)

contractCase(
  "re-appending the same event ids returns the stored result and writes nothing twice",
  Effect.gen(function* () {
    const streamId = newStreamId()
    const events = newEvents(2)
    const checkpoint = yield* marker
    const first = yield* append(streamId, ExpectedVersion.noStream, events)
    const again = yield* append(streamId, ExpectedVersion.noStream, events)
    checkEqual(again, first, "the result of a repeated append")
    const anyAgain = yield* append(streamId, ExpectedVersion.any, events)
    checkEqual(anyAgain, first, "the result of a repeated append with Any")
    yield* append(streamId, ExpectedVersion.exact(2), newEvents(1, 3))
    const late = yield* append(streamId, ExpectedVersion.noStream, events)
    checkEqual(late, first, "the result of a repeated append after the stream moved on")
    checkEqual(dataOf(yield* readStream(streamId)), [{ n: 1 }, { n: 2 }, { n: 3 }], "the stream")
    const stored = yield* readStream(streamId)
    const all = yield* readAllUntil(
      checkpoint,
      stored.map((event) => event.eventId),
      100,
    )
    const copies = all.filter((event) => event.eventId === events[0]!.eventId)
    checkEqual(copies.length, 1, "copies of the first event in the global log")
  }),
)

contractCase(
  "50 writers expecting the same version: exactly one wins, the others get VersionConflict",
  Effect.gen(function* () {
    const streamId = newStreamId()
    yield* append(streamId, ExpectedVersion.noStream, newEvents(1))
    const outcomes = yield* Effect.all(
      Array.from({ length: 50 }, (_, i) =>
        Effect.result(append(streamId, ExpectedVersion.exact(1), [newEvent({ writer: i }), newEvent({ writer: i })])),
      ),
      { concurrency: "unbounded" },
    )
    const winners = outcomes.filter((outcome) => outcome._tag === "Success")
    const losers = outcomes.flatMap((outcome) => (outcome._tag === "Failure" ? [outcome.failure] : []))
    checkEqual(winners.length, 1, "writers that succeeded")
    checkEqual(losers.length, 49, "writers that failed")
    for (const error of losers) {
      // the stream had moved past the expected version 1 when they lost
      check(
        error._tag === "VersionConflict" && error.actual > 1,
        `a losing writer should get a VersionConflict with the actual version (> 1), got ${error._tag}: ${error.message}`,
      )
    }
    const stored = yield* readStream(streamId)
    checkEqual(versions(stored), [1, 2, 3], "versions after the race")
    checkEqual(stored[1]!.data, stored[2]!.data, "both events of the winner, and only them")
  }),
)

contractCase(
  "50 writers creating the same stream with NoStream: exactly one wins",
  Effect.gen(function* () {
    const streamId = newStreamId()
    const outcomes = yield* Effect.all(
      Array.from({ length: 50 }, (_, i) =>
        Effect.result(append(streamId, ExpectedVersion.noStream, [newEvent({ writer: i })])),
      ),
      { concurrency: "unbounded" },
    )
    checkEqual(outcomes.filter((outcome) => outcome._tag === "Success").length, 1, "writers that succeeded")
    for (const outcome of outcomes) {
      if (outcome._tag === "Failure") checkEqual(outcome.failure._tag, "VersionConflict", "a losing writer's error")
    }
    checkEqual(versions(yield* readStream(streamId)), [1], "versions after the race")
  }),
)

contractCase(
  "writers on many streams in parallel get unique positions; readAll returns each event once, every stream in order",
  Effect.gen(function* () {
    const streams = Array.from({ length: 20 }, () => newStreamId())
    const checkpoint = yield* marker
    const appended: Array<string> = []
    const writeSevenEvents = Traced.fn("EventStoreContract.writeSevenEvents")(function* (streamId: string) {
      const out: Array<AppendResult> = []
      let version = 0
      // batches of 1, 2, 1, 2, 1 events: 7 per stream
      for (let batch = 0; batch < 5; batch++) {
        const size = 1 + (batch % 2)
        const events = newEvents(size, version + 1)
        out.push(yield* append(streamId, ExpectedVersion.exact(version), events))
        appended.push(...events.map((event) => event.eventId))
        version += size
      }
      return out
    })
    yield* Effect.all(streams.map(writeSevenEvents), { concurrency: "unbounded" })
    const all = yield* readAllUntil(checkpoint, appended, 25)
    const ours = new Set(streams)
    const positions = all.map((event) => event.globalPosition)
    checkEqual(new Set(positions).size, positions.length, "distinct positions")
    const mine = all.filter((event) => ours.has(event.streamId))
    checkEqual(mine.length, 20 * 7, "events of the parallel writers in the global log")
    for (const streamId of streams) {
      checkEqual(
        versions(mine.filter((event) => event.streamId === streamId)),
        [1, 2, 3, 4, 5, 6, 7],
        "versions of one stream in global order",
      )
    }
  }),
)

/** The contract's cases as plain Effects needing an EventStore, for any test runner. */
export const eventStoreContractCases: ReadonlyArray<ContractCase> = cases

/** Registers the contract's tests for the store built by `layer` (built once per suite, shared by its tests). */
export const eventStoreContract = contractOf("EventStore", cases)
