/**
 * The external providers and edge secrets the handlers need.
 *
 * Sandbox: adapters-http's `CustomerIdentityPorts.layerSandbox` (customer OTP
 * codes are always 123456, OTP messages are recorded in memory, bank linking
 * and KYC are the domain's sandboxes, public test chat secret) and a sandbox
 * e-signature provider. Production: random OTP codes keyed with
 * PARTNERPAY_OTP_SECRET and the chat secret PARTNERPAY_CHAT_SECRET; the
 * providers themselves are still the sandboxes (no production integration
 * exists yet; README.md says so).
 */

import { CustomerIdentityPorts } from "@partnerpay/adapters-http"
import { Providers } from "@partnerpay/domain"
import { Effect, Layer, Option, Redacted } from "effect"
import type { AppConfig } from "./Config.ts"

/** E-signature: envelopes are not sent anywhere; the signing URL names the envelope. */
export const layerESignatureSandbox: Layer.Layer<Providers.ESignature> = Layer.succeed(
  Providers.ESignature,
  Providers.ESignature.of({
    createReimbursementEnvelope: (request) =>
      Effect.sync(() => {
        const envelopeId = crypto.randomUUID()
        return {
          envelopeId,
          signingUrl: `https://sandbox.partnerpay.invalid/sign/${envelopeId}?transfer=${request.transferId}`,
        }
      }),
  }),
)

export const layer = (config: AppConfig) =>
  Layer.merge(
    config.environment === "sandbox"
      ? CustomerIdentityPorts.layerSandbox
      : CustomerIdentityPorts.layer({
          // Both are required in production by Config.ts.
          otpSecret: Option.getOrElse(config.otpSecret, () => Redacted.make("")),
          chatSecret: Option.getOrElse(config.chatSecret, () => Redacted.make("")),
        }),
    layerESignatureSandbox,
  )
