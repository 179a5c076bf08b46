/**
 * CardRefunds: the refunds of one card payment through the card processor
 * (POST /Transaction/{id}/Refund naming a card payment), one stream per card
 * payment (`CardRefunds-<cardPaymentId>`). Decision table:
 * packages/domain/docs/CardPaymentAndCharity.md.
 *
 * - `RefundCardPayment`: a refund of part or all of the payment, Pending
 *   (`CardRefundRequested`); its amount leaves the company's balance at once
 *   (`Ledger.cardRefundEntryOf`). Pending and completed refunds never add up
 *   to more than the payment (RuleViolated `REFUND_EXCEEDS_PAYMENT`); the
 *   stream's version makes concurrent refunds decide one after the other. The
 *   same refund id again changes nothing.
 * - `RecordCardRefundOutcome`: the processor's answer: Completed, or Failed
 *   (the amount back in the balance, free to refund again). A repeated outcome
 *   changes nothing; a contrary one is refused (an outcome is final); an
 *   unknown refund is NotFound.
 */
import type { DateTime } from "effect"
import { type Aggregate, accept, byCommand, byEvent, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import { type DomainError, IllegalTransition, NotFound, RuleViolated, ValidationFailed } from "../kernel/DomainError.ts"
import * as Money from "../kernel/Money.ts"
import type { TransferEvents } from "../payments/index.ts"
import {
  type CardRefundEvent,
  CardRefundEvent as CardRefundEventCodec,
  type RefundedPayment,
} from "./CardRefundEvents.ts"

export * from "./CardRefundEvents.ts"

export type RefundStatus = "Pending" | "Completed" | "Failed"

export interface RefundCardPayment {
  readonly _tag: "RefundCardPayment"
  /** The payment (read by the use case), recorded with the first refund. */
  readonly payment: RefundedPayment
  readonly refundId: TransferEvents.RefundId
  readonly amount: Money.Money
  readonly at: DateTime.Utc
}

export interface RecordCardRefundOutcome {
  readonly _tag: "RecordCardRefundOutcome"
  readonly refundId: TransferEvents.RefundId
  readonly outcome: { readonly _tag: "Completed" } | { readonly _tag: "Failed"; readonly reason: string }
  readonly at: DateTime.Utc
}

export type Command = RefundCardPayment | RecordCardRefundOutcome
export type Event = CardRefundEvent

export interface Refund {
  readonly refundId: TransferEvents.RefundId
  readonly amount: Money.Money
  readonly status: RefundStatus
}

export type State =
  | { readonly _tag: "Initial" }
  | { readonly _tag: "Refunding"; readonly payment: RefundedPayment; readonly refunds: ReadonlyArray<Refund> }

export const initialState: State = { _tag: "Initial" }

/** What pending and completed refunds hold of the payment (minor units). */
export const heldOf = (refunds: ReadonlyArray<Refund>): number =>
  refunds.reduce((sum, refund) => (refund.status === "Failed" ? sum : sum + refund.amount.minorUnits), 0)

/** What completed refunds gave back (minor units). */
export const completedOf = (refunds: ReadonlyArray<Refund>): number =>
  refunds.reduce((sum, refund) => (refund.status === "Completed" ? sum + refund.amount.minorUnits : sum), 0)

const refundsOf = (state: State): ReadonlyArray<Refund> => (state._tag === "Initial" ? [] : state.refunds)

const requestRefund = (command: RefundCardPayment, state: State): Decision<Event> => {
  const refunds = refundsOf(state)
  if (refunds.some((refund) => refund.refundId === command.refundId)) return nothing
  const payment = state._tag === "Initial" ? command.payment : state.payment
  if (!Number.isInteger(command.amount.minorUnits) || command.amount.minorUnits <= 0)
    return refuse(ValidationFailed.of("amount", "must be a positive whole number of minor units"))
  if (command.amount.currency !== payment.amount.currency)
    return refuse(
      ValidationFailed.of("amount.currencyCode", `must be the payment's currency (${payment.amount.currency})`),
    )
  const remaining = payment.amount.minorUnits - heldOf(refunds)
  if (command.amount.minorUnits > remaining)
    return refuse(
      new RuleViolated({
        code: "REFUND_EXCEEDS_PAYMENT",
        reason: `at most ${Money.toDecimal(Money.make(remaining, payment.amount.currency))} ${payment.amount.currency} of the card payment can still be refunded (counting pending refunds)`,
      }),
    )
  return accept<Event>({
    _tag: "CardRefundRequested",
    payment,
    refundId: command.refundId,
    amount: command.amount,
    at: command.at,
  })
}

const recordOutcome = (command: RecordCardRefundOutcome, state: State): Decision<Event> => {
  if (state._tag === "Initial") return refuse(new NotFound({ entity: "CardRefund" }))
  const refund = state.refunds.find((candidate) => candidate.refundId === command.refundId)
  if (refund === undefined) return refuse(new NotFound({ entity: "CardRefund" }))
  const outcome = command.outcome._tag
  if (refund.status === outcome) return nothing
  if (refund.status !== "Pending")
    return refuse(
      new IllegalTransition({
        entity: "CardRefund",
        state: refund.status,
        command: command._tag,
        reason: `the refund is already ${refund.status}`,
      }),
    )
  const common = { payment: state.payment, refundId: refund.refundId, amount: refund.amount, at: command.at }
  return command.outcome._tag === "Completed"
    ? accept<Event>({ _tag: "CardRefundCompleted", ...common })
    : accept<Event>({ _tag: "CardRefundFailed", ...common, reason: command.outcome.reason })
}

export const decide: (command: Command, state: State) => Decision<Event> = byCommand<Command, State, Event>({
  RefundCardPayment: requestRefund,
  RecordCardRefundOutcome: recordOutcome,
})

// ---------------------------------------------------------------------------
// Evolve

const withStatus = (refunds: ReadonlyArray<Refund>, refundId: TransferEvents.RefundId, status: RefundStatus) =>
  refunds.map((refund) => (refund.refundId === refundId ? { ...refund, status } : refund))

/** A refund's outcome arrived: the refund takes that status. */
const refundIs =
  (status: RefundStatus) =>
  (state: State, event: { readonly refundId: TransferEvents.RefundId }): State =>
    state._tag === "Initial" ? state : { ...state, refunds: withStatus(state.refunds, event.refundId, status) }

export const evolve: (state: State, event: Event) => State = byEvent<Event, State>({
  CardRefundRequested: (state, event) => ({
    _tag: "Refunding",
    payment: state._tag === "Initial" ? event.payment : state.payment,
    refunds: [...refundsOf(state), { refundId: event.refundId, amount: event.amount, status: "Pending" }],
  }),
  CardRefundCompleted: refundIs("Completed"),
  CardRefundFailed: refundIs("Failed"),
})

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "CardRefunds",
  initialState,
  decide,
  evolve,
  events: CardRefundEventCodec,
  eventVersion: () => 1,
}
