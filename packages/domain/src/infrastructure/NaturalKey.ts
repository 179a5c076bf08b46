/**
 * NaturalKey: the claim of one resource on a natural key that must be unique,
 * such as one debit authorization per (partner, payer, company) or one card
 * payment per (partner, merchant, external reference).
 *
 * Each key is its own tiny stream, `NaturalKey-<scope>:<part>:<part>...`
 * (`idOf`). The first claim appends its event with the expectation "no stream
 * yet", so of two concurrent creations exactly one wins, on any event store,
 * without a read-then-write on a read model; the loser's unit of work runs
 * again, finds the key claimed and uses the winner's resource. Claiming a
 * claimed key changes nothing: the state names the owner either way.
 * (Company references predate this and keep their own `CompanyReference`.)
 */
import { type DateTime, Schema } from "effect"
import { type Aggregate, accept, type CommandFor, type Decision, nothing } from "../kernel/Decider.ts"
import type { DomainError } from "../kernel/DomainError.ts"

/** The key was claimed by the resource `ownerId` (its aggregate id). */
export const NaturalKeyClaimed = Schema.TaggedStruct("NaturalKeyClaimed", {
  scope: Schema.String,
  ownerId: Schema.String,
  at: Schema.DateTimeUtcFromString,
})
export type NaturalKeyClaimed = typeof NaturalKeyClaimed.Type

export const NaturalKeyEvent = Schema.Union([NaturalKeyClaimed])
export type NaturalKeyEvent = typeof NaturalKeyEvent.Type

/** The events of this aggregate. */
export type Event = NaturalKeyEvent

/** Claim the key for `ownerId`, unless it is claimed already. */
export type ClaimNaturalKey = CommandFor<"ClaimNaturalKey", NaturalKeyClaimed>

export type Command = ClaimNaturalKey

export type State =
  | { readonly _tag: "Free" }
  | { readonly _tag: "Claimed"; readonly ownerId: string; readonly claimedAt: DateTime.Utc }

export const initialState: State = { _tag: "Free" }

/**
 * The aggregate id of a key: the scope (e.g. "DebitAuth") and the key's parts,
 * each percent-encoded so that no part can run into the next.
 */
export const idOf = (scope: string, parts: ReadonlyArray<string>): string =>
  [scope, ...parts].map(encodeURIComponent).join(":")

/** The owner of the key after a claim (the claimant's id when the key was free). */
export const ownerOf = (state: State, claimant: string): string => (state._tag === "Claimed" ? state.ownerId : claimant)

export const decide = (command: Command, state: State): Decision<Event> =>
  state._tag === "Claimed"
    ? nothing
    : accept<NaturalKeyEvent>(
        NaturalKeyClaimed.make({ scope: command.scope, ownerId: command.ownerId, at: command.at }),
      )

export const evolve = (state: State, event: Event): State =>
  state._tag === "Free" ? { _tag: "Claimed", ownerId: event.ownerId, claimedAt: event.at } : state

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "NaturalKey",
  initialState,
  decide,
  evolve,
  events: NaturalKeyEvent,
  eventVersion: () => 1,
}
