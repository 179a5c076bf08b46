/**
 * CardDispute: a cardholder's dispute (chargeback) of a card payment, as the
 * card processor reports it, one stream per dispute (`CardDispute-<disputeId>`,
 * the processor's id). Decision table: packages/domain/docs/CardPaymentAndCharity.md.
 *
 * - `OpenCardDispute`: the processor opened it (Stripe `charge.dispute.created`):
 *   `CardDisputeOpened`; its amount and the processor's dispute fee leave the
 *   company's balance at once (`Ledger.entriesOfDispute`). The amount must be
 *   positive and at most the payment's, the fee zero or more, both in the
 *   payment's currency, the reason not empty.
 * - `ChangeCardDisputeStatus`: an open dispute between NeedsResponse and
 *   UnderReview (`charge.dispute.updated`).
 * - `CloseCardDispute`: decided (`charge.dispute.closed`): Won gives the amount
 *   and the fee back to the company, Lost keeps them taken.
 *
 * The processor's notifications come again and out of order: opening an open
 * or closed dispute again changes nothing, a status after the outcome is too
 * late and changes nothing, the same outcome again changes nothing; only a
 * contrary outcome is refused (a decided dispute is final). A status or an
 * outcome for a dispute never opened is NotFound (the processor's opening
 * comes first, or is asked for).
 */
import type { DateTime } from "effect"
import { type Aggregate, accept, byCommand, byEvent, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import {
  type DomainError,
  type FieldIssue,
  IllegalTransition,
  NotFound,
  ValidationFailed,
} from "../kernel/DomainError.ts"
import type * as Money from "../kernel/Money.ts"
import {
  type CardDisputeEvent,
  CardDisputeEvent as CardDisputeEventCodec,
  type Dispute,
  type OpenStatus,
  type Outcome,
} from "./CardDisputeEvents.ts"

export * from "./CardDisputeEvents.ts"

// ---------------------------------------------------------------------------
// Commands and state

export interface OpenCardDispute {
  readonly _tag: "OpenCardDispute"
  readonly dispute: Dispute
  /** The disputed payment's amount (read by the use case): a dispute takes at most that. */
  readonly paymentAmount: Money.Money
  readonly status: OpenStatus
  readonly at: DateTime.Utc
}

export interface ChangeCardDisputeStatus {
  readonly _tag: "ChangeCardDisputeStatus"
  readonly disputeId: string
  readonly status: OpenStatus
  readonly at: DateTime.Utc
}

export interface CloseCardDispute {
  readonly _tag: "CloseCardDispute"
  readonly disputeId: string
  readonly outcome: Outcome
  readonly at: DateTime.Utc
}

export type Command = OpenCardDispute | ChangeCardDisputeStatus | CloseCardDispute
export type Event = CardDisputeEvent

export type State =
  | { readonly _tag: "Initial" }
  | { readonly _tag: "Open"; readonly dispute: Dispute; readonly status: OpenStatus }
  | { readonly _tag: "Closed"; readonly dispute: Dispute; readonly outcome: Outcome }

export const initialState: State = { _tag: "Initial" }

// ---------------------------------------------------------------------------
// Decide

const validate = (command: OpenCardDispute): ValidationFailed | undefined => {
  const { amount, fee, reason } = command.dispute
  const issues: Array<FieldIssue> = []
  if (!Number.isInteger(amount.minorUnits) || amount.minorUnits <= 0)
    issues.push({ field: "amount", message: "must be a positive whole number of minor units" })
  else if (amount.currency !== command.paymentAmount.currency)
    issues.push({ field: "amount", message: "must be in the payment's currency" })
  else if (amount.minorUnits > command.paymentAmount.minorUnits)
    issues.push({ field: "amount", message: "must be at most the payment's amount" })
  if (!Number.isInteger(fee.minorUnits) || fee.minorUnits < 0)
    issues.push({ field: "fee", message: "must be zero or a positive whole number of minor units" })
  else if (fee.currency !== amount.currency) issues.push({ field: "fee", message: "must be in the amount's currency" })
  if (reason.trim().length === 0) issues.push({ field: "reason", message: "must not be empty" })
  return issues.length > 0 ? new ValidationFailed({ issues }) : undefined
}

const open = (command: OpenCardDispute, state: State): Decision<Event> => {
  if (state._tag !== "Initial") return nothing
  const invalid = validate(command)
  if (invalid !== undefined) return refuse(invalid)
  return accept<Event>({ _tag: "CardDisputeOpened", dispute: command.dispute, status: command.status, at: command.at })
}

const changeStatus = (command: ChangeCardDisputeStatus, state: State): Decision<Event> => {
  switch (state._tag) {
    case "Initial":
      return refuse(new NotFound({ entity: "CardDispute" }))
    case "Open":
      return state.status === command.status
        ? nothing
        : accept<Event>({
            _tag: "CardDisputeStatusChanged",
            dispute: state.dispute,
            status: command.status,
            at: command.at,
          })
    case "Closed":
      // A late notification of a status before the outcome.
      return nothing
  }
}

const close = (command: CloseCardDispute, state: State): Decision<Event> => {
  switch (state._tag) {
    case "Initial":
      return refuse(new NotFound({ entity: "CardDispute" }))
    case "Open":
      return accept<Event>({
        _tag: "CardDisputeClosed",
        dispute: state.dispute,
        outcome: command.outcome,
        at: command.at,
      })
    case "Closed":
      return state.outcome === command.outcome
        ? nothing
        : refuse(
            new IllegalTransition({
              entity: "CardDispute",
              state: state.outcome,
              command: command._tag,
              reason: `the dispute was already ${state.outcome.toLowerCase()}`,
            }),
          )
  }
}

export const decide: (command: Command, state: State) => Decision<Event> = byCommand<Command, State, Event>({
  OpenCardDispute: open,
  ChangeCardDisputeStatus: changeStatus,
  CloseCardDispute: close,
})

// ---------------------------------------------------------------------------
// Evolve

export const evolve: (state: State, event: Event) => State = byEvent<Event, State>({
  CardDisputeOpened: (state, event) =>
    state._tag === "Initial" ? { _tag: "Open", dispute: event.dispute, status: event.status } : state,
  CardDisputeStatusChanged: (state, event) => (state._tag === "Open" ? { ...state, status: event.status } : state),
  CardDisputeClosed: (state, event) =>
    state._tag === "Open" ? { _tag: "Closed", dispute: state.dispute, outcome: event.outcome } : state,
})

/** The status a webhook announces for a dispute's event. */
export const statusOf = (event: Event): "NeedsResponse" | "UnderReview" | "Won" | "Lost" =>
  event._tag === "CardDisputeClosed" ? event.outcome : event.status

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "CardDispute",
  initialState,
  decide,
  evolve,
  events: CardDisputeEventCodec,
  eventVersion: () => 1,
}
