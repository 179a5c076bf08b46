/**
 * The `card_payments` read model: one document per registered external card
 * payment, found by merchant and the terminal's `externalReference`. It makes
 * POST /cardpayment safe to retry: the same merchant and external reference
 * name the same card payment.
 */
import { DateTime, Schema } from "effect"
import type * as Envelope from "../infrastructure/Envelope.ts"
import { type Projection, perAggregate } from "../infrastructure/ReadModel.ts"
import { CardPaymentId, MerchantId, PartnerId } from "../kernel/Ids.ts"
import { Money } from "../kernel/Money.ts"
import type { CardPaymentEvent } from "./CardPaymentEvents.ts"

/** The events this read model reads. */
export type CardPaymentEnvelope = Envelope.Of<"CardPayment", CardPaymentEvent>

export const collection = "card_payments"

export const CardPaymentDocument = Schema.Struct({
  cardPaymentId: CardPaymentId,
  partnerId: PartnerId,
  merchantId: MerchantId,
  amount: Money,
  last4: Schema.String,
  brand: Schema.String,
  externalReference: Schema.String,
  /** The card processor's reference (absent on payments recorded before the processor was asked). */
  processorReference: Schema.optionalKey(Schema.String),
  registeredAt: Schema.DateTimeUtcFromString,
})
export type CardPaymentDocument = typeof CardPaymentDocument.Type

export const projection: Projection<CardPaymentDocument, CardPaymentEnvelope> = {
  collection,
  document: CardPaymentDocument,
  ...perAggregate<CardPaymentEnvelope>("CardPayment", (event) => event.cardPaymentId),
  apply: (current, envelope) => {
    if (envelope.streamType !== "CardPayment") return current
    const { _tag, at, availableAt: _availableAt, ...details } = envelope.event
    return { ...details, registeredAt: at }
  },
  index: (doc) => ({
    partnerId: doc.partnerId,
    keys: { merchantId: doc.merchantId, externalReference: doc.externalReference },
    sortKey: DateTime.formatIso(doc.registeredAt),
  }),
}
