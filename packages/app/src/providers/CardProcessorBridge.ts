/**
 * `CardProcessor` over the HTTP bridge (docs/providers.md, "Card processor").
 *
 * - `card-setups` `{ partnerId, registrationId }` -> `{ setupIntentId, clientSecret }`: a card setup the app
 *   completes with the processor's SDK (the card is then saved by the processor's integration)
 * - `card-methods` `{ registrationId }` -> `{ cards: [{ id, type, brand, last4, expMonth, expYear }] }`
 * - `card-payments` `{ cardPaymentId, merchantId, amount: { minorUnits, currency }, externalReference }`
 *   -> `{ processorReference, availableAt? }` (ISO 8601: when the money is available to the company;
 *   absent: at once); 422 `{ code, reason }`: refused (`CardProcessorRefused`)
 *
 * And `CardCharger` (in-app payment of a payment request with a saved card) on the same bridge:
 *
 * - `card-charges` `{ idempotencyKey, paymentMethodId, last4, amount: { minorUnits, currency }, description }`
 *   -> `{ processorReference, availableAt? }`; 402 `{ code, reason }`: the card was declined (`CardDeclined`);
 *   `{ requiresAuthentication: { processorReference, clientSecret, nextAction } }`: the issuer asks for the
 *   payer's authentication (3-D Secure, `AuthenticationRequired`), whose outcome the bridge notifies later
 *   (`AuthenticationOutcome`, CardProcessorCallbacks.ts).
 *   The processor charges once per `idempotencyKey` (the payment request id) and answers a repeated
 *   key with the first charge.
 * - `card-refunds` `{ processorReference, idempotencyKey?, amount? }` -> any 2xx: the charge given back,
 *   all of it, or `amount` once per `idempotencyKey` (a card refund's id, POST /Transaction/{id}/Refund).
 */
import { CardCharger, CustomerProviders } from "@partnerpay/domain"
import { Effect, Layer, Schema } from "effect"
import * as HttpBridge from "./HttpBridge.ts"

const Cards = Schema.Struct({
  cards: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      type: Schema.String,
      brand: Schema.String,
      last4: Schema.String.check(Schema.isPattern(/^\d{4}$/)),
      expMonth: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 12 })),
      expYear: Schema.Int,
    }),
  ),
})
/** The processor's reference, and when it makes the money available to the company (absent: at once). */
const Registered = Schema.Struct({
  processorReference: Schema.String,
  availableAt: Schema.optionalKey(Schema.DateTimeUtcFromString),
})
/** A charge's answer: charged, or waiting for the payer's authentication. */
const Charged = Schema.Union([
  Registered,
  Schema.Struct({
    requiresAuthentication: Schema.Struct({
      processorReference: Schema.String.check(Schema.isNonEmpty()),
      clientSecret: Schema.String.check(Schema.isNonEmpty()),
      nextAction: Schema.String,
    }),
  }),
])
const Refusal = Schema.Struct({ code: Schema.String, reason: Schema.String })
const Setup = Schema.Struct({
  setupIntentId: Schema.String.check(Schema.isNonEmpty()),
  clientSecret: Schema.String.check(Schema.isNonEmpty()),
})

export const make = (bridge: HttpBridge.Bridge) =>
  CustomerProviders.CardProcessor.of({
    setupCard: (payer) =>
      Effect.flatMap(
        bridge.call("card-setups", { partnerId: payer.partnerId, registrationId: payer.registrationId }),
        HttpBridge.expect(bridge, "card-setups", Setup),
      ),
    listCardMethods: (registrationId) =>
      bridge.call("card-methods", { registrationId }).pipe(
        Effect.flatMap(HttpBridge.expect(bridge, "card-methods", Cards)),
        Effect.map(({ cards }) => cards),
      ),
    registerCardPayment: (request) =>
      Effect.flatMap(
        bridge.call("card-payments", request),
        HttpBridge.expect(bridge, "card-payments", Registered, {
          422: HttpBridge.refusal(
            bridge,
            "card-payments",
            Refusal,
            (body) => new CustomerProviders.CardProcessorRefused(body),
          ),
        }),
      ),
  })

/** The charge and refund operations of the same processor. */
export const makeCharger = (bridge: HttpBridge.Bridge) =>
  CardCharger.CardCharger.of({
    charge: (request) =>
      Effect.flatMap(
        bridge.call("card-charges", {
          idempotencyKey: request.idempotencyKey,
          paymentMethodId: request.paymentMethodId,
          last4: request.last4,
          amount: { minorUnits: request.amount.minorUnits, currency: request.amount.currency },
          description: request.description,
        }),
        HttpBridge.expect(bridge, "card-charges", Charged, {
          402: HttpBridge.refusal(bridge, "card-charges", Refusal, (body) => new CardCharger.CardDeclined(body)),
        }),
      ).pipe(
        Effect.map((answer): CardCharger.Charged | CardCharger.AuthenticationRequired =>
          "requiresAuthentication" in answer
            ? { _tag: "AuthenticationRequired", ...answer.requiresAuthentication }
            : answer,
        ),
      ),
    refund: (processorReference, partial) =>
      Effect.as("Completed" as const)(
        Effect.flatMap(
          bridge.call("card-refunds", {
            processorReference,
            ...(partial === undefined
              ? {}
              : {
                  idempotencyKey: partial.idempotencyKey,
                  amount: { minorUnits: partial.amount.minorUnits, currency: partial.amount.currency },
                }),
          }),
          HttpBridge.expect(bridge, "card-refunds", Schema.Unknown),
        ),
      ),
  })

export const layer = (
  config: HttpBridge.BridgeConfig,
): Layer.Layer<CustomerProviders.CardProcessor | CardCharger.CardCharger> =>
  Layer.merge(
    HttpBridge.layer(CustomerProviders.CardProcessor, "card processor", config, make),
    HttpBridge.layer(CardCharger.CardCharger, "card processor", config, makeCharger),
  )
