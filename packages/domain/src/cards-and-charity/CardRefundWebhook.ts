/**
 * REFUND_STATUS_CHANGED for a card payment's refund: Pending when asked for,
 * then Completed or Failed (the processor's answer). Data { RefundId,
 * CardPaymentId (a terminal payment) or PaymentRequestId (paid in the app by
 * card), Amount, Status, FailureReason (Failed), Timestamp }: as a transfer's refund,
 * naming the card payment instead of a transfer.
 */
import { DateTime } from "effect"
import type * as Envelope from "../infrastructure/Envelope.ts"
import * as WebhookRule from "../infrastructure/WebhookRule.ts"
import * as Money from "../kernel/Money.ts"
import type { CardRefundEvent } from "./CardRefundEvents.ts"

export const eventType = "REFUND_STATUS_CHANGED"

const statusOf = (event: CardRefundEvent) =>
  event._tag === "CardRefundRequested" ? "Pending" : event._tag === "CardRefundCompleted" ? "Completed" : "Failed"

export const rule = WebhookRule.perEvent<Envelope.Of<"CardRefunds", CardRefundEvent>>({
  streamTypes: ["CardRefunds"],
  eventType,
  announce: (event) => ({
    partnerId: event.payment.partnerId,
    data: {
      RefundId: event.refundId,
      ...(event.payment.paymentRequestId === undefined
        ? { CardPaymentId: event.payment.cardPaymentId }
        : { PaymentRequestId: event.payment.paymentRequestId }),
      Amount: { value: Money.toDecimal(event.amount), currencyCode: event.amount.currency },
      Status: statusOf(event),
      ...(event._tag === "CardRefundFailed" ? { FailureReason: event.reason } : {}),
      Timestamp: DateTime.formatIso(event.at),
    },
  }),
})
