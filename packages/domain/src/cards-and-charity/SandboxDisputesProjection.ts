/**
 * The `sandbox_card_disputes` read model: the sandbox dispute worker's work
 * list (the app's `workers/SandboxCardDisputes.ts`), one document per card
 * payment of a company made with the sandbox's disputed card (last four
 * `disputedLast4`), keyed by the card payment's id:
 *
 * - step `Dispute`: paid (in the app, `PaymentRequestPaidByCard`, or on a
 *   terminal for a company, `CardPaymentRegistered`), not disputed yet;
 *   `dueFrom` is when it was paid;
 * - step `Lose`: the sandbox's dispute of it (`sandboxDisputeId`) opened and
 *   nothing else happened to it yet; `dueFrom` is when it opened;
 * - gone once that dispute changes status or is decided.
 *
 * It spans every partner, so it is owned by the system tenant (the nil UUID,
 * never a partner's id): no partner query can see it. An in-app payment's
 * event does not name its partner: the worker's query reads it from the
 * payment request's document (`PgDueWork.sandboxCardsToDispute`). A pure
 * function of the PaymentRequest, CardPayment and CardDispute events, rebuilt
 * with the other read models. It stays small: a document leaves the list when
 * its dispute is lost (in production, where the worker does not run, it holds
 * the rare real card ending in the same four digits).
 */
import { DateTime, Schema } from "effect"
import type * as Envelope from "../infrastructure/Envelope.ts"
import type { Projection } from "../infrastructure/ReadModel.ts"
import * as Tenancy from "../infrastructure/Tenancy.ts"
import type { PaymentRequestsProjection } from "../payments/index.ts"
import type { CardDisputeEvent } from "./CardDisputeEvents.ts"
import type { CardPaymentEnvelope } from "./CardPaymentsProjection.ts"

export const collection = "sandbox_card_disputes"

/** The last four digits of the sandbox card whose payments are disputed and lost. */
export const disputedLast4 = "0259"

/** The id of the sandbox's dispute of a card payment (its CardDispute stream: `CardDispute-dp_sandbox_<id>`). */
export const sandboxDisputeId = (cardPaymentId: string): string => `dp_sandbox_${cardPaymentId}`

/** The owner of the work list: no partner (the nil UUID). */
export const workTenant: string = Tenancy.systemTenant

export const Step = Schema.Literals(["Dispute", "Lose"])
export type Step = typeof Step.Type

export const SandboxDisputeDocument = Schema.Struct({
  cardPaymentId: Schema.String,
  step: Step,
  /** The payment's partner (absent for an in-app payment until its dispute opened: see the module's doc). */
  partnerId: Schema.optionalKey(Schema.String),
  /** The payment request paid in the app (absent: a terminal payment). */
  paymentRequestId: Schema.optionalKey(Schema.String),
  /** The sandbox's dispute, once opened. */
  disputeId: Schema.optionalKey(Schema.String),
  /** When the step's clock started (ISO 8601, the partner's time): paid, or the dispute opened. */
  dueFrom: Schema.String,
})
export type SandboxDisputeDocument = typeof SandboxDisputeDocument.Type

/** The events this read model reads. */
export type SandboxDisputesEnvelope =
  | PaymentRequestsProjection.PaymentRequestEnvelope
  | CardPaymentEnvelope
  | Envelope.Of<"CardDispute", CardDisputeEvent>

/** The card payment whose document the event changes (undefined: the list does not care). */
const cardPaymentOf = (envelope: SandboxDisputesEnvelope): string | undefined => {
  switch (envelope.streamType) {
    case "PaymentRequest": {
      const event = envelope.event
      return event._tag === "PaymentRequestPaidByCard" && event.last4 === disputedLast4
        ? event.cardPaymentId
        : undefined
    }
    case "CardPayment": {
      const event = envelope.event
      return event.last4 === disputedLast4 && event.companyId !== undefined ? event.cardPaymentId : undefined
    }
    case "CardDispute": {
      const { disputeId, payment } = envelope.event.dispute
      return disputeId === sandboxDisputeId(payment.cardPaymentId) ? payment.cardPaymentId : undefined
    }
    default:
      return undefined
  }
}

export const projection: Projection<SandboxDisputeDocument, SandboxDisputesEnvelope> = {
  collection,
  document: SandboxDisputeDocument,
  streamTypes: ["PaymentRequest", "CardPayment", "CardDispute"],
  key: cardPaymentOf,
  apply: (current, envelope) => {
    switch (envelope.streamType) {
      case "PaymentRequest": {
        const event = envelope.event
        if (event._tag !== "PaymentRequestPaidByCard" || current !== undefined) return current
        return {
          cardPaymentId: event.cardPaymentId,
          step: "Dispute",
          paymentRequestId: event.paymentRequestId,
          dueFrom: DateTime.formatIso(event.at),
        }
      }
      case "CardPayment": {
        const event = envelope.event
        if (current !== undefined) return current
        return {
          cardPaymentId: event.cardPaymentId,
          step: "Dispute",
          partnerId: event.partnerId,
          dueFrom: DateTime.formatIso(event.at),
        }
      }
      case "CardDispute": {
        const event = envelope.event
        if (event._tag !== "CardDisputeOpened") return undefined
        return {
          cardPaymentId: event.dispute.payment.cardPaymentId,
          step: "Lose",
          partnerId: event.dispute.payment.partnerId,
          disputeId: event.dispute.disputeId,
          dueFrom: DateTime.formatIso(event.at),
        }
      }
      default:
        return current
    }
  },
  index: (doc) => ({ partnerId: workTenant, keys: { step: doc.step }, sortKey: doc.dueFrom }),
}
