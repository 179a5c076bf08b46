/**
 * The CARD_PAYMENT_RECORDED webhook: a card payment made on an external
 * terminal was registered for a merchant (`POST /cardpayment`). Data
 * { CardPaymentId, MerchantId, Amount { value, currencyCode }, Brand, Last4,
 * ExternalReference, Timestamp }.
 */
import { DateTime } from "effect"
import type * as Envelope from "../infrastructure/Envelope.ts"
import * as WebhookRule from "../infrastructure/WebhookRule.ts"
import * as Money from "../kernel/Money.ts"
import type { CardPaymentEvent } from "./CardPaymentEvents.ts"

export const eventType = "CARD_PAYMENT_RECORDED"

export const rule = WebhookRule.perEvent<Envelope.Of<"CardPayment", CardPaymentEvent>>({
  streamTypes: ["CardPayment"],
  eventType,
  announce: (event) => ({
    partnerId: event.partnerId,
    data: {
      CardPaymentId: event.cardPaymentId,
      MerchantId: event.merchantId,
      Amount: { value: Money.toDecimal(event.amount), currencyCode: event.amount.currency },
      Brand: event.brand,
      Last4: event.last4,
      ExternalReference: event.externalReference,
      Timestamp: DateTime.formatIso(event.at),
    },
  }),
})
