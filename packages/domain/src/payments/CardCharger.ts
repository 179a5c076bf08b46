/**
 * The card processor's charge operation, as its own port: charging one of a
 * customer's saved cards for an in-app payment of a payment request
 * (POST /Transaction/PaymentRequest/{id}/PayWithCard). Kept apart from the
 * `CardProcessor` port (listing saved cards, registering terminal payments)
 * so that the in-app payment needs only this operation.
 *
 * `charge` is idempotent by `idempotencyKey` (the payment request id): asking
 * again with the same key answers the first charge and never charges twice,
 * so a retried or concurrent payment of one request costs the payer once.
 * `refund` gives a charge back (used when the payment cannot be recorded
 * after the charge, e.g. the request was paid another way meanwhile).
 *
 * A charge the card's issuer wants the payer to authenticate (3-D Secure) is
 * answered `AuthenticationRequired` (not a failure): the processor's payment
 * and the client secret the app completes it with; the processor's later
 * notification tells its outcome (`CardAuthentication`).
 *
 * `layerSandbox`: a card whose last 4 digits are `0002` is declined
 * (`card_declined`), one ending in `3155` requires authentication (completed
 * by `POST /Sandbox/CardPayments/{paymentRequestId}/Authenticate`), any other
 * is charged; charges are kept in memory.
 */
import { Context, DateTime, Effect, Layer, Schema } from "effect"
import type { FeatureNotAvailable, ProviderUnavailable } from "../infrastructure/Providers.ts"
import type { Money } from "../kernel/Money.ts"

/** The processor declined the card; `code` is its reason (e.g. "card_declined", "insufficient_funds"). */
export class CardDeclined extends Schema.TaggedError<CardDeclined>()("CardDeclined", {
  code: Schema.String,
  reason: Schema.String,
}) {}

export interface ChargeRequest {
  /** One charge per key: the payment request id (`CardAuthentication.keyOf`: one per attempt). */
  readonly idempotencyKey: string
  /** The payment request paid (absent: the idempotency key is its id). */
  readonly paymentRequestId?: string | undefined
  /** The processor's id of the saved card. */
  readonly paymentMethodId: string
  readonly last4: string
  readonly amount: Money
  /** Shown on the payer's statement. */
  readonly description: string
}

/**
 * A charge the processor made: its reference, and when the processor makes the money available to the
 * company (its balance transaction's availability date; absent: the processor does not say, at once).
 */
export interface Charged {
  readonly processorReference: string
  readonly availableAt?: DateTime.Utc | undefined
}

/**
 * The charge waits for the payer's authentication (3-D Secure): the app completes it with the processor's
 * SDK and `clientSecret` (Stripe.js `handleNextAction`); nothing is charged until then.
 */
export interface AuthenticationRequired {
  readonly _tag: "AuthenticationRequired"
  /** The processor's payment waiting (a Stripe PaymentIntent id). */
  readonly processorReference: string
  readonly clientSecret: string
  /** What the app does next, as the processor names it (Stripe's `next_action.type`, e.g. `use_stripe_sdk`). */
  readonly nextAction: string
}

/** Whether the processor asks for the payer's authentication instead of charging at once. */
export const isAuthenticationRequired = (answer: Charged | AuthenticationRequired): answer is AuthenticationRequired =>
  "_tag" in answer && answer._tag === "AuthenticationRequired"

/** What the processor said of a refund it was asked for: done, or accepted and decided later. */
export type RefundAnswer = "Completed" | "Pending"

export class CardCharger extends Context.Service<
  CardCharger,
  {
    readonly charge: (
      request: ChargeRequest,
    ) => Effect.Effect<Charged | AuthenticationRequired, CardDeclined | ProviderUnavailable | FeatureNotAvailable>
    /**
     * Gives a charge back: all of it, or `partial.amount` once per `partial.idempotencyKey` (a card refund's
     * id: asking again never refunds twice; `partial.cardPaymentId`, the refunded card payment, lets the
     * processor's later notification about this refund name it). Answers `Completed` (given back) or
     * `Pending` (the processor accepted it and decides later: its notification). Unavailable: nothing is
     * known to have happened (the call failed or timed out: the refund is retried, `CardRefundAttempts`).
     */
    readonly refund: (
      processorReference: string,
      partial?:
        | { readonly idempotencyKey: string; readonly amount: Money; readonly cardPaymentId?: string | undefined }
        | undefined,
    ) => Effect.Effect<RefundAnswer, ProviderUnavailable>
  }
>()("partnerpay/domain/CardCharger") {
  /** Sandbox: last4 `0002` is declined, every other card is charged (in memory, once per key), available at once. */
  static readonly layerSandbox: Layer.Layer<CardCharger> = Layer.sync(CardCharger, () => makeSandbox())
  /** Sandbox whose charged money is available `availableAfterMillis` after the charge (one settlement cycle). */
  static readonly layerSandboxWith = (options: { readonly availableAfterMillis: number }): Layer.Layer<CardCharger> =>
    Layer.sync(CardCharger, () => makeSandbox(options))
}

/** The last 4 digits of the sandbox card that is always declined. */
export const declinedLast4 = "0002"

/** The last 4 digits of the sandbox card that requires the payer's authentication (Stripe's 3-D Secure test card). */
export const authenticationLast4 = "3155"

/** A sandbox charger; `charges()` lists what it charged (tests). */
export const makeSandbox = (options: { readonly availableAfterMillis?: number } = {}) => {
  const charges = new Map<string, { processorReference: string; refunded: boolean; availableAt?: DateTime.Utc }>()
  const refunds = new Map<string, { processorReference: string; amount: Money }>()
  let counter = 0
  const service = CardCharger.of({
    charge: (request) =>
      Effect.suspend((): Effect.Effect<Charged | AuthenticationRequired, CardDeclined> => {
        if (request.last4 === declinedLast4)
          return Effect.fail(new CardDeclined({ code: "card_declined", reason: "the card was declined" }))
        const earlier = charges.get(request.idempotencyKey)
        if (request.last4 === authenticationLast4) {
          if (earlier === undefined) {
            counter += 1
            charges.set(request.idempotencyKey, {
              processorReference: `pi_sandbox_${String(counter).padStart(6, "0")}`,
              refunded: false,
            })
          }
          const reference = charges.get(request.idempotencyKey)?.processorReference ?? ""
          const answer: AuthenticationRequired = {
            _tag: "AuthenticationRequired",
            processorReference: reference,
            clientSecret: `${reference}_secret_sandbox`,
            nextAction: "use_stripe_sdk",
          }
          return Effect.succeed(answer)
        }
        if (earlier !== undefined)
          return Effect.succeed({
            processorReference: earlier.processorReference,
            ...(earlier.availableAt === undefined ? {} : { availableAt: earlier.availableAt }),
          })
        counter += 1
        const processorReference = `ch_sandbox_${String(counter).padStart(6, "0")}`
        const after = options.availableAfterMillis
        return Effect.map(DateTime.now, (now) => {
          const availableAt = after === undefined ? undefined : DateTime.add(now, { milliseconds: after })
          charges.set(request.idempotencyKey, {
            processorReference,
            refunded: false,
            ...(availableAt === undefined ? {} : { availableAt }),
          })
          return { processorReference, ...(availableAt === undefined ? {} : { availableAt }) }
        })
      }),
    refund: (processorReference, partial) =>
      Effect.sync((): RefundAnswer => {
        if (partial !== undefined) {
          refunds.set(partial.idempotencyKey, { processorReference, amount: partial.amount })
          return "Completed"
        }
        for (const charge of charges.values())
          if (charge.processorReference === processorReference) charge.refunded = true
        return "Completed"
      }),
  })
  return Object.assign(service, {
    charges: () => [...charges.entries()].map(([key, charge]) => ({ idempotencyKey: key, ...charge })),
    refunds: () => [...refunds.entries()].map(([key, refund]) => ({ idempotencyKey: key, ...refund })),
  })
}
