/**
 * A card payment's refunds mirrored on the payment request it paid (issue
 * 38): the request paid in the app by card (`PaidByCard`) records each card
 * refund the processor completed as the ACH refunds are recorded, with the
 * same events: `PaymentRequestPartiallyRefunded` (its `refundedAmount` on
 * GET /Payment/{id}) until the refunds reach the paid amount, then
 * `PaymentRequestRefunded` (status Refunded, PAYMENT_REQUEST_STATUS_CHANGED).
 *
 * The refund itself is decided by the card payment's `CardRefunds` (never
 * more than the payment, pending ones counted); the request only mirrors the
 * completed ones, reached by the policy `CardRefundMirrorPolicy` with the
 * request's `RefundPaymentRequest` command (the card refund's id as its
 * refund id: a repeat changes nothing). The request stays `PaidByCard` (its
 * card is still disputable); `statusOf` reads Refunded once fully refunded.
 */
import type { DateTime } from "effect"
import { accept, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import { IllegalTransition, RuleViolated } from "../kernel/DomainError.ts"
import type { PaymentRequestId } from "../kernel/Ids.ts"
import * as Money from "../kernel/Money.ts"
import type { PaymentRequestEvent as Event, Of } from "./PaymentRequestEvents.ts"
import type { RefundId } from "./TransferEvents.ts"

/**
 * What this module reads of a request paid in the app by card (the PaymentRequest's `PaidByCard` state,
 * declared structurally: the aggregate's module imports this one).
 */
export interface PaidByCard {
  readonly _tag: "PaidByCard"
  readonly request: { readonly paymentRequestId: PaymentRequestId; readonly amount: Money.Money }
  readonly refunds?: ReadonlyArray<{ readonly refundId: RefundId; readonly amount: Money.Money }>
  readonly refundedAmount?: Money.Money
}

/** The request's refund command (`PaymentRequest.RefundPaymentRequest`). */
export interface RefundPaymentRequest {
  readonly _tag: "RefundPaymentRequest"
  readonly refundId: RefundId
  readonly amount?: Money.Money
  readonly at: DateTime.Utc
}

/** What the card refunds gave back so far (zero when none). */
export const refundedOf = (state: PaidByCard): Money.Money =>
  state.refundedAmount ?? Money.make(0, state.request.amount.currency)

/** The status a client reads: Refunded once the card refunds reach the paid amount, Paid before. */
export const statusOf = (state: PaidByCard): "Paid" | "Refunded" =>
  refundedOf(state).minorUnits >= state.request.amount.minorUnits ? "Refunded" : "Paid"

/** A completed card refund recorded on the request (partial, or the one that refunds it fully). */
export const refund = (command: RefundPaymentRequest, state: PaidByCard): Decision<Event> => {
  const refunds = state.refunds ?? []
  const earlier = refunds.find((recorded) => recorded.refundId === command.refundId)
  if (earlier !== undefined)
    return command.amount === undefined || command.amount.minorUnits === earlier.amount.minorUnits
      ? nothing
      : refuse(
          new RuleViolated({ code: "REFUND_ID_REUSED", reason: "this refund id was already used for another amount" }),
        )
  const paid = state.request.amount
  const refunded = refundedOf(state).minorUnits
  if (statusOf(state) === "Refunded")
    return refuse(
      new IllegalTransition({
        entity: "PaymentRequest",
        state: "Refunded",
        command: command._tag,
        reason: "the payment request is already fully refunded",
      }),
    )
  const amount = command.amount ?? Money.make(paid.minorUnits - refunded, paid.currency)
  const total = refunded + amount.minorUnits
  if (total > paid.minorUnits)
    return refuse(
      new RuleViolated({
        code: "REFUND_EXCEEDS_PAYMENT",
        reason: `refunds would total ${total} minor units, more than the ${paid.minorUnits} paid`,
      }),
    )
  const common = {
    paymentRequestId: state.request.paymentRequestId,
    refundId: command.refundId,
    amount,
    totalRefunded: Money.make(total, paid.currency),
    at: command.at,
  }
  return total === paid.minorUnits
    ? accept<Event>({ _tag: "PaymentRequestRefunded", ...common })
    : accept<Event>({ _tag: "PaymentRequestPartiallyRefunded", ...common })
}

/** The request after a card refund was recorded: still paid by that card, its refunds added up. */
export const evolve = <S extends PaidByCard>(
  state: S,
  event: Of<"PaymentRequestPartiallyRefunded"> | Of<"PaymentRequestRefunded">,
): S => ({
  ...state,
  refunds: [...(state.refunds ?? []), { refundId: event.refundId, amount: event.amount }],
  refundedAmount: event.totalRefunded,
})
