/**
 * The decider pattern: an aggregate is a pure `decide(command, state)` that
 * returns the events to record (or a typed refusal), a pure `evolve(state,
 * event)` that folds one event into the state, and an `initialState`.
 *
 * An `Aggregate` adds what persistence needs: the stream type name and the
 * Schema of its events, so events can be stored as JSON and read back.
 *
 * A decider with several commands dispatches them with `byCommand` (a record of
 * one function per command tag) and folds its events with `byEvent` (one function
 * per event tag): the compiler checks the record names every tag and nothing else,
 * so there is no switch to keep in step with the unions.
 */
import type { Schema } from "effect"
import { Result } from "effect"
import type { DomainError } from "./DomainError.ts"

/**
 * What `decide` returns: the events to record (none when the command changes
 * nothing) or a typed refusal. Every decider and each of its per-command
 * functions returns a `Decision`.
 */
export type Decision<Event, Error = DomainError> = Result.Result<ReadonlyArray<Event>, Error>

export interface Decider<Command, Event, State, Error> {
  readonly initialState: State
  readonly decide: (command: Command, state: State) => Decision<Event, Error>
  readonly evolve: (state: State, event: Event) => State
}

export interface Aggregate<Command, Event extends { readonly _tag: string }, State, Error>
  extends Decider<Command, Event, State, Error> {
  /** Stream type, also the prefix of stream ids (`Consent-<uuid>`). */
  readonly name: string
  /** Codec of every event of the aggregate; its encoded form is JSON. */
  readonly events: Schema.Codec<Event, unknown>
  /** Schema version of an event type; bump it with an upcaster when an event's shape changes. */
  readonly eventVersion: (eventType: Event["_tag"]) => number
  /** For aggregates whose streams grow long: store the state every so often (see CommandHandler.load). */
  readonly snapshot?: SnapshotPolicy<State>
}

/**
 * How an aggregate's state is snapshotted: its JSON codec, the codec's version
 * (bump it whenever the State shape or `evolve` changes: older snapshots are
 * then ignored and replaced), and how many events may follow a snapshot before
 * a new one is stored.
 */
export interface SnapshotPolicy<State> {
  readonly schemaVersion: number
  readonly state: Schema.Codec<State, unknown>
  readonly every: number
}

/** Folds events into a state, starting from the decider's initial state. */
export const fold = <Command, Event, State, Error>(
  decider: Decider<Command, Event, State, Error>,
  events: Iterable<Event>,
  from: State = decider.initialState,
): State => {
  let state = from
  for (const event of events) state = decider.evolve(state, event)
  return state
}

/** The stream id of one aggregate instance. */
export const streamId = (aggregate: { readonly name: string }, id: string): string => `${aggregate.name}-${id}`

/** Decide and evolve in one step: the events and the state they lead to. */
export const run = <Command, Event, State, Error>(
  decider: Decider<Command, Event, State, Error>,
  command: Command,
  state: State,
): Result.Result<{ readonly events: ReadonlyArray<Event>; readonly state: State }, Error> =>
  Result.map(decider.decide(command, state), (events) => ({ events, state: fold(decider, events, state) }))

/** Shorthands for deciders: accept with events, refuse with an error, or do nothing. */
export const accept = <Event>(...events: ReadonlyArray<Event>): Result.Result<ReadonlyArray<Event>, never> =>
  Result.succeed(events)
export const refuse = <Error>(error: Error): Result.Result<never, Error> => Result.fail(error)
export const nothing: Result.Result<ReadonlyArray<never>, never> = Result.succeed([])

/**
 * A command that carries what its event will record: the event's fields but `Omitted` (by default
 * none; e.g. the ids the aggregate's state supplies), under the command's own tag.
 */
export type CommandFor<
  Tag extends string,
  Event extends { readonly _tag: string },
  Omitted extends keyof Event = never,
> = { readonly _tag: Tag } & Omit<Event, "_tag" | Omitted>

/** The tags of a tagged union. */
type TagOf<T extends { readonly _tag: string }> = T["_tag"]

/** The member of a tagged union with tag `Tag`. */
type WithTag<T extends { readonly _tag: string }, Tag extends string> = Extract<T, { readonly _tag: Tag }>

/** One function per command: the decision for that command in a state. */
export type CommandHandlers<Command extends { readonly _tag: string }, State, Event, Error = DomainError> = {
  readonly [Tag in TagOf<Command>]: (command: WithTag<Command, Tag>, state: State) => Decision<Event, Error>
}

/** One function per event: the state after that event. */
export type EventHandlers<Event extends { readonly _tag: string }, State, Next = State> = {
  readonly [Tag in TagOf<Event>]: (state: State, event: WithTag<Event, Tag>) => Next
}

/**
 * `decide` as a record of one named function per command (`{ RegisterCompany: register, ... }`):
 * a command goes to the function of its tag. The record must name every command of the union.
 */
export const byCommand =
  <Command extends { readonly _tag: string }, State, Event, Error = DomainError>(
    handlers: CommandHandlers<Command, State, Event, Error>,
  ): ((command: Command, state: State) => Decision<Event, Error>) =>
  (command, state) =>
    (handlers[command._tag as TagOf<Command>] as (command: Command, state: State) => Decision<Event, Error>)(
      command,
      state,
    )

/**
 * `evolve` as a record of one function per event (`{ CompanyRegistered: (state, event) => ..., ... }`):
 * an event goes to the function of its tag. The record must name every event of the union.
 */
export const byEvent =
  <Event extends { readonly _tag: string }, State, Next = State>(
    handlers: EventHandlers<Event, State, Next>,
  ): ((state: State, event: Event) => Next) =>
  (state, event) =>
    (handlers[event._tag as TagOf<Event>] as (state: State, event: Event) => Next)(state, event)
