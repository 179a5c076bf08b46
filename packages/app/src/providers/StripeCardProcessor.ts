/**
 * The card processor port (`CardProcessor`) and its charge operation
 * (`CardCharger`) on Stripe (PARTNERPAY_PROVIDER_CARD_PROCESSOR=stripe), on
 * the official `stripe` SDK (`StripeClient.ts`). docs/providers.md, "Stripe".
 *
 * - A payer is a Stripe Customer, made on first need (`customers.create`,
 *   Idempotency-Key `partnerpay-customer-<registrationId>`) and kept sealed
 *   with the payer in the providers' store as the Dwolla customers are
 *   (`DwollaStore`: `provider_funding_sources`, provider `Stripe`, owner
 *   `payer:<registrationId>`, sealed for `customer:<registrationId>`, so the
 *   payer's erasure makes it unreadable; the first kept wins).
 * - Saved cards (`listCardMethods`) are the customer's card PaymentMethods
 *   (`customers.listPaymentMethods`, type `card`); a payer without a customer
 *   has none (no call). A card is added by the app through a SetupIntent
 *   (`setupCard`: its client secret, confirmed by Stripe's SDK in the app).
 * - `charge` (in-app payment of a payment request): a PaymentIntent on the
 *   card's customer, confirmed off-session, Idempotency-Key the payment
 *   request id (a retry answers the first PaymentIntent, never a second
 *   charge); metadata `partnerpay_payment_request_id`. A decline is
 *   `CardDeclined` with Stripe's decline code. 3-D Secure is Stripe's own
 *   flow, not a decline: a card whose issuer wants the payer's
 *   authentication is refused off-session as `authentication_required` with
 *   its PaymentIntent (or the PaymentIntent is left `requires_action`); both
 *   are `AuthenticationRequired` with the PaymentIntent's id and client
 *   secret, which the app (the payer is there) confirms on-session with
 *   Stripe.js (`confirmCardPayment(clientSecret, { payment_method })`, or
 *   `handleNextAction`); Stripe's `payment_intent.succeeded` /
 *   `payment_intent.payment_failed` webhook then completes or fails it
 *   (`StripeCallbacks.ts`). The processor's reference is the
 *   PaymentIntent id, and the money is available on its charge's balance
 *   transaction's `available_on`.
 * - `registerCardPayment` (POST /cardpayment): `externalReference` names a
 *   Stripe PaymentIntent (`pi_...`) or charge (`ch_...`) made elsewhere (a
 *   terminal); it is retrieved, must have succeeded for the same amount and
 *   currency, and is tagged `partnerpay_card_payment_id` (its disputes and
 *   refunds name it). Another reference is refused (`stripe_reference_required`).
 * - `refund`: a Stripe Refund of the PaymentIntent (or charge), Idempotency-Key
 *   the card refund's id, metadata naming the refund and the card payment.
 *   Stripe's `succeeded` is done (`Completed`); `pending` (or
 *   `requires_action`, `failed`, `canceled`) is `Pending`: the refund stays
 *   Pending, not retried, until Stripe's `refund.updated` / `refund.failed` /
 *   `charge.refunded` webhook (`StripeCallbacks.ts`) decides it. A call
 *   that fails or times out is unavailable: the refund is retried.
 */
import { CardCharger, CustomerProviders, type Money, Providers, Traced } from "@partnerpay/domain"
import { Data, DateTime, Effect, Layer } from "effect"
import type Stripe from "stripe"
import * as DwollaStore from "./DwollaStore.ts"
import * as StripeClient from "./StripeClient.ts"

/** Metadata keys partnerpay writes on Stripe objects (the webhooks read them back). */
export const metadataKeys = {
  paymentRequestId: "partnerpay_payment_request_id",
  cardPaymentId: "partnerpay_card_payment_id",
  refundId: "partnerpay_refund_id",
  registrationId: "partnerpay_registration_id",
  partnerId: "partnerpay_partner_id",
} as const

/** The providers' store key of a payer's Stripe customer. */
export const payerKey = (registrationId: string): string => `payer:${registrationId}`

/** Where the payer's customer is kept (the service's database; tests give their own). */
export interface CustomerStore {
  readonly find: (ownerId: string) => Effect.Effect<string | undefined, Providers.ProviderUnavailable>
  readonly keep: (ownerId: string, customerId: string) => Effect.Effect<string, Providers.ProviderUnavailable>
}

/** The store on the service's database (`provider_funding_sources`, provider `Stripe`). */
export const currentStore: Effect.Effect<CustomerStore> = Effect.map(
  DwollaStore.currentFor(StripeClient.provider),
  (store) => ({
    find: store.find,
    keep: store.keep,
  }),
)

const toMinor = (amount: Money.Money) => ({ amount: amount.minorUnits, currency: amount.currency.toLowerCase() })

/** When the charge's money is available to the account (its balance transaction), if Stripe says. */
export const availableAtOf = (charge: Stripe.Charge | string | null): DateTime.Utc | undefined => {
  if (charge === null || typeof charge === "string") return undefined
  const transaction = charge.balance_transaction
  if (transaction === null || typeof transaction === "string") return undefined
  return DateTime.makeUnsafe(transaction.available_on * 1000)
}

/** Stripe's refusal of a charge: the authentication it asks for, a decline, or unavailable. */
const declined = (refusal: StripeClient.StripeRefusal | StripeClient.StripeDecline) => {
  if (refusal._tag === "StripeDecline" && refusal.code === "authentication_required" && refusal.paymentIntent)
    return new AuthenticationAsked({
      answer: {
        _tag: "AuthenticationRequired",
        processorReference: refusal.paymentIntent.id,
        clientSecret: refusal.paymentIntent.clientSecret,
        nextAction: "confirm_card_payment",
      },
    })
  return refusal._tag === "StripeDecline"
    ? new CardCharger.CardDeclined({ code: refusal.code, reason: refusal.reason })
    : new Providers.ProviderUnavailable({ provider: StripeClient.provider, reason: `refused (${refusal.code})` })
}

/** Stripe asked for the payer's authentication in a card error (carried out of the SDK's call, then answered). */
class AuthenticationAsked extends Data.TaggedError("AuthenticationAsked")<{
  readonly answer: CardCharger.AuthenticationRequired
}> {}

/** The adapter's operations on one Stripe client and customer store. */
export const make = (stripe: Stripe, store: CustomerStore) => {
  /** The payer's customer, if made. */
  const customerOf = (registrationId: string) => store.find(payerKey(registrationId))

  /** The payer's customer, made on first need (the first kept wins if two are made at once). */
  const ensureCustomer = (registrationId: string, partnerId: string) =>
    Effect.flatMap(customerOf(registrationId), (kept) => {
      if (kept !== undefined) return Effect.succeed(kept)
      const params: Stripe.CustomerCreateParams = {
        metadata: { [metadataKeys.registrationId]: registrationId, [metadataKeys.partnerId]: partnerId },
      }
      return StripeClient.call("customers.create", () =>
        stripe.customers.create(params, { idempotencyKey: `partnerpay-customer-${registrationId}` }),
      ).pipe(Effect.flatMap((customer) => store.keep(payerKey(registrationId), customer.id)))
    })

  const processor = CustomerProviders.CardProcessor.of({
    setupCard: (payer) =>
      Effect.map(setupCard(payer.registrationId, payer.partnerId), ({ setupIntentId, clientSecret }) => ({
        setupIntentId,
        clientSecret,
      })),
    listCardMethods: (registrationId) =>
      Effect.flatMap(customerOf(registrationId), (customer) => {
        if (customer === undefined) return Effect.succeed([])
        const params: Stripe.CustomerListPaymentMethodsParams = { type: "card", limit: 100 }
        return StripeClient.call("customers.listPaymentMethods", () =>
          stripe.customers.listPaymentMethods(customer, params),
        ).pipe(
          Effect.map((list) =>
            list.data.flatMap((method) =>
              method.card === undefined || method.card === null
                ? []
                : [
                    {
                      id: method.id,
                      type: "card",
                      brand: method.card.brand,
                      last4: method.card.last4,
                      expMonth: method.card.exp_month,
                      expYear: method.card.exp_year,
                    },
                  ],
            ),
          ),
        )
      }),
    registerCardPayment: Traced.fn("StripeCardProcessor.registerCardPayment")(function* (request) {
      const reference = request.externalReference
      const refused = (code: string, reason: string) =>
        Effect.fail(new CustomerProviders.CardProcessorRefused({ code, reason }))
      const notFound = (refusal: StripeClient.StripeRefusal | StripeClient.StripeDecline) =>
        refusal._tag === "StripeRefusal" && refusal.status === 404
          ? new CustomerProviders.CardProcessorRefused({
              code: "stripe_reference_unknown",
              reason: "Stripe has no payment with this reference",
            })
          : new Providers.ProviderUnavailable({ provider: StripeClient.provider, reason: "refused" })
      const tag = { metadata: { [metadataKeys.cardPaymentId]: request.cardPaymentId } }
      const options = { idempotencyKey: `partnerpay-card-payment-${request.cardPaymentId}` }
      let found: { amount: number; currency: string; succeeded: boolean; charge: Stripe.Charge | string | null }
      if (reference.startsWith("pi_")) {
        const params: Stripe.PaymentIntentRetrieveParams = { expand: ["latest_charge.balance_transaction"] }
        const intent = yield* StripeClient.call(
          "paymentIntents.retrieve",
          () => stripe.paymentIntents.retrieve(reference, params),
          notFound,
        )
        found = {
          amount: intent.amount_received,
          currency: intent.currency,
          succeeded: intent.status === "succeeded",
          charge: intent.latest_charge,
        }
      } else if (reference.startsWith("ch_")) {
        const params: Stripe.ChargeRetrieveParams = { expand: ["balance_transaction"] }
        const charge = yield* StripeClient.call(
          "charges.retrieve",
          () => stripe.charges.retrieve(reference, params),
          notFound,
        )
        found = { amount: charge.amount, currency: charge.currency, succeeded: charge.status === "succeeded", charge }
      } else {
        return yield* refused(
          "stripe_reference_required",
          "the external reference must name the Stripe PaymentIntent (pi_...) or charge (ch_...) of the payment",
        )
      }
      const expected = toMinor(request.amount)
      if (!found.succeeded) return yield* refused("payment_not_succeeded", "the Stripe payment has not succeeded")
      if (found.amount !== expected.amount || found.currency !== expected.currency)
        return yield* refused("amount_mismatch", "the Stripe payment is for another amount or currency")
      if (reference.startsWith("pi_")) {
        const params: Stripe.PaymentIntentUpdateParams = tag
        yield* StripeClient.call("paymentIntents.update", () =>
          stripe.paymentIntents.update(reference, params, options),
        )
      } else {
        const params: Stripe.ChargeUpdateParams = tag
        yield* StripeClient.call("charges.update", () => stripe.charges.update(reference, params, options))
      }
      const availableAt = availableAtOf(found.charge)
      return { processorReference: reference, ...(availableAt === undefined ? {} : { availableAt }) }
    }),
  })

  const charger = CardCharger.CardCharger.of({
    charge: Traced.fn("StripeCardProcessor.charge")(function* (request) {
      const method = yield* StripeClient.call("paymentMethods.retrieve", () =>
        stripe.paymentMethods.retrieve(request.paymentMethodId),
      )
      const customer = StripeClient.idOf(method.customer)
      const params: Stripe.PaymentIntentCreateParams = {
        ...toMinor(request.amount),
        payment_method: request.paymentMethodId,
        ...(customer === undefined ? {} : { customer }),
        confirm: true,
        off_session: true,
        description: request.description,
        metadata: { [metadataKeys.paymentRequestId]: request.paymentRequestId ?? request.idempotencyKey },
        expand: ["latest_charge.balance_transaction"],
      }
      const created = yield* StripeClient.call(
        "paymentIntents.create",
        () => stripe.paymentIntents.create(params, { idempotencyKey: request.idempotencyKey }),
        declined,
      ).pipe(Effect.catchTag("AuthenticationAsked", (asked) => Effect.succeed(asked.answer)))
      if ("_tag" in created) return created
      const intent = created
      if (intent.status === "requires_action" && intent.client_secret !== null) {
        const answer: CardCharger.AuthenticationRequired = {
          _tag: "AuthenticationRequired",
          processorReference: intent.id,
          clientSecret: intent.client_secret,
          nextAction: intent.next_action?.type ?? "use_stripe_sdk",
        }
        return answer
      }
      if (intent.status !== "succeeded" && intent.status !== "processing")
        return yield* new CardCharger.CardDeclined({
          code: intent.last_payment_error?.decline_code ?? intent.last_payment_error?.code ?? "card_declined",
          reason: "the card was declined",
        })
      const availableAt = availableAtOf(intent.latest_charge)
      return { processorReference: intent.id, ...(availableAt === undefined ? {} : { availableAt }) }
    }),
    refund: Traced.fn("StripeCardProcessor.refund")(function* (processorReference, partial) {
      const target = processorReference.startsWith("ch_")
        ? { charge: processorReference }
        : { payment_intent: processorReference }
      const params: Stripe.RefundCreateParams = {
        ...target,
        ...(partial === undefined
          ? {}
          : {
              amount: partial.amount.minorUnits,
              metadata: {
                [metadataKeys.refundId]: partial.idempotencyKey,
                ...(partial.cardPaymentId === undefined ? {} : { [metadataKeys.cardPaymentId]: partial.cardPaymentId }),
              },
            }),
      }
      const key = partial?.idempotencyKey ?? `partnerpay-refund-all-${processorReference}`
      const refund = yield* StripeClient.call("refunds.create", () =>
        stripe.refunds.create(params, { idempotencyKey: key }),
      )
      // Stripe's `pending` (or `requires_action`, `failed`, `canceled`): its webhook decides.
      return refund.status === "succeeded" ? ("Completed" as const) : ("Pending" as const)
    }),
  })

  /**
   * A SetupIntent for the payer to add a card in the app (its client secret; the customer made on need).
   * Stripe's `setup_intent.succeeded` then saves the card with the payer (StripeCallbacks.ts).
   */
  const setupCard = Traced.fn("StripeCardProcessor.setupCard")(function* (registrationId: string, partnerId: string) {
    const customer = yield* ensureCustomer(registrationId, partnerId)
    const params: Stripe.SetupIntentCreateParams = {
      customer,
      usage: "off_session",
      metadata: { [metadataKeys.registrationId]: registrationId, [metadataKeys.partnerId]: partnerId },
    }
    const intent = yield* StripeClient.call("setupIntents.create", () => stripe.setupIntents.create(params))
    if (intent.client_secret === null)
      return yield* new Providers.ProviderUnavailable({
        provider: StripeClient.provider,
        reason: "setupIntents.create: no client secret",
      })
    return { setupIntentId: intent.id, clientSecret: intent.client_secret, customerId: customer }
  })

  return { processor, charger, setupCard, ensureCustomer }
}

/** The layer of PARTNERPAY_PROVIDER_CARD_PROCESSOR=stripe. */
export const layer = (
  config: StripeClient.StripeConfig,
): Layer.Layer<CustomerProviders.CardProcessor | CardCharger.CardCharger> =>
  Layer.unwrap(
    Effect.map(currentStore, (store) => {
      const adapter = make(StripeClient.client(config), store)
      return Layer.merge(
        Layer.succeed(CustomerProviders.CardProcessor, adapter.processor),
        Layer.succeed(CardCharger.CardCharger, adapter.charger),
      )
    }),
  )
