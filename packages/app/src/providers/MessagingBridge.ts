/**
 * The message channels (SMS, e-mail, push) over the HTTP bridge
 * (docs/providers.md, "Messages"): one `send` operation per channel's bridge,
 * `{ channel, to, template, partnerId, registrationId?, paymentRequestId? }`
 * -> 2xx: sent (any JSON object); 422 `{ reason }`: the address cannot
 * receive it (`MessageUndeliverable`). Push has no first-party adapter: its
 * bridge is how an operator plugs in FCM, APNs or Web Push.
 */
import { Messaging } from "@partnerpay/domain"
import { Effect, type Layer, Schema } from "effect"
import * as HttpBridge from "./HttpBridge.ts"

const Sent = Schema.Struct({})
const Refusal = Schema.Struct({ reason: Schema.String })

export const make = (channel: Messaging.Channel) => (bridge: HttpBridge.Bridge) => ({
  send: (message: Messaging.OutgoingMessage) =>
    bridge
      .call("send", {
        channel,
        to: message.to,
        template: message.template,
        partnerId: message.partnerId,
        ...(message.registrationId === undefined ? {} : { registrationId: message.registrationId }),
        ...(message.paymentRequestId === undefined ? {} : { paymentRequestId: message.paymentRequestId }),
      })
      .pipe(
        Effect.flatMap(
          HttpBridge.expect(bridge, "send", Sent, {
            422: HttpBridge.refusal(
              bridge,
              "send",
              Refusal,
              ({ reason }) => new Messaging.MessageUndeliverable({ channel, reason }),
            ),
          }),
        ),
        Effect.asVoid,
      ),
})

export const smsLayer = (config: HttpBridge.BridgeConfig): Layer.Layer<Messaging.SmsSender> =>
  HttpBridge.layer(Messaging.SmsSender, "SMS provider", config, make("sms"))

export const emailLayer = (config: HttpBridge.BridgeConfig): Layer.Layer<Messaging.EmailSender> =>
  HttpBridge.layer(Messaging.EmailSender, "e-mail provider", config, make("email"))

export const pushLayer = (config: HttpBridge.BridgeConfig): Layer.Layer<Messaging.PushSender> =>
  HttpBridge.layer(Messaging.PushSender, "push provider", config, make("push"))
