/**
 * PartnerFees: the fee terms an operator set for one partner (one stream per
 * partner, `PartnerFees-<partnerId>`), per rail (`FeeSchedule.ts`): the
 * platform fee (a percentage and a fixed amount), the provider's cost and
 * return fee, and whether a return fee is passed on to the company.
 *
 * - `SetFeeSchedule` with valid terms records `FeeScheduleSet` (the rail's
 *   terms replaced); the same terms again change nothing; bad terms are
 *   refused naming each field. A partner with no terms for a rail has none
 *   (`FeeSchedule.none`).
 *
 * A collection records the terms in force when it is initiated
 * (`PlatformFees.appliedFor`); a later change changes no recorded fee.
 * Decision table: packages/domain/docs/Fees.md.
 */
import type { DateTime } from "effect"
import { type Aggregate, accept, type Decision, nothing } from "../kernel/Decider.ts"
import type { DomainError } from "../kernel/DomainError.ts"
import * as FieldChecks from "../kernel/FieldChecks.ts"
import type { PartnerId } from "../kernel/Ids.ts"
import * as FeeSchedule from "./FeeSchedule.ts"
import { PartnerFeesEvent } from "./PartnerFeesEvents.ts"

export * from "./PartnerFeesEvents.ts"

/** Set the partner's terms for one rail (the operator). */
export interface SetFeeSchedule {
  readonly _tag: "SetFeeSchedule"
  readonly partnerId: PartnerId
  readonly rail: FeeSchedule.Rail
  readonly terms: FeeSchedule.FeeTerms
  readonly at: DateTime.Utc
}

export type Command = SetFeeSchedule
export type Event = PartnerFeesEvent

/** The terms of each rail set, and since when. */
export interface State {
  readonly schedules: ReadonlyArray<{
    readonly rail: FeeSchedule.Rail
    readonly terms: FeeSchedule.FeeTerms
    readonly since: DateTime.Utc
  }>
}

export const initialState: State = { schedules: [] }

/** The partner's terms for `rail` (none set: `FeeSchedule.none`). */
export const termsOf = (state: State, rail: FeeSchedule.Rail): FeeSchedule.FeeTerms =>
  state.schedules.find((schedule) => schedule.rail === rail)?.terms ?? FeeSchedule.none

const sameMoney = (left: { readonly minorUnits: number; readonly currency: string } | undefined, right: typeof left) =>
  left === undefined || right === undefined
    ? left === right
    : left.minorUnits === right.minorUnits && left.currency === right.currency

const sameTerms = (left: FeeSchedule.FeeTerms, right: FeeSchedule.FeeTerms): boolean =>
  left.percentageBasisPoints === right.percentageBasisPoints &&
  left.returnFeePassedOn === right.returnFeePassedOn &&
  sameMoney(left.fixed, right.fixed) &&
  sameMoney(left.providerCost, right.providerCost) &&
  sameMoney(left.returnFee, right.returnFee)

export const decide = (command: Command, state: State): Decision<Event> => {
  const invalid = FieldChecks.refusal(FeeSchedule.issuesOf(command.terms))
  if (invalid) return invalid
  const current = state.schedules.find((schedule) => schedule.rail === command.rail)
  if (current !== undefined && sameTerms(current.terms, command.terms)) return nothing
  return accept<Event>({
    _tag: "FeeScheduleSet",
    partnerId: command.partnerId,
    rail: command.rail,
    terms: command.terms,
    at: command.at,
  })
}

export const evolve = (state: State, event: Event): State => ({
  schedules: [
    ...state.schedules.filter((schedule) => schedule.rail !== event.rail),
    { rail: event.rail, terms: event.terms, since: event.at },
  ],
})

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "PartnerFees",
  initialState,
  decide,
  evolve,
  events: PartnerFeesEvent,
  eventVersion: () => 1,
}
