/** The events of CardPayment: a card payment registered for a merchant. */
import { Schema } from "effect"
import { CardPaymentId, CompanyId, MerchantId, PartnerId } from "../kernel/Ids.ts"
import * as Money from "../kernel/Money.ts"
import { FeeSchedule } from "../payments/index.ts"

/** A card payment made on an external terminal was registered for a merchant. */
export const CardPaymentRegistered = Schema.TaggedStruct("CardPaymentRegistered", {
  cardPaymentId: CardPaymentId,
  partnerId: PartnerId,
  merchantId: MerchantId,
  amount: Money.Money,
  last4: Schema.String.check(Schema.isPattern(/^\d{4}$/, { message: "must be exactly 4 digits" })),
  brand: Schema.String,
  externalReference: Schema.String,
  /** The card processor's reference of the payment (absent on payments recorded before the processor was asked). */
  processorReference: Schema.optionalKey(Schema.String),
  /**
   * The partner's company the merchant id names (the company's id used as its merchant id), whose
   * balance the payment credits; absent for a merchant outside the service (and on earlier payments).
   */
  companyId: Schema.optionalKey(CompanyId),
  /** When the card processor makes the money available to the company (absent: at once). */
  availableAt: Schema.optionalKey(Schema.DateTimeUtcFromString),
  /** A company's payment: the platform's fee (the partner's card fee schedule; absent: none). */
  platformFee: Schema.optionalKey(Money.Money),
  /** The schedule that produced `platformFee`. */
  feeSchedule: Schema.optionalKey(FeeSchedule.AppliedSchedule),
  /** The card processor's cost of this payment, the platform's expense (absent: none configured). */
  providerCost: Schema.optionalKey(Money.Money),
  at: Schema.DateTimeUtcFromString,
})
export type CardPaymentRegistered = typeof CardPaymentRegistered.Type

export const CardPaymentEvent = Schema.Union([CardPaymentRegistered])
export type CardPaymentEvent = typeof CardPaymentEvent.Type
