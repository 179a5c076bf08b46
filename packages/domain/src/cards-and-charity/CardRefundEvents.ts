/**
 * The events of CardRefunds (`CardRefunds.ts`): refunds of one card payment through the card
 * processor, asked for (Pending), then Completed or Failed.
 */
import { Schema } from "effect"
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

/** A refund was asked for: its amount leaves the company's balance at once, Pending at the processor. */
export const CardRefundRequested = Schema.TaggedStruct("CardRefundRequested", {
  payment: RefundedPayment,
  refundId: TransferEvents.RefundId,
  amount: Money.Money,
  at: Schema.DateTimeUtcFromString,
})
export type CardRefundRequested = typeof CardRefundRequested.Type

/** The processor refunded the payer. */
export const CardRefundCompleted = Schema.TaggedStruct("CardRefundCompleted", {
  payment: RefundedPayment,
  refundId: TransferEvents.RefundId,
  amount: Money.Money,
  at: Schema.DateTimeUtcFromString,
})
export type CardRefundCompleted = typeof CardRefundCompleted.Type

/** The processor could not refund: the amount comes back to the company's balance. */
export const CardRefundFailed = Schema.TaggedStruct("CardRefundFailed", {
  payment: RefundedPayment,
  refundId: TransferEvents.RefundId,
  amount: Money.Money,
  reason: Schema.String,
  at: Schema.DateTimeUtcFromString,
})
export type CardRefundFailed = typeof CardRefundFailed.Type

export const CardRefundEvent = Schema.Union([CardRefundRequested, CardRefundCompleted, CardRefundFailed])
export type CardRefundEvent = typeof CardRefundEvent.Type
