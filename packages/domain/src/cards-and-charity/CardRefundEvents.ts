/**
 * The events of CardRefunds (`CardRefunds.ts`): refunds of one card payment through the card
 * processor, asked for (Pending), then Completed or Failed.
 */
import { Schema } from "effect"
import { eventsOf } from "../kernel/EventSchema.ts"
import { CardPaymentId, CompanyId, PartnerId, PaymentRequestId } from "../kernel/Ids.ts"
import * as Money from "../kernel/Money.ts"
import { TransferEvents } from "../payments/index.ts"

/** The card payment refunded and whose money it is. */
export const RefundedPayment = Schema.Struct({
  cardPaymentId: CardPaymentId,
  /** The payment request paid in the app with this card payment (absent: a terminal payment). */
  paymentRequestId: Schema.optionalKey(PaymentRequestId),
  partnerId: PartnerId,
  companyId: CompanyId,
  amount: Money.Money,
  /** The processor's reference of the charge (what it refunds). */
  processorReference: Schema.String,
})
export type RefundedPayment = typeof RefundedPayment.Type

/** Every refund event names the payment refunded, the refund and its amount, and the instant `at`. */
const refundEvent = eventsOf({ payment: RefundedPayment, refundId: TransferEvents.RefundId, amount: Money.Money })

/** A refund was asked for: its amount leaves the company's balance at once, Pending at the processor. */
export const CardRefundRequested = refundEvent("CardRefundRequested")
export type CardRefundRequested = typeof CardRefundRequested.Type

/** The processor refunded the payer. */
export const CardRefundCompleted = refundEvent("CardRefundCompleted")
export type CardRefundCompleted = typeof CardRefundCompleted.Type

/** The processor could not refund: the amount comes back to the company's balance. */
export const CardRefundFailed = refundEvent("CardRefundFailed", { reason: Schema.String })
export type CardRefundFailed = typeof CardRefundFailed.Type

export const CardRefundEvent = Schema.Union([CardRefundRequested, CardRefundCompleted, CardRefundFailed])
export type CardRefundEvent = typeof CardRefundEvent.Type
