/**
 * `SmsSender` on Twilio Messaging (`PARTNERPAY_PROVIDER_SMS=twilio`): payment
 * reminders and status messages as SMS from the operator's Messaging service
 * (`PARTNERPAY_TWILIO_MESSAGING_SERVICE_SID`), worded by `MessageTexts`.
 *
 * Twilio's refusals about the recipient (21211 invalid number, 21408 region
 * not enabled, 21610 the recipient answered STOP, 21614 not a mobile number)
 * are `MessageUndeliverable` (the notifier logs and skips them); 5xx,
 * timeouts and credential refusals are `ProviderUnavailable` (retried).
 */
import { Messaging } from "@partnerpay/domain"
import { Effect, Layer } from "effect"
import { textOf } from "./MessageTexts.ts"
import * as TwilioClient from "./TwilioClient.ts"

const provider = "Twilio Messaging"

const undeliverable = new Set([21211, 21408, 21610, 21612, 21614, 30003, 30005, 30006])

export const make = (config: TwilioClient.TwilioConfig) => {
  const client = TwilioClient.make(config)
  return Messaging.SmsSender.of({
    send: (message) =>
      TwilioClient.call(
        provider,
        "send message",
        () =>
          client.messages.create({
            to: message.to,
            body: textOf(message).body,
            messagingServiceSid: config.messagingServiceSid ?? "",
          }),
        (refusal) =>
          refusal.code !== undefined && undeliverable.has(refusal.code)
            ? Effect.fail(
                new Messaging.MessageUndeliverable({ channel: "sms", reason: `Twilio error ${refusal.code}` }),
              )
            : TwilioClient.unexpected(provider, "send message")(refusal),
      ).pipe(Effect.asVoid),
  })
}

export const layer = (config: TwilioClient.TwilioConfig): Layer.Layer<Messaging.SmsSender> =>
  Layer.sync(Messaging.SmsSender, () => make(config))
