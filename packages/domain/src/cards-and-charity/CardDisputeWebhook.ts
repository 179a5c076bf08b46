/**
 * The CARD_DISPUTE_STATUS_CHANGED webhook: one notification each time a
 * dispute of a card payment changes status: opened (NeedsResponse or
 * UnderReview), moved between those, then decided (Won or Lost). Data
 * { CardPaymentId (a terminal payment) or PaymentRequestId (a request paid in
 * the app by card), DisputeId, Amount { value, currencyCode }, Reason,
 * Status, Timestamp }.
 */
import { DateTime } from "effect"
import type * as Envelope from "../infrastructure/Envelope.ts"
import * as WebhookRule from "../infrastructure/WebhookRule.ts"
import * as Money from "../kernel/Money.ts"
import { type CardDisputeEvent, statusOf } from "./CardDispute.ts"

export const eventType = "CARD_DISPUTE_STATUS_CHANGED"

export const rule = WebhookRule.perEvent<Envelope.Of<"CardDispute", CardDisputeEvent>>({
  streamTypes: ["CardDispute"],
  eventType,
  announce: (event) => {
    const { dispute } = event
    return {
      partnerId: dispute.payment.partnerId,
      data: {
        ...(dispute.payment.paymentRequestId === undefined
          ? { CardPaymentId: dispute.payment.cardPaymentId }
          : { PaymentRequestId: dispute.payment.paymentRequestId }),
        DisputeId: dispute.disputeId,
        Amount: { value: Money.toDecimal(dispute.amount), currencyCode: dispute.amount.currency },
        Reason: dispute.reason,
        Status: statusOf(event),
        Timestamp: DateTime.formatIso(event.at),
      },
    }
  },
})
