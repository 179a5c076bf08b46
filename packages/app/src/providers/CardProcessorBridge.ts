/**
 * `CardProcessor` over the HTTP bridge (docs/providers.md, "Card processor").
 *
 * - `card-methods` `{ registrationId }` -> `{ cards: [{ id, type, brand, last4, expMonth, expYear }] }`
 * - `card-payments` `{ cardPaymentId, merchantId, amount: { minorUnits, currency }, externalReference }`
 *   -> `{ processorReference }`; 422 `{ code, reason }`: refused (`CardProcessorRefused`)
 */
import { Providers } from "@partnerpay/domain"
import { Effect, type Layer, Schema } from "effect"
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
const Registered = Schema.Struct({ processorReference: Schema.String })
const Refusal = Schema.Struct({ code: Schema.String, reason: Schema.String })

export const make = (bridge: HttpBridge.Bridge) =>
  Providers.CardProcessor.of({
    listCardMethods: (registrationId) =>
      bridge.call("card-methods", { registrationId }).pipe(
        Effect.flatMap(HttpBridge.expect(bridge, "card-methods", Cards)),
        Effect.map(({ cards }) => cards),
      ),
    registerCardPayment: (request) =>
      Effect.flatMap(
        bridge.call("card-payments", request),
        HttpBridge.expect(bridge, "card-payments", Registered, {
          422: HttpBridge.refusal(bridge, "card-payments", Refusal, (body) => new Providers.CardProcessorRefused(body)),
        }),
      ),
  })

export const layer = (config: HttpBridge.BridgeConfig): Layer.Layer<Providers.CardProcessor> =>
  HttpBridge.layer(Providers.CardProcessor, "card processor", config, make)
