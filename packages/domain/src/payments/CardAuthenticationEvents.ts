/**
 * The events of CardAuthentication (`CardAuthentication.ts`): an in-app card
 * payment of a payment request that the card's issuer asked the payer to
 * authenticate (3-D Secure), then its outcome.
 */
import { Schema } from "effect"
import { AuthorizationEvidence } from "../kernel/AuthorizationEvidence.ts"
import { CardPaymentId, PaymentRequestId, RegistrationId } from "../kernel/Ids.ts"
import { Money } from "../kernel/Money.ts"
import * as FeeSchedule from "./FeeSchedule.ts"

/** The card payment waiting for the payer's authentication: what the request records once it succeeds. */
export const AwaitedCardPayment = Schema.Struct({
  registrationId: RegistrationId,
  cardPaymentId: CardPaymentId,
  paymentMethodId: Schema.String,
  brand: Schema.String,
  last4: Schema.String,
  /** The processor's payment waiting for the authentication (a Stripe PaymentIntent id). */
  processorReference: Schema.String,
  /** The partner's card fee schedule in force when the payer paid, and what it takes (absent: none). */
  platformFee: Schema.optionalKey(Money),
  feeSchedule: Schema.optionalKey(FeeSchedule.AppliedSchedule),
  providerCost: Schema.optionalKey(Money),
  /** The payer's authorization of the charge, given when they paid. */
  authorization: Schema.optionalKey(AuthorizationEvidence),
})
export type AwaitedCardPayment = typeof AwaitedCardPayment.Type

/**
 * The processor asked for the payer's authentication of the charge (3-D Secure): the app completes it
 * with the processor's SDK; the payment request stays Pending (payable) meanwhile. `attempt` counts the
 * request's card payments that needed it (1 first; after a failed one, the next is a new attempt).
 */
export const CardAuthenticationRequired = Schema.TaggedStruct("CardAuthenticationRequired", {
  paymentRequestId: PaymentRequestId,
  attempt: Schema.Int,
  payment: AwaitedCardPayment,
  at: Schema.DateTimeUtcFromString,
})
export type CardAuthenticationRequired = typeof CardAuthenticationRequired.Type

/** The payer authenticated and the processor charged the card: the request is to be Paid by card. */
export const CardAuthenticationSucceeded = Schema.TaggedStruct("CardAuthenticationSucceeded", {
  paymentRequestId: PaymentRequestId,
  attempt: Schema.Int,
  payment: AwaitedCardPayment,
  /** When the processor makes the money available to the company (absent: at once). */
  availableAt: Schema.optionalKey(Schema.DateTimeUtcFromString),
  at: Schema.DateTimeUtcFromString,
})
export type CardAuthenticationSucceeded = typeof CardAuthenticationSucceeded.Type

/** The authentication failed or the card was declined after it: nothing charged, the request still payable. */
export const CardAuthenticationFailed = Schema.TaggedStruct("CardAuthenticationFailed", {
  paymentRequestId: PaymentRequestId,
  attempt: Schema.Int,
  processorReference: Schema.String,
  /** The processor's code (e.g. Stripe's `payment_intent_authentication_failure` or a decline code). */
  code: Schema.String,
  at: Schema.DateTimeUtcFromString,
})
export type CardAuthenticationFailed = typeof CardAuthenticationFailed.Type

export const CardAuthenticationEvent = Schema.Union([
  CardAuthenticationRequired,
  CardAuthenticationSucceeded,
  CardAuthenticationFailed,
])
export type CardAuthenticationEvent = typeof CardAuthenticationEvent.Type
