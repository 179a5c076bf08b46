/**
 * CompanyReference: the claim of one partner on one `companyReferenceId`
 * (spec 2.2: the partner's own external identifier of a company, which must
 * be unique per partner).
 *
 * Each (partner, reference) pair is its own tiny stream,
 * `CompanyReference-<partnerId>:<companyReferenceId>`. Reserving appends its
 * first event with the expectation "no stream yet", so of two concurrent
 * registrations with the same reference exactly one wins, on any event store
 * (in memory and PostgreSQL alike), without reading a read model. Two partners
 * may use the same reference: their streams differ.
 *
 * States: Free, Reserved (for one company). Reserving a Free reference
 * records CompanyReferenceReserved; reserving it again for the same company
 * does nothing (an idempotent repeat); for another company it is refused as
 * AlreadyExists (entity "CompanyReference").
 */
import type { DateTime } from "effect"
import { type Aggregate, accept, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import { AlreadyExists, type DomainError } from "../kernel/DomainError.ts"
import type { CompanyId, CompanyReferenceId, PartnerId } from "../kernel/Ids.ts"
import { CompanyReferenceEvent } from "./CompanyReferenceEvents.ts"

export * from "./CompanyReferenceEvents.ts"

// ---------------------------------------------------------------------------
// Commands and state

/** Claim `companyReferenceId` of `partnerId` for `companyId`. */
export interface ReserveCompanyReference {
  readonly _tag: "ReserveCompanyReference"
  readonly partnerId: PartnerId
  readonly companyReferenceId: CompanyReferenceId
  readonly companyId: CompanyId
  readonly at: DateTime.Utc
}

/** The events of this aggregate. */
export type Event = CompanyReferenceEvent

export type Command = ReserveCompanyReference

export type State =
  | { readonly _tag: "Free" }
  | { readonly _tag: "Reserved"; readonly companyId: CompanyId; readonly reservedAt: DateTime.Utc }

export const initialState: State = { _tag: "Free" }

/** The aggregate id of a (partner, reference) pair; the stream is `CompanyReference-<id>`. */
export const idOf = (partnerId: PartnerId, companyReferenceId: CompanyReferenceId): string =>
  `${partnerId}:${companyReferenceId}`

export const decide = (command: Command, state: State): Decision<Event> => {
  if (state._tag === "Reserved") {
    return state.companyId === command.companyId ? nothing : refuse(new AlreadyExists({ entity: "CompanyReference" }))
  }
  // A plain value: the command's fields are checked already (a Schema `make` would check them again).
  return accept<CompanyReferenceEvent>({
    _tag: "CompanyReferenceReserved",
    partnerId: command.partnerId,
    companyReferenceId: command.companyReferenceId,
    companyId: command.companyId,
    at: command.at,
  })
}

export const evolve = (state: State, event: Event): State =>
  state._tag === "Free" ? { _tag: "Reserved", companyId: event.companyId, reservedAt: event.at } : state

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "CompanyReference",
  initialState,
  decide,
  evolve,
  events: CompanyReferenceEvent,
  eventVersion: () => 1,
}
