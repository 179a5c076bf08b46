/**
 * `OtpSender` over the HTTP bridge (docs/providers.md, "OTP sender").
 *
 * `send` `{ phoneNumber, code }` -> 2xx: delivered (any JSON object);
 * 422 `{ reason }`: the number cannot receive the code (`OtpDeliveryFailed`).
 */
import { CustomerProviders } from "@partnerpay/domain"
import { Effect, type Layer, Schema } from "effect"
import * as HttpBridge from "./HttpBridge.ts"

const Delivered = Schema.Struct({})
const Refusal = Schema.Struct({ reason: Schema.String })

export const make = (bridge: HttpBridge.Bridge) =>
  CustomerProviders.OtpSender.of({
    send: (request) =>
      bridge.call("send", request).pipe(
        Effect.flatMap(
          HttpBridge.expect(bridge, "send", Delivered, {
            422: HttpBridge.refusal(
              bridge,
              "send",
              Refusal,
              ({ reason }) => new CustomerProviders.OtpDeliveryFailed({ reason }),
            ),
          }),
        ),
        Effect.asVoid,
      ),
  })

export const layer = (config: HttpBridge.BridgeConfig): Layer.Layer<CustomerProviders.OtpSender> =>
  HttpBridge.layer(CustomerProviders.OtpSender, "OTP sender", config, make)
