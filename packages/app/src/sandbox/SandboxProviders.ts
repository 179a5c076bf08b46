/**
 * The external providers and edge secrets the handlers need, per environment.
 *
 * Sandbox: adapters-http's `CustomerIdentityPorts.layerSandbox` (customer OTP
 * codes are always 123456, OTP messages are recorded in memory, bank linking
 * and KYC are the domain's sandboxes, public test chat secret) and the
 * domain's deterministic e-signature sandbox (`Transfers.eSignatureSandboxWith`:
 * the sandbox payer signs a reimbursement envelope after the settlement delay).
 *
 * Production: random OTP codes keyed with PARTNERPAY_OTP_SECRET, the chat
 * secret PARTNERPAY_CHAT_SECRET, and every provider port on its operator's
 * HTTP bridge (`providers/ProviderPorts.ts`). No sandbox provider is ever
 * part of the production layer: a port without a bridge refuses the start
 * (Config.ts already refuses such a configuration; the layer checks again).
 *
 * Messages to customers: in the sandbox (`messaging`) the SMS, push and e-mail
 * senders record every message in the database (`sent_messages`, read at
 * GET /Sandbox/Messages) instead of sending it, and the OTP sender is one use
 * of the SMS sender. In production each channel is a provider port
 * (`SMS`, `EMAIL`, `PUSH`: Twilio Messaging, SMTP or a bridge); a channel
 * left unset is skipped (its messages are undeliverable and logged).
 */
import { CustomerIdentityPorts } from "@partnerpay/adapters-http"
import { PgSentMessages } from "@partnerpay/adapters-pg"
import {
  CardCharger,
  CustomerPersonalData,
  CustomerProviderSandboxes,
  type CustomerProviders,
  type IdGenerator,
  Messaging,
  OtpCodes,
  type PersonalData,
  Transfers,
} from "@partnerpay/domain"
import { Effect, Layer, Option, Redacted } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { AppConfig } from "../config/Config.ts"
import * as ProviderPorts from "../providers/ProviderPorts.ts"

/** Production: real codes and secrets, every provider on its bridge. */
export const layerProduction = (config: AppConfig) =>
  Layer.mergeAll(
    OtpCodes.OtpCodes.layerRandom,
    // Both secrets are required in production by Config.ts.
    OtpCodes.CodeHasher.layer(Option.getOrElse(config.otpSecret, () => Redacted.make(""))),
    CustomerIdentityPorts.ChatSigner.layer(Option.getOrElse(config.chatSecret, () => Redacted.make(""))),
    ProviderPorts.layer(config.providers),
  )

/** Sandbox: fixed codes, in-memory providers, public test secrets; envelopes signed `signingDelayMillis` after sending. */
export const layerSandbox = (options: { readonly signingDelayMillis: number }) =>
  Layer.mergeAll(
    CustomerIdentityPorts.layerSandbox,
    Transfers.eSignatureSandboxWith({ completeAfterMillis: options.signingDelayMillis }),
    // in-app card payments and terminal card payments (POST /cardpayment): last4 0002 is declined; the
    // money of a card payment is available one settlement cycle after it
    CardCharger.CardCharger.layerSandboxWith({ availableAfterMillis: options.signingDelayMillis }),
    CustomerProviderSandboxes.layerCardProcessorSandboxWith({ availableAfterMillis: options.signingDelayMillis }),
  )

export const layer = (config: AppConfig) =>
  config.environment === "sandbox"
    ? layerSandbox({ signingDelayMillis: config.settlementDelayMillis })
    : layerProduction(config)

/**
 * Sandbox messaging: the recording SMS, push and e-mail senders on the
 * database message log (recipients sealed for their customer:
 * `Messaging.protectSentMessages`), and the OTP sender over the SMS sender (it
 * replaces the in-memory OTP sender of `layer`: merge this after it).
 */
export const messaging: Layer.Layer<
  Messaging.Senders | Messaging.SentMessages | CustomerProviders.OtpSender,
  never,
  SqlClient | IdGenerator.IdGenerator | PersonalData.PersonalDataVault
> = Layer.provideMerge(Messaging.otpSenderOverSms, Messaging.layerRecording).pipe(
  Layer.provideMerge(
    Layer.effect(
      Messaging.SentMessages,
      Effect.flatMap(PgSentMessages.make(), (log) =>
        Messaging.protectSentMessages(log, CustomerPersonalData.messagesSubject),
      ),
    ),
  ),
)
