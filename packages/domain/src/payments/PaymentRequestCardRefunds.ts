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
 * refund id: a repeat changes nothing), under the request's refund rule
 * (`PaymentRequestRefunds.ts`). The request stays `PaidByCard` (its
 * card is still disputable); `statusOf` reads Refunded once fully refunded.
 */
import type { Decision } from "../kernel/Decider.ts"
import * as Money from "../kernel/Money.ts"
import type { PaymentRequestEvent as Event, Of } from "./PaymentRequestEvents.ts"
import * as PaymentRequestRefunds from "./PaymentRequestRefunds.ts"

/**
 * What this module reads of a request paid in the app by card (the PaymentRequest's `PaidByCard` state,
 * declared structurally: the aggregate's module imports this one).
 */
export interface PaidByCard
  extends Pick<PaymentRequestRefunds.Refundable, "request">,
    Partial<Pick<PaymentRequestRefunds.Refundable, "refunds" | "refundedAmount">> {
  readonly _tag: "PaidByCard"
}

/** What the card refunds gave back so far (zero when none). */
export const refundedOf = (state: PaidByCard): Money.Money =>
  state.refundedAmount ?? Money.make(0, state.request.amount.currency)

/** The status a client reads: Refunded once the card refunds reach the paid amount, Paid before. */
export const statusOf = (state: PaidByCard): "Paid" | "Refunded" =>
  refundedOf(state).minorUnits >= state.request.amount.minorUnits ? "Refunded" : "Paid"

/** A completed card refund recorded on the request (partial, or the one that refunds it fully): the request's rule. */
export const refund = (command: PaymentRequestRefunds.RefundPaymentRequest, state: PaidByCard): Decision<Event> =>
  PaymentRequestRefunds.refund(command, { ...state, refunds: state.refunds ?? [], refundedAmount: refundedOf(state) })

/** The request after a card refund was recorded: still paid by that card, its refunds added up. */
export const evolve = <S extends PaidByCard>(
  state: S,
  event: Of<"PaymentRequestPartiallyRefunded"> | Of<"PaymentRequestRefunded">,
): S => ({
  ...state,
  ...PaymentRequestRefunds.withRefund(state.refunds ?? [], event),
})
