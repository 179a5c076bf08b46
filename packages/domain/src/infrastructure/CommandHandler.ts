/**
 * Runs a command against one aggregate instance: load its stream (from its
 * latest snapshot when the aggregate has a snapshot policy), decode and fold
 * the events, decide, encode the new events and append them with the loaded
 * version as the expected version. A concurrent writer makes the append fail
 * with `VersionConflict`; `retryOnConflict` (opt-in, bounded) reloads and
 * decides again.
 *
 * A stream the caller knows to be new (`expectNew`: a freshly generated id,
 * or a reservation that is new in the common case) is not read on the first
 * attempt: the command is decided against the initial state and appended
 * expecting no stream. If the stream exists after all, the append conflicts
 * and the retry (this handler's, or the unit of work's, which marks its
 * retries with `Retrying`) reads it.
 *
 * Codecs are built once per aggregate; the typed events travel with their
 * encoding (`NewEvent.event`) so the append's hook need not decode them.
 *
 * After every decision that recorded events, the policies in context
 * (`Policy.Policies`) react to them: each command a policy issues is handled
 * the same way (its own policies included), in the same unit of work, with
 * the same metadata. A refusal by a policy's target fails the command.
 */
import { Context, DateTime, Effect, Exit, Schema } from "effect"
import { type Aggregate, fold, streamId as makeStreamId } from "../kernel/Decider.ts"
import type { DomainError } from "../kernel/DomainError.ts"
import * as Traced from "../kernel/Traced.ts"
import {
  EventDecodeFailed,
  type EventDecodeFailed as EventDecodeFailedType,
  type EventMetadata,
  EventStore,
  type EventStoreUnavailable,
  ExpectedVersion,
  type NewEvent,
  type RecordedEvent,
  type Snapshot,
  VersionConflict,
} from "./EventStore.ts"
import { IdGenerator } from "./IdGenerator.ts"
import { fanOuts, Policies, reactions } from "./Policy.ts"

export interface HandleOptions {
  readonly metadata?: EventMetadata
  /** How many times to reload and decide again after a version conflict (default 0: no retry). */
  readonly retryOnConflict?: number
  /** The stream is expected not to exist yet: do not read it on the first attempt (see the module doc). */
  readonly expectNew?: boolean
}

/** True while a command or unit of work runs again after a conflict: nothing is assumed new then. */
export const Retrying = Context.Reference<boolean>("partnerpay/domain/CommandHandler/Retrying", {
  defaultValue: () => false,
})

type AnyAggregate = Aggregate<never, { readonly _tag: string }, unknown, unknown>

interface Codecs {
  readonly encode: (event: { readonly _tag: string }) => unknown
  readonly decode: (data: unknown) => Exit.Exit<{ readonly _tag: string }, Schema.SchemaError>
  readonly encodeState: ((state: unknown) => unknown) | undefined
  readonly decodeState: ((data: unknown) => Exit.Exit<unknown, Schema.SchemaError>) | undefined
}

const codecCache = new WeakMap<object, Codecs>()

/** The aggregate's event (and snapshot) codecs, built once. */
const codecsOf = (aggregate: Pick<AnyAggregate, "events" | "snapshot">): Codecs => {
  let codecs = codecCache.get(aggregate)
  if (codecs === undefined) {
    const snapshot = aggregate.snapshot
    codecs = {
      encode: Schema.encodeSync(aggregate.events),
      decode: Schema.decodeUnknownExit(aggregate.events),
      encodeState: snapshot === undefined ? undefined : Schema.encodeSync(snapshot.state),
      decodeState: snapshot === undefined ? undefined : Schema.decodeUnknownExit(snapshot.state),
    }
    codecCache.set(aggregate, codecs)
  }
  return codecs
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
  const decode = codecsOf(aggregate as Pick<AnyAggregate, "events">).decode as (
    data: unknown,
  ) => Exit.Exit<Event, Schema.SchemaError>
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

/** A loaded aggregate instance: its state and version, and the version of the snapshot it started from. */
interface Loaded<State> {
  readonly state: State
  readonly version: number
  readonly snapshotVersion: number
}

/**
 * Loads one aggregate instance: its current state and version. With a
 * snapshot policy and a store that keeps snapshots, it starts from the latest
 * snapshot of the policy's schema version; a snapshot that does not decode is
 * ignored (the whole stream is read instead).
 */
export const load = <Command, Event extends { readonly _tag: string }, State, Error>(
  aggregate: Aggregate<Command, Event, State, Error>,
  id: string,
): Effect.Effect<
  { readonly state: State; readonly version: number },
  EventDecodeFailedType | EventStoreUnavailable,
  EventStore
> => Effect.map(loadFull(aggregate, id), ({ state, version }) => ({ state, version }))

/** Per command, so untraced (no span of its own under the use case's). */
const loadFull = Effect.fnUntraced(function* <Command, Event extends { readonly _tag: string }, State, Error>(
  aggregate: Aggregate<Command, Event, State, Error>,
  id: string,
): Effect.fn.Return<Loaded<State>, EventDecodeFailedType | EventStoreUnavailable, EventStore> {
  const store = yield* EventStore
  const streamId = makeStreamId(aggregate, id)
  const policy = aggregate.snapshot
  if (policy !== undefined && store.readFromSnapshot !== undefined) {
    const { snapshot, events: after } = yield* store.readFromSnapshot(streamId, policy.schemaVersion)
    const decodeState = codecsOf(aggregate as unknown as AnyAggregate).decodeState!
    const decoded = snapshot === undefined ? undefined : decodeState(snapshot.state)
    if (snapshot !== undefined && decoded !== undefined && Exit.isSuccess(decoded)) {
      const events = yield* decodeEvents(aggregate, after)
      return {
        state: fold(aggregate, events, decoded.value as State),
        version: snapshot.streamVersion + after.length,
        snapshotVersion: snapshot.streamVersion,
      }
    }
    if (snapshot === undefined) {
      const events = yield* decodeEvents(aggregate, after)
      return { state: fold(aggregate, events), version: after.length, snapshotVersion: 0 }
    }
  }
  const recorded = yield* store.readStream(streamId)
  const events = yield* decodeEvents(aggregate, recorded)
  return { state: fold(aggregate, events), version: recorded.length, snapshotVersion: 0 }
})

const handleOnce = Effect.fnUntraced(function* <Command, Event extends { readonly _tag: string }, State, Error>(
  aggregate: Aggregate<Command, Event, State, Error>,
  id: string,
  command: Command,
  metadata: EventMetadata,
  expectNew: boolean,
): Effect.fn.Return<
  Handled<Event, State>,
  Error | VersionConflict | EventDecodeFailedType | EventStoreUnavailable,
  EventStore | IdGenerator
> {
  const fresh = expectNew && !(yield* Retrying)
  const { state, version, snapshotVersion } = fresh
    ? { state: aggregate.initialState, version: 0, snapshotVersion: 0 }
    : yield* loadFull(aggregate, id)
  const decision = aggregate.decide(command, state)
  if (decision._tag === "Failure") return yield* Effect.fail(decision.failure)
  return yield* append(aggregate, id, { state, version, snapshotVersion }, decision.success, metadata)
})

/** Appends the events decided on a loaded instance at its version (no read), with a snapshot when due. */
const append = Effect.fnUntraced(function* <Command, Event extends { readonly _tag: string }, State, Error>(
  aggregate: Aggregate<Command, Event, State, Error>,
  id: string,
  loaded: Loaded<State>,
  events: ReadonlyArray<Event>,
  metadata: EventMetadata,
): Effect.fn.Return<Handled<Event, State>, VersionConflict | EventStoreUnavailable, EventStore | IdGenerator> {
  const { state, version, snapshotVersion } = loaded
  if (events.length === 0) return { events, state, version }
  const ids = yield* IdGenerator
  const codecs = codecsOf(aggregate as unknown as AnyAggregate)
  const toStore: Array<NewEvent> = []
  for (const event of events) {
    toStore.push({
      eventId: yield* ids.next,
      eventType: event._tag,
      schemaVersion: aggregate.eventVersion(event._tag),
      data: codecs.encode(event),
      metadata,
      event,
    })
  }
  const next = fold(aggregate, events, state)
  const newVersion = version + events.length
  const policy = aggregate.snapshot
  const snapshot: Snapshot | undefined =
    policy !== undefined && newVersion - snapshotVersion >= policy.every
      ? { streamVersion: newVersion, schemaVersion: policy.schemaVersion, state: codecs.encodeState!(next) }
      : undefined
  const store = yield* EventStore
  const result = yield* store.append(
    makeStreamId(aggregate, id),
    aggregate.name,
    ExpectedVersion.exact(version),
    toStore,
    snapshot === undefined ? undefined : { snapshot },
  )
  return { events, state: next, version: result.streamVersion }
})

/** The failures of handling a command: the aggregate's refusal, a policy target's, or the store's. */
export type HandleError<Error> = Error | DomainError | VersionConflict | EventDecodeFailedType | EventStoreUnavailable

/** Handles one command for the aggregate instance `id`, then the commands its policies issue. */
export const handle = <Command, Event extends { readonly _tag: string }, State, Error>(
  aggregate: Aggregate<Command, Event, State, Error>,
  id: string,
  command: Command,
  options: HandleOptions = {},
): Effect.Effect<Handled<Event, State>, HandleError<Error>, EventStore | IdGenerator | Policies> => {
  const once = handleOnce(aggregate, id, command, options.metadata ?? {}, options.expectNew === true)
  const retries = options.retryOnConflict ?? 0
  const run =
    retries > 0
      ? once.pipe(
          Effect.catchIf(
            (error): error is VersionConflict => error instanceof VersionConflict,
            () =>
              Effect.provideService(once, Retrying, true).pipe(
                Effect.retry({ times: retries - 1, while: (error) => error instanceof VersionConflict }),
              ),
          ),
        )
      : once
  return run.pipe(
    Effect.tap((handled) => (handled.events.length === 0 ? Effect.void : react(aggregate, handled, options))),
    Traced.withSpan("CommandHandler.handle", { attributes: { aggregate: aggregate.name } }),
  )
}

/** A command of the union `Command` without its instant `at` (each member keeps its own fields). */
export type WithoutAt<Command> = Command extends unknown ? Omit<Command, "at"> : never

/**
 * Handles a command made now: `command` stamped with the clock's current instant (`at`), then as
 * `handle` does. For the use cases whose command's instant is when they run.
 */
export const handleNow = <
  Command extends { readonly at: DateTime.Utc },
  Event extends { readonly _tag: string },
  State,
  Error,
>(
  aggregate: Aggregate<Command, Event, State, Error>,
  id: string,
  command: WithoutAt<Command>,
  options: HandleOptions = {},
): Effect.Effect<Handled<Event, State>, HandleError<Error>, EventStore | IdGenerator | Policies> =>
  Effect.flatMap(DateTime.now, (at) => handle(aggregate, id, { ...command, at } as unknown as Command, options))

/**
 * Records the events a use case decided itself on an instance it loaded in this unit of work
 * (`load`, or a new stream: the initial state at version 0), then the commands its policies issue,
 * as `handle` does: the stream is not read again and the aggregate not asked again. For a use case
 * that needs a decision's events before it records them (the Transfer an acceptance starts is built
 * from the acceptance's events): each stream read once, each aggregate decided once. A concurrent
 * writer fails the append with `VersionConflict` (the unit of work runs again on fresh reads).
 */
export const record = <Command, Event extends { readonly _tag: string }, State, Error>(
  aggregate: Aggregate<Command, Event, State, Error>,
  id: string,
  loaded: { readonly state: State; readonly version: number },
  events: ReadonlyArray<Event>,
  options: Pick<HandleOptions, "metadata"> = {},
): Effect.Effect<Handled<Event, State>, HandleError<Error>, EventStore | IdGenerator | Policies> =>
  // A snapshot counts from the loaded version: for a snapshotted aggregate, at most one snapshot comes later than due.
  append(aggregate, id, { ...loaded, snapshotVersion: loaded.version }, events, options.metadata ?? {}).pipe(
    Effect.tap((handled) => (handled.events.length === 0 ? Effect.void : react(aggregate, handled, options))),
    Traced.withSpan("CommandHandler.record", { attributes: { aggregate: aggregate.name } }),
  )

/** Handles, in order, the commands the policies in context issue for what `source` just recorded. */
const react = Effect.fnUntraced(function* (
  source: { readonly name: string },
  handled: { readonly events: ReadonlyArray<{ readonly _tag: string }>; readonly state: unknown },
  options: HandleOptions,
): Effect.fn.Return<
  void,
  DomainError | VersionConflict | EventDecodeFailedType | EventStoreUnavailable,
  EventStore | IdGenerator | Policies
> {
  const policies = yield* Policies
  if (policies.length === 0) return
  const metadata = options.metadata === undefined ? {} : { metadata: options.metadata }
  for (const { policy, issued } of reactions(policies, source, handled)) {
    yield* handle(policy.target, issued.id, issued.command, metadata)
  }
  for (const { policy, event } of fanOuts(policies, source, handled)) {
    for (const directed of yield* policy.react(event, handled.state)) {
      yield* handle(directed.target, directed.id, directed.command, metadata)
    }
  }
})
