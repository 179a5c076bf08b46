/**
 * `SettlementProvider` over the HTTP bridge (docs/providers.md, "Settlement").
 *
 * `status` `{ transferId, amount: { minorUnits, currency } }` ->
 * `{ status: "Pending" }` | `{ status: "Settled" }` |
 * `{ status: "Failed", returnCode, reason }` (an ACH return code such as R01).
 */
import { PaymentProviders } from "@partnerpay/domain"
import { Effect, type Layer, Schema } from "effect"
import * as HttpBridge from "./HttpBridge.ts"

const Outcome = Schema.Union([
  Schema.Struct({ status: Schema.Literal("Pending") }),
  Schema.Struct({ status: Schema.Literal("Settled") }),
  Schema.Struct({ status: Schema.Literal("Failed"), returnCode: Schema.String, reason: Schema.String }),
])

export const make = (bridge: HttpBridge.Bridge) =>
  PaymentProviders.SettlementProvider.of({
    status: (request) => Effect.flatMap(bridge.call("status", request), HttpBridge.expect(bridge, "status", Outcome)),
  })

export const layer = (config: HttpBridge.BridgeConfig): Layer.Layer<PaymentProviders.SettlementProvider> =>
  HttpBridge.layer(PaymentProviders.SettlementProvider, "settlement provider", config, make)
