/**
 * The `card_refund_retries` read model: the card-refund retry worker's work
 * list (the app's `workers/CardRefundRetry.ts`), one document per card
 * refund still Pending that the processor has not accepted, keyed by the
 * refund's id: made when the refund is asked for (`CardRefundRequested`),
 * gone once it is decided (`CardRefundCompleted`, `CardRefundFailed`), the
 * processor accepted it (`CardRefundSubmitted`: its notification decides) or
 * its attempts are exhausted. Whether a listed refund is due is the domain's
 * rule (`CardRefundAttempts.nextAttemptAt`); the list only finds them.
 *
 * It spans every partner, so it is owned by the system tenant (the nil UUID):
 * no partner query can see it. A pure function of the CardRefunds and
 * CardRefundAttempts events, rebuilt with the other read models; it stays
 * small (a refund leaves it when the processor answers). Refunds left Pending
 * before this read model existed are listed after `projections rebuild`.
 */
import { DateTime, Schema } from "effect"
import type * as Envelope from "../infrastructure/Envelope.ts"
import type { Projection } from "../infrastructure/ReadModel.ts"
import * as Tenancy from "../infrastructure/Tenancy.ts"
import type { CardRefundAttemptEvent } from "./CardRefundAttempts.ts"
import type { CardRefundEvent } from "./CardRefundEvents.ts"

export const collection = "card_refund_retries"

/** The owner of the work list: no partner (the nil UUID). */
export const workTenant: string = Tenancy.systemTenant

export const CardRefundRetryDocument = Schema.Struct({
  refundId: Schema.String,
  cardPaymentId: Schema.String,
  partnerId: Schema.String,
  /** When the refund was asked for (ISO 8601, the partner's time): the worker's cursor. */
  requestedAt: Schema.String,
})
export type CardRefundRetryDocument = typeof CardRefundRetryDocument.Type

/** The events this read model reads. */
export type CardRefundRetriesEnvelope =
  | Envelope.Of<"CardRefunds", CardRefundEvent>
  | Envelope.Of<"CardRefundAttempts", CardRefundAttemptEvent>

export const projection: Projection<CardRefundRetryDocument, CardRefundRetriesEnvelope> = {
  collection,
  document: CardRefundRetryDocument,
  streamTypes: ["CardRefunds", "CardRefundAttempts"],
  key: (envelope) => envelope.event.refundId,
  apply: (current, envelope) => {
    const event = envelope.event
    switch (event._tag) {
      case "CardRefundRequested":
        return (
          current ?? {
            refundId: event.refundId,
            cardPaymentId: event.payment.cardPaymentId,
            partnerId: event.payment.partnerId,
            requestedAt: DateTime.formatIso(event.at),
          }
        )
      case "CardRefundAttemptFailed":
        return current
      case "CardRefundCompleted":
      case "CardRefundFailed":
      case "CardRefundSubmitted":
      case "CardRefundAttemptsExhausted":
        return undefined
    }
  },
  index: (doc) => ({ partnerId: workTenant, keys: {}, sortKey: doc.requestedAt }),
}
