/**
 * The external providers and edge secrets the handlers need.
 *
 * Sandbox: adapters-http's `CustomerIdentityPorts.layerSandbox` (customer OTP
 * codes are always 123456, OTP messages are recorded in memory, bank linking
 * and KYC are the domain's sandboxes, public test chat secret) and the
 * domain's deterministic e-signature sandbox (`Transfers.eSignatureSandbox`).
 * Production: random OTP codes keyed with PARTNERPAY_OTP_SECRET and the chat secret PARTNERPAY_CHAT_SECRET; the
 * providers themselves are still the sandboxes (no production integration
 * exists yet; README.md says so).
 *
 * Messages to customers (`messaging`, sandbox only): the SMS, push and e-mail
 * senders record every message in the database (`sent_messages`, read at
 * GET /Sandbox/Messages) instead of sending it, and the OTP sender is one use
 * of the SMS sender. Production has no message senders yet (docs/decisions.md).
 */

import { CustomerIdentityPorts } from "@partnerpay/adapters-http"
import { PgSentMessages } from "@partnerpay/adapters-pg"
import { type IdGenerator, Messaging, type Providers, Transfers } from "@partnerpay/domain"
import { Layer, Option, Redacted } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { AppConfig } from "./Config.ts"

export const layer = (config: AppConfig) =>
  Layer.merge(
    config.environment === "sandbox"
      ? CustomerIdentityPorts.layerSandbox
      : CustomerIdentityPorts.layer({
          // Both are required in production by Config.ts.
          otpSecret: Option.getOrElse(config.otpSecret, () => Redacted.make("")),
          chatSecret: Option.getOrElse(config.chatSecret, () => Redacted.make("")),
        }),
    Transfers.eSignatureSandbox,
  )

/**
 * Sandbox messaging: the recording SMS, push and e-mail senders on the
 * database message log, and the OTP sender over the SMS sender (it replaces the
 * in-memory OTP sender of `layer`: merge this after it).
 */
export const messaging: Layer.Layer<
  Messaging.Senders | Messaging.SentMessages | Providers.OtpSender,
  never,
  SqlClient | IdGenerator
> = Layer.provideMerge(Messaging.otpSenderOverSms, Messaging.layerRecording).pipe(
  Layer.provideMerge(PgSentMessages.layer()),
)
