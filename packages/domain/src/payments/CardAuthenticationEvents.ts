/**
 * The events of CardAuthentication (`CardAuthentication.ts`): an in-app card
 * payment of a payment request that the card's issuer asked the payer to
 * authenticate (3-D Secure), then its outcome.
 */
import { Schema } from "effect"
import { AuthorizationEvidence } from "../kernel/AuthorizationEvidence.ts"
import { unionOf } from "../kernel/EventSchema.ts"
import { PaymentRequestId } from "../kernel/Ids.ts"
import * as FeeSchedule from "./FeeSchedule.ts"
import { CardCharge } from "./PaymentRequestEvents.ts"

/** The card payment waiting for the payer's authentication: what the request records once it succeeds. */
export const AwaitedCardPayment = Schema.Struct({
  /** The card and the processor's payment waiting for the authentication (a Stripe PaymentIntent id). */
  ...CardCharge.fields,
  /** The partner's card fee schedule in force when the payer paid, and what it takes (absent: none). */
  ...FeeSchedule.CollectionFees.fields,
  /** The payer's authorization of the charge, given when they paid. */
  authorization: Schema.optionalKey(AuthorizationEvidence),
})
export type AwaitedCardPayment = typeof AwaitedCardPayment.Type

/**
 * Every event of a card authentication, by its tag (the codec of its stream). Each names the payment
 * request and the attempt, and the instant `at`.
 */
export const CardAuthenticationEvent = unionOf(
  { paymentRequestId: PaymentRequestId, attempt: Schema.Int },
  {
    /**
     * The processor asked for the payer's authentication of the charge (3-D Secure): the app completes it
     * with the processor's SDK; the payment request stays Pending (payable) meanwhile. `attempt` counts the
     * request's card payments that needed it (1 first; after a failed one, the next is a new attempt).
     */
    CardAuthenticationRequired: { payment: AwaitedCardPayment },
    /** The payer authenticated and the processor charged the card: the request is to be Paid by card. */
    CardAuthenticationSucceeded: {
      payment: AwaitedCardPayment,
      /** When the processor makes the money available to the company (absent: at once). */
      availableAt: Schema.optionalKey(Schema.DateTimeUtcFromString),
    },
    /** The authentication failed or the card was declined after it: nothing charged, the request still payable. */
    CardAuthenticationFailed: {
      processorReference: Schema.String,
      /** The processor's code (e.g. Stripe's `payment_intent_authentication_failure` or a decline code). */
      code: Schema.String,
    },
  },
)
export type CardAuthenticationEvent = typeof CardAuthenticationEvent.Type

/** The card authentication event tagged `Tag`. */
export type Of<Tag extends CardAuthenticationEvent["_tag"]> = Extract<CardAuthenticationEvent, { readonly _tag: Tag }>

export const { CardAuthenticationRequired, CardAuthenticationSucceeded, CardAuthenticationFailed } =
  CardAuthenticationEvent.cases
