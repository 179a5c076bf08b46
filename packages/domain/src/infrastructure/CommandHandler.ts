/**
 * Runs a command against one aggregate instance: load its stream, decode and
 * fold the events, decide, encode the new events and append them with the
 * loaded version as the expected version. A concurrent writer makes the
 * append fail with `VersionConflict`; `retryOnConflict` (opt-in, bounded)
 * reloads and decides again.
 */
import { Effect, Schema } from "effect"
import { type Aggregate, fold, streamId as makeStreamId } from "../kernel/Decider.ts"
import {
  EventDecodeFailed,
  type EventDecodeFailed as EventDecodeFailedType,
  type EventMetadata,
  EventStore,
  type EventStoreUnavailable,
  ExpectedVersion,
  type NewEvent,
  type RecordedEvent,
  VersionConflict,
} from "./EventStore.ts"
import { IdGenerator } from "./IdGenerator.ts"

export interface HandleOptions {
  readonly metadata?: EventMetadata
  /** How many times to reload and decide again after a version conflict (default 0: no retry). */
  readonly retryOnConflict?: number
}

export interface Handled<Event, State> {
  /** The events this command recorded (empty when it changed nothing). */
  readonly events: ReadonlyArray<Event>
  /** The state after the command. */
  readonly state: State
  /** The stream's version after the command. */
  readonly version: number
}

/** Decodes stored events with the aggregate's Schema; a bad event is reported with its stream, version and type. */
export const decodeEvents = <Event extends { readonly _tag: string }>(
  aggregate: Pick<Aggregate<never, Event, never, never>, "events">,
  recorded: ReadonlyArray<RecordedEvent>,
): Effect.Effect<ReadonlyArray<Event>, EventDecodeFailedType> => {
  const decode = Schema.decodeUnknownExit(aggregate.events)
  return Effect.suspend(() => {
    const events: Array<Event> = []
    for (const event of recorded) {
      const exit = decode(event.data)
      if (exit._tag === "Failure") {
        return Effect.fail(
          new EventDecodeFailed({
            streamId: event.streamId,
            streamVersion: event.streamVersion,
            eventType: event.eventType,
            reason: String(exit.cause),
          }),
        )
      }
      events.push(exit.value)
    }
    return Effect.succeed(events)
  })
}

/** Loads one aggregate instance: its current state and version. */
export const load = <Command, Event extends { readonly _tag: string }, State, Error>(
  aggregate: Aggregate<Command, Event, State, Error>,
  id: string,
): Effect.Effect<
  { readonly state: State; readonly version: number },
  EventDecodeFailedType | EventStoreUnavailable,
  EventStore
> =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const recorded = yield* store.readStream(makeStreamId(aggregate, id))
    const events = yield* decodeEvents(aggregate, recorded)
    return { state: fold(aggregate, events), version: recorded.length }
  })

const handleOnce = <Command, Event extends { readonly _tag: string }, State, Error>(
  aggregate: Aggregate<Command, Event, State, Error>,
  id: string,
  command: Command,
  metadata: EventMetadata,
): Effect.Effect<
  Handled<Event, State>,
  Error | VersionConflict | EventDecodeFailedType | EventStoreUnavailable,
  EventStore | IdGenerator
> =>
  Effect.gen(function* () {
    const { state, version } = yield* load(aggregate, id)
    const decision = aggregate.decide(command, state)
    if (decision._tag === "Failure") return yield* Effect.fail(decision.failure)
    const events = decision.success
    if (events.length === 0) return { events, state, version }
    const ids = yield* IdGenerator
    const encode = Schema.encodeSync(aggregate.events)
    const toStore: Array<NewEvent> = []
    for (const event of events) {
      toStore.push({
        eventId: yield* ids.next,
        eventType: event._tag,
        schemaVersion: aggregate.eventVersion(event._tag),
        data: encode(event),
        metadata,
      })
    }
    const store = yield* EventStore
    const result = yield* store.append(
      makeStreamId(aggregate, id),
      aggregate.name,
      ExpectedVersion.exact(version),
      toStore,
    )
    return { events, state: fold(aggregate, events, state), version: result.streamVersion }
  })

/** Handles one command for the aggregate instance `id`. */
export const handle = <Command, Event extends { readonly _tag: string }, State, Error>(
  aggregate: Aggregate<Command, Event, State, Error>,
  id: string,
  command: Command,
  options: HandleOptions = {},
): Effect.Effect<
  Handled<Event, State>,
  Error | VersionConflict | EventDecodeFailedType | EventStoreUnavailable,
  EventStore | IdGenerator
> => {
  const once = handleOnce(aggregate, id, command, options.metadata ?? {})
  const retries = options.retryOnConflict ?? 0
  const run =
    retries > 0 ? once.pipe(Effect.retry({ times: retries, while: (error) => error instanceof VersionConflict })) : once
  return run.pipe(Effect.withSpan("CommandHandler.handle", { attributes: { aggregate: aggregate.name } }))
}
