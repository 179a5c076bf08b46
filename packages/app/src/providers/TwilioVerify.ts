/**
 * `OtpSender` on Twilio Verify (`PARTNERPAY_PROVIDER_OTP=twilio`): the
 * provider owns the one-time codes. `send` starts a verification of the
 * number on the SMS channel (Twilio makes and sends the code, and applies its
 * own rate limits; the code partnerpay passes is ignored), `verify` checks a
 * typed code (`Approved` when Twilio answers `approved`). The login rules
 * (expiry, attempts, locks) stay in the domain's `LoginChallenge`.
 *
 * Twilio's answers, mapped:
 * - start: 2xx -> sent; 400 60200 (invalid number), 60205 (landline: SMS not
 *   supported), 60203 (max send attempts), 60410 / 60605 (blocked) and other
 *   4xx about the number -> `OtpDeliveryFailed`;
 * - check: 2xx `approved` -> Approved, any other status -> Rejected; 404
 *   (no pending verification: expired, already approved, never started) and
 *   60202 (max check attempts) -> Rejected;
 * - 5xx, timeout, connection error, 401/403 (credentials) -> `ProviderUnavailable`.
 */
import { CustomerProviders } from "@partnerpay/domain"
import { Effect, Layer } from "effect"
import * as TwilioClient from "./TwilioClient.ts"

export type { TwilioConfig } from "./TwilioClient.ts"

const provider = "Twilio Verify"

/** Refusals of a start that say the number cannot get a code now. */
const undeliverable = new Set([60200, 60203, 60205, 60410, 60605, 21211, 21408, 21610, 21614])

export const make = (config: TwilioClient.TwilioConfig) => {
  const client = TwilioClient.make(config)
  const service = client.verify.v2.services(config.verifyServiceSid ?? "")
  return CustomerProviders.OtpSender.of({
    send: ({ phoneNumber }) =>
      TwilioClient.call(
        provider,
        "start verification",
        () => service.verifications.create({ to: phoneNumber, channel: "sms" }),
        (refusal) =>
          refusal.code !== undefined && undeliverable.has(refusal.code)
            ? Effect.fail(new CustomerProviders.OtpDeliveryFailed({ reason: `Twilio error ${refusal.code}` }))
            : TwilioClient.unexpected(provider, "start verification")(refusal),
      ).pipe(Effect.asVoid),
    verify: ({ phoneNumber, code }) =>
      TwilioClient.call(
        provider,
        "check verification",
        () => service.verificationChecks.create({ to: phoneNumber, code }),
        (refusal) =>
          refusal.status === 404 || refusal.code === 60202 || refusal.code === 20404
            ? Effect.succeed("Rejected" as const)
            : TwilioClient.unexpected(provider, "check verification")(refusal),
      ).pipe(
        Effect.map(
          (answer): CustomerProviders.OtpVerdict =>
            typeof answer === "string" ? answer : answer.status === "approved" ? "Approved" : "Rejected",
        ),
      ),
  })
}

export const layer = (config: TwilioClient.TwilioConfig): Layer.Layer<CustomerProviders.OtpSender> =>
  Layer.sync(CustomerProviders.OtpSender, () => make(config))
