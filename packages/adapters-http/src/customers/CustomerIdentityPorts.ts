/**
 * The ports the customer login, bank account and verification groups need
 * besides the domain stack, and ready-made layers for them.
 *
 * `ChatSigner` is an edge service of this adapter: GET
 * /Verification/ChatSignature answers `signature` = hex HMAC-SHA256 of the
 * customer's registration id, keyed with a chat secret shared with the chat
 * provider (which recomputes it to trust the `userId` the app presents).
 *
 * `layerSandbox`: codes are always 123456, OTP messages are recorded in memory
 * (`CustomerProviderSandboxes.SentOtps`), bank linking and KYC are the domain's
 * sandboxes, and both secrets are fixed test values. For the sandbox
 * environment and tests only.
 *
 * `layer(secrets)`: random codes and real secrets; the bank-link, KYC and OTP
 * providers are still the sandboxes (no production provider exists yet).
 */

import { CustomerProviderSandboxes, CustomerProviders, OtpCodes } from "@partnerpay/domain"
import { Hmac } from "@partnerpay/secrets"
import { Context, Effect, Layer, Redacted } from "effect"

export class ChatSigner extends Context.Service<
  ChatSigner,
  {
    /** Hex HMAC-SHA256 of `userId` with the chat secret. */
    readonly sign: (userId: string) => Effect.Effect<string>
  }
>()("partnerpay/adapters-http/ChatSigner") {
  static readonly layer = (secret: Redacted.Redacted<string>): Layer.Layer<ChatSigner> =>
    Layer.succeed(
      ChatSigner,
      ChatSigner.of({
        sign: (userId) => Effect.sync(() => Hmac.sha256Hex(Redacted.value(secret), userId)),
      }),
    )
}

/** Every port of the customer identity groups. */
export type CustomerIdentityPorts =
  | OtpCodes.OtpCodes
  | OtpCodes.CodeHasher
  | CustomerProviders.OtpSender
  | CustomerProviders.BankLinker
  | CustomerProviders.KycProvider
  | CustomerProviders.BankLinkCallbacks
  | ChatSigner

/**
 * Where no bank-link provider sends notifications (the sandbox, a bank-link bridge): every delivery to
 * POST /BankLinkWebhook/UpdateItem is refused (401) and changes nothing.
 */
export const refusingBankLinkCallbacks: Layer.Layer<CustomerProviders.BankLinkCallbacks> = Layer.succeed(
  CustomerProviders.BankLinkCallbacks,
  CustomerProviders.BankLinkCallbacks.of({
    verify: () =>
      Effect.fail(
        new CustomerProviders.BankLinkCallbackRefused({ reason: "no bank-link provider sends notifications here" }),
      ),
  }),
)

export const testChatSecret = Redacted.make("partnerpay-test-chat-secret-not-secret")

/** Sandbox and tests: fixed code 123456, recorded OTP messages, sandbox providers, public test secrets. */
export const layerSandbox: Layer.Layer<CustomerIdentityPorts | CustomerProviderSandboxes.SentOtps> = Layer.mergeAll(
  OtpCodes.OtpCodes.layerSandbox,
  OtpCodes.CodeHasher.layerTest,
  CustomerProviderSandboxes.layerOtpSenderMemory,
  CustomerProviderSandboxes.layerBankLinkerSandbox,
  CustomerProviderSandboxes.layerKycProviderSandbox,
  refusingBankLinkCallbacks,
  ChatSigner.layer(testChatSecret),
)

export interface Secrets {
  /** Keys the OTP hashes (at least 32 characters). */
  readonly otpSecret: Redacted.Redacted<string>
  /** Shared with the chat provider. */
  readonly chatSecret: Redacted.Redacted<string>
}

/** Random codes and real secrets; providers are the sandboxes until production ones exist. */
export const layer = (secrets: Secrets): Layer.Layer<CustomerIdentityPorts> =>
  Layer.mergeAll(
    OtpCodes.OtpCodes.layerRandom,
    OtpCodes.CodeHasher.layer(secrets.otpSecret),
    CustomerProviderSandboxes.layerOtpSenderMemory,
    CustomerProviderSandboxes.layerBankLinkerSandbox,
    CustomerProviderSandboxes.layerKycProviderSandbox,
    refusingBankLinkCallbacks,
    ChatSigner.layer(secrets.chatSecret),
  )
