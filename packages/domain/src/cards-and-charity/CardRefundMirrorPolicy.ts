/**
 * Policy: a card refund the processor completed reaches the payment request
 * the card payment paid in the app (issue 38), as a transfer's completed
 * refund reaches its request (`TransferOutcomePolicy`): the request's
 * `RefundPaymentRequest` with the card refund's id and amount, recorded by
 * `PaymentRequestCardRefunds` (PartiallyRefunded, then Refunded). A pending
 * or failed card refund, and a terminal payment's (no request), issue
 * nothing.
 */
import * as Policy from "../infrastructure/Policy.ts"
import { PaymentRequest } from "../payments/index.ts"
import * as CardRefunds from "./CardRefunds.ts"

/** The request's command a card refund event implies, or undefined. */
export const fromCardRefundEvent = (event: CardRefunds.Event): PaymentRequest.RefundPaymentRequest | undefined => {
  const paymentRequestId = event.payment.paymentRequestId
  if (event._tag !== "CardRefundCompleted" || paymentRequestId === undefined) return undefined
  return PaymentRequest.refundCommand(paymentRequestId, event)
}

export const policy = Policy.make({
  name: "a completed card refund reaches the payment request the card paid",
  source: CardRefunds.aggregate,
  reactsTo: ["CardRefundCompleted"],
  target: PaymentRequest.aggregate,
  react: (event: CardRefunds.Event) => {
    const command = fromCardRefundEvent(event)
    return command === undefined ? undefined : { id: command.paymentRequestId, command }
  },
})
