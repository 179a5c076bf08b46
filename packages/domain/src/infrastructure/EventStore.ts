/**
 * The EventStore port: append-only streams of events with optimistic
 * concurrency, and a global order for projections and the outbox.
 *
 * Versions: a stream's version is the number of events in it (0 = no stream);
 * its first event has version 1. Every event has a unique global position,
 * increasing within one append. The global log (`readAll`) is in commit
 * order: a stream's events in version order, the events of one append
 * together, and an append that committed after another one returned after
 * it; positions need not increase across appends that commit concurrently
 * (the PostgreSQL store orders by transaction, then position). Event data is
 * the JSON encoding made by the aggregate's event Schema; the store never
 * interprets it.
 *
 * `layerMemory` is a complete implementation for tests and embedders; the
 * PostgreSQL one lives in `@partnerpay/adapters-pg` and passes the same
 * contract tests.
 */
import { Clock, Context, DateTime, Effect, Layer, Schema, Semaphore } from "effect"

/** What the appender believes the stream's version is. */
export type ExpectedVersion =
  | { readonly _tag: "NoStream" }
  | { readonly _tag: "Exact"; readonly version: number }
  | { readonly _tag: "Any" }

export const ExpectedVersion = {
  noStream: { _tag: "NoStream" } as ExpectedVersion,
  any: { _tag: "Any" } as ExpectedVersion,
  exact: (version: number): ExpectedVersion => (version === 0 ? { _tag: "NoStream" } : { _tag: "Exact", version }),
  describe: (expected: ExpectedVersion): string =>
    expected._tag === "Exact" ? `version ${expected.version}` : expected._tag === "NoStream" ? "no stream" : "any",
  /** True when a stream at `actual` satisfies `expected`. */
  matches: (expected: ExpectedVersion, actual: number): boolean =>
    expected._tag === "Any" || (expected._tag === "NoStream" ? actual === 0 : actual === expected.version),
}

/** Who and what caused an event: tenancy, tracing and idempotency. All optional. */
export interface EventMetadata {
  readonly partnerId?: string | undefined
  readonly correlationId?: string | undefined
  readonly causationId?: string | undefined
  readonly idempotencyKey?: string | undefined
}

/** An event about to be appended. */
export interface NewEvent {
  readonly eventId: string
  readonly eventType: string
  readonly schemaVersion: number
  readonly data: unknown
  readonly metadata: EventMetadata
  /**
   * The typed domain event that `data` encodes, when the appender has it (the
   * command handler does). Never stored: it only spares the append's hook
   * (projections, notifications) from decoding `data` again in this process.
   */
  readonly event?: unknown
}

/** The state of a stream at `streamVersion`, encoded by its aggregate's snapshot Schema (`schemaVersion`). */
export interface Snapshot {
  readonly streamVersion: number
  readonly schemaVersion: number
  readonly state: unknown
}

/** What an append may carry besides its events. */
export interface AppendOptions {
  /** The stream's state after this append, stored with it (replacing an older snapshot). */
  readonly snapshot?: Snapshot
}

/** An event as stored. */
export interface RecordedEvent extends NewEvent {
  readonly streamId: string
  readonly streamType: string
  readonly streamVersion: number
  readonly globalPosition: number
  readonly recordedAt: DateTime.Utc
}

export interface AppendResult {
  /** The stream's version after the append. */
  readonly streamVersion: number
  /** Global position of the last appended event. */
  readonly lastPosition: number
}

/** Another writer got there first: the stream is at `actual`, not at what was expected. */
export class VersionConflict extends Schema.TaggedError<VersionConflict>()("VersionConflict", {
  streamId: Schema.String,
  expected: Schema.String,
  actual: Schema.Number,
}) {
  override get message(): string {
    return `stream ${this.streamId} is at version ${this.actual}, expected ${this.expected}`
  }
}

/** The store could not be reached or failed; nothing is known to be written. */
export class EventStoreUnavailable extends Schema.TaggedError<EventStoreUnavailable>()("EventStoreUnavailable", {
  reason: Schema.String,
  cause: Schema.optional(Schema.Defect()),
}) {
  override get message(): string {
    return this.reason
  }
}

/** A stored event could not be decoded by its aggregate's Schema: reported, never dropped. */
export class EventDecodeFailed extends Schema.TaggedError<EventDecodeFailed>()("EventDecodeFailed", {
  streamId: Schema.String,
  streamVersion: Schema.Number,
  eventType: Schema.String,
  reason: Schema.String,
}) {
  override get message(): string {
    return `cannot decode ${this.eventType} at ${this.streamId}@${this.streamVersion}: ${this.reason}`
  }
}

export class EventStore extends Context.Service<
  EventStore,
  {
    /** The events of one stream in version order, optionally only those after `afterVersion`. */
    readStream(
      streamId: string,
      options?: { readonly afterVersion?: number },
    ): Effect.Effect<ReadonlyArray<RecordedEvent>, EventStoreUnavailable>
    /**
     * Appends events atomically if the stream's version matches `expected`.
     * Idempotent: when the first event's id is already stored in this stream,
     * nothing is written and the stored outcome is returned.
     */
    append(
      streamId: string,
      streamType: string,
      expected: ExpectedVersion,
      events: ReadonlyArray<NewEvent>,
      options?: AppendOptions,
    ): Effect.Effect<AppendResult, VersionConflict | EventStoreUnavailable>
    /**
     * The latest snapshot of the stream stored with `schemaVersion` (if any),
     * and the stream's events after it, read together. Optional: a store without
     * snapshots omits it and loaders read the whole stream.
     */
    readonly readFromSnapshot?: (
      streamId: string,
      schemaVersion: number,
    ) => Effect.Effect<
      { readonly snapshot: Snapshot | undefined; readonly events: ReadonlyArray<RecordedEvent> },
      EventStoreUnavailable
    >
    /**
     * Events of all streams in global (commit) order, strictly after the event
     * at position `after` (0: from the start; otherwise the position of an
     * event returned by `readAll` or `append`), at most `limit`. Never skips an
     * event that commits later: implementations only return events below a
     * horizon at which every earlier append is done.
     */
    readAll(options: {
      readonly after: number
      readonly limit: number
    }): Effect.Effect<ReadonlyArray<RecordedEvent>, EventStoreUnavailable>
  }
>()("partnerpay/domain/EventStore") {
  /** An in-memory store: one process, lost on exit. For tests and embedders. */
  static readonly layerMemory: Layer.Layer<EventStore> = Layer.sync(EventStore, () => makeMemory())
}

/**
 * Work done atomically with an append, after the events are numbered and
 * before they become visible (read models, outbox). A failure cancels the
 * append. Never called for idempotent replays, since nothing is written.
 */
export type AppendHook = (events: ReadonlyArray<RecordedEvent>) => Effect.Effect<void, EventStoreUnavailable>

/**
 * Builds an in-memory event store. Appends are serialized by a lock, so the
 * version check, the hook and the write are atomic with respect to fibers.
 */
export const makeMemory = (options: { readonly onAppend?: AppendHook } = {}): EventStore["Service"] => {
  const all: Array<RecordedEvent> = []
  const streams = new Map<string, Array<RecordedEvent>>()
  const byEventId = new Map<string, RecordedEvent>()
  const snapshots = new Map<string, Snapshot>()
  const lock = Semaphore.makeUnsafe(1)

  const append = Effect.fnUntraced(function* (
    streamId: string,
    streamType: string,
    expected: ExpectedVersion,
    events: ReadonlyArray<NewEvent>,
    appendOptions: AppendOptions | undefined,
  ): Effect.fn.Return<AppendResult, VersionConflict | EventStoreUnavailable> {
    const now = yield* Clock.currentTimeMillis
    const stream = streams.get(streamId) ?? []
    const first = events[0]
    if (first === undefined) return { streamVersion: stream.length, lastPosition: all.length }
    const replayed = byEventId.get(first.eventId)
    if (replayed !== undefined && replayed.streamId === streamId) {
      const last = stream[replayed.streamVersion - 1 + events.length - 1] ?? replayed
      return { streamVersion: last.streamVersion, lastPosition: last.globalPosition }
    }
    if (!ExpectedVersion.matches(expected, stream.length)) {
      return yield* new VersionConflict({
        streamId,
        expected: ExpectedVersion.describe(expected),
        actual: stream.length,
      })
    }
    const recordedAt = DateTime.makeUnsafe(now)
    const recorded: Array<RecordedEvent> = events.map((event, index) => ({
      ...event,
      streamId,
      streamType,
      streamVersion: stream.length + index + 1,
      globalPosition: all.length + index + 1,
      recordedAt,
    }))
    if (options.onAppend !== undefined) yield* options.onAppend(recorded)
    // Stored as a database would store them: the typed `event` stays with the hook.
    for (const { event: _typed, ...event } of recorded) {
      stream.push(event)
      all.push(event)
      byEventId.set(event.eventId, event)
    }
    streams.set(streamId, stream)
    const snapshot = appendOptions?.snapshot
    if (snapshot !== undefined && snapshot.streamVersion === stream.length) snapshots.set(streamId, snapshot)
    return { streamVersion: stream.length, lastPosition: all.length }
  })

  return EventStore.of({
    readStream: (streamId, options) =>
      Effect.sync(() => {
        const events = streams.get(streamId) ?? []
        const after = options?.afterVersion ?? 0
        return after === 0 ? events.slice() : events.slice(after)
      }),
    append: (streamId, streamType, expected, events, appendOptions) =>
      lock.withPermits(1)(append(streamId, streamType, expected, events, appendOptions)),
    readFromSnapshot: (streamId, schemaVersion) =>
      Effect.sync(() => {
        const events = streams.get(streamId) ?? []
        const stored = snapshots.get(streamId)
        const snapshot = stored?.schemaVersion === schemaVersion ? stored : undefined
        return { snapshot, events: events.slice(snapshot?.streamVersion ?? 0) }
      }),
    readAll: ({ after, limit }) => Effect.sync(() => all.slice(after, after + limit)),
  })
}
