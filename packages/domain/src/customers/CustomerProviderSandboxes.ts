/**
 * In-memory implementations of the customer-facing provider ports, for the
 * sandbox environment and tests. They behave deterministically and let a
 * client (or a test) choose the outcome through its input:
 *
 * - `BankLinker`: a public token containing "fail" is refused with a link
 *   error (ITEM_ERROR / INVALID_CREDENTIALS); otherwise every requested account
 *   is linked with a mask and a name derived from its id.
 * - `KycProvider`: verification completes at once as Verified, unless the
 *   device id contains "reject" (Rejected) or "pending" (stays Pending).
 *   Personal data is a fixed sandbox person with the customer's phone number.
 * - `OtpSender`: records every message instead of sending it; a phone number
 *   ending in 0000 cannot receive SMS (OtpDeliveryFailed).
 * - `CardProcessor`: a terminal card payment whose card ends in 0002 is
 *   declined (`card_declined`, as the in-app `CardCharger` sandbox); any other
 *   is registered with a reference derived from the merchant and the
 *   terminal's reference. Saved cards are not listed from here (the sandbox
 *   saves them on the customer: `POST /Sandbox/CardPaymentMethods`).
 *
 * What they keep in memory is bounded and expires (`SandboxLimits`,
 * `infrastructure/ProviderSandboxes.ts`): at most
 * `maxEntries` KYC sessions and recorded messages (the oldest is evicted
 * first), each forgotten `ttlMillis` after it was stored (on the Effect
 * `Clock`). An expired KYC session is unknown (`KycSessionNotFound`).
 *
 * These never run in production: the app requires a real provider (its HTTP
 * bridge) for every port there.
 */

import { Clock, Context, DateTime, Effect, Layer } from "effect"
import { BoundedStore, type SandboxLimits } from "../infrastructure/ProviderSandboxes.ts"
import type { CalendarDate } from "../kernel/CalendarDate.ts"
import * as Traced from "../kernel/Traced.ts"
import type { PersonalData } from "./CustomerEvents.ts"
import {
  BankLinker,
  BankLinkFailed,
  CardProcessor,
  CardProcessorRefused,
  KycProvider,
  KycSessionNotFound,
  OtpDeliveryFailed,
  OtpSender,
  type ProviderBankAccount,
} from "./CustomerProviders.ts"

/** How long sandbox link tokens stay valid. */
export const sandboxSessionMinutes = 30

/** A stable 4-digit mask for a provider account id (FNV-1a of the id). */
export const sandboxMask = (accountId: string): string => {
  let hash = 0x811c9dc5
  for (let i = 0; i < accountId.length; i++) {
    hash ^= accountId.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return (hash % 10_000).toString().padStart(4, "0")
}

/** The sandbox bank-link provider. */
export const layerBankLinkerSandbox: Layer.Layer<BankLinker> = Layer.succeed(
  BankLinker,
  BankLinker.of({
    createLinkToken: ({ tokenId }) =>
      Effect.map(DateTime.now, (now) => ({
        linkToken: `link-sandbox-${tokenId}`,
        expiration: DateTime.add(now, { minutes: sandboxSessionMinutes }),
      })),
    exchangePublicToken: ({ publicToken, institutionId, accountIds }) => {
      if (publicToken.includes("fail")) {
        return Effect.fail(
          new BankLinkFailed({
            errorType: "ITEM_ERROR",
            errorCode: "INVALID_CREDENTIALS",
            errorMessage: "the provided credentials were not correct",
            displayMessage: "The username or password you entered is incorrect. Please try again.",
          }),
        )
      }
      const accounts: Array<ProviderBankAccount> = accountIds.map((providerAccountId, index) => ({
        providerAccountId,
        institutionId,
        name: index % 2 === 0 ? "Sandbox Checking" : "Sandbox Savings",
        mask: sandboxMask(providerAccountId),
        type: index % 2 === 0 ? "checking" : "savings",
      }))
      return Effect.succeed({ accounts })
    },
  }),
)

interface KycSession {
  readonly deviceId: string
  readonly phoneNumber: string
}

/** KYC sessions: 10,000 for 24 hours. */
export const kycSessionLimits: SandboxLimits = { maxEntries: 10_000, ttlMillis: 24 * 60 * 60 * 1000 }

/** Recorded OTP messages: 1,000 for 15 minutes (a code is worth nothing after its challenge expired). */
export const sentOtpLimits: SandboxLimits = { maxEntries: 1_000, ttlMillis: 15 * 60 * 1000 }

/** The fixed person every sandbox verification confirms (only the SSN's last four digits). */
export const sandboxPersonalData = (phoneNumber: string): PersonalData => ({
  profileName: "",
  firstName: "Sandbox",
  lastName: "Customer",
  birthDate: "1990-01-01" as CalendarDate,
  ssnLastFourDigits: "6789",
  emailAddress: "sandbox.customer@example.com",
  phoneNumber,
})

/** The sandbox identity-verification provider; sessions live in memory. The reference id is the session's tokenId. */
export const makeKycProviderSandbox = (limits: SandboxLimits = kycSessionLimits) =>
  Effect.sync(() => {
    const sessions = new BoundedStore<KycSession>(limits)
    const session = (tokenId: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const found = sessions.get(tokenId, now)
        return found === undefined ? Effect.fail(new KycSessionNotFound({ tokenId })) : Effect.succeed(found)
      })
    return KycProvider.of({
      start: Traced.fn("CustomerProviderSandboxes.start")(function* ({ tokenId, deviceId, phoneNumber }) {
        const now = yield* DateTime.now
        sessions.set(tokenId, { deviceId, phoneNumber }, DateTime.toEpochMillis(now))
        return {
          linkToken: `kyc-sandbox-${tokenId}`,
          expiration: DateTime.add(now, { minutes: sandboxSessionMinutes }),
        }
      }),
      check: ({ tokenId }) =>
        Effect.map(session(tokenId), ({ deviceId }) => {
          const status = deviceId.includes("reject")
            ? "Rejected"
            : deviceId.includes("pending")
              ? "Pending"
              : "Verified"
          return {
            status,
            referenceId: tokenId,
            redirectUrl: status === "Pending" ? `https://sandbox.partnerpay.dev/kyc/${tokenId}` : "",
          } as const
        }),
      personalData: (referenceId) =>
        Effect.map(session(referenceId), ({ phoneNumber }) => sandboxPersonalData(phoneNumber)),
    })
  })

/** The sandbox identity-verification provider with the default limits. */
export const layerKycProviderSandbox: Layer.Layer<KycProvider> = Layer.effect(KycProvider, makeKycProviderSandbox())

/** A message the in-memory OTP sender "sent". */
export interface SentOtp {
  readonly phoneNumber: string
  readonly code: string
}

/** What the in-memory OTP sender recorded (tests read it). */
export class SentOtps extends Context.Service<
  SentOtps,
  {
    readonly all: Effect.Effect<ReadonlyArray<SentOtp>>
  }
>()("partnerpay/domain/SentOtps") {}

/** The in-memory OTP sender (tests, sandbox): records messages; numbers ending in 0000 are unreachable. */
export const makeOtpSenderMemory = (limits: SandboxLimits = sentOtpLimits) =>
  Effect.sync(() => {
    const sent = new BoundedStore<SentOtp>(limits)
    let sequence = 0
    const sender = OtpSender.of({
      send: ({ phoneNumber, code }) =>
        phoneNumber.endsWith("0000")
          ? Effect.fail(new OtpDeliveryFailed({ reason: "the number cannot receive SMS" }))
          : Effect.map(Clock.currentTimeMillis, (now) => sent.set(String(sequence++), { phoneNumber, code }, now)),
    })
    return Context.make(OtpSender, sender).pipe(
      Context.add(SentOtps, SentOtps.of({ all: Effect.map(Clock.currentTimeMillis, (now) => sent.values(now)) })),
    )
  })

/** The in-memory OTP sender with the default limits. */
export const layerOtpSenderMemory: Layer.Layer<OtpSender | SentOtps> = Layer.effectContext(makeOtpSenderMemory())

/** The last 4 digits of the sandbox card the processor always declines (as `CardCharger`'s sandbox). */
export const declinedCardLast4 = "0002"

/**
 * The sandbox card processor (no state): last4 0002 declined, any other card registered; its money
 * available `availableAfterMillis` after the registration (absent: at once).
 */
export const makeCardProcessorSandbox = (options: { readonly availableAfterMillis?: number } = {}) =>
  CardProcessor.of({
    // A simulated SetupIntent: its client secret completes nothing (sandbox cards: POST /Sandbox/CardPaymentMethods).
    setupCard: (payer) =>
      Effect.succeed({
        setupIntentId: `seti_sandbox_${payer.registrationId.slice(0, 8)}`,
        clientSecret: `seti_sandbox_${payer.registrationId.slice(0, 8)}_secret_sandbox`,
      }),
    listCardMethods: () => Effect.succeed([]),
    registerCardPayment: (request) =>
      request.last4 === declinedCardLast4
        ? Effect.fail(new CardProcessorRefused({ code: "card_declined", reason: "the card was declined" }))
        : Effect.map(DateTime.now, (now) => ({
            processorReference: `cp_sandbox_${request.merchantId.slice(0, 8)}_${request.externalReference}`,
            ...(options.availableAfterMillis === undefined
              ? {}
              : { availableAt: DateTime.add(now, { milliseconds: options.availableAfterMillis }) }),
          })),
  })

/** The sandbox card processor, its money available at once. */
export const layerCardProcessorSandbox: Layer.Layer<CardProcessor> = Layer.succeed(
  CardProcessor,
  makeCardProcessorSandbox(),
)

/** The sandbox card processor, its money available one settlement cycle (`availableAfterMillis`) later. */
export const layerCardProcessorSandboxWith = (options: {
  readonly availableAfterMillis: number
}): Layer.Layer<CardProcessor> => Layer.succeed(CardProcessor, makeCardProcessorSandbox(options))
