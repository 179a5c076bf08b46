/**
 * The provider ports of the customers area: bank linking, identity
 * verification (KYC), one-time codes by SMS and the card processor (a
 * customer's saved cards; card payments made on terminals). Only interfaces
 * and typed errors live here; the application provides implementations
 * (sandboxes: `CustomerProviderSandboxes.ts`). Every port may fail with
 * `ProviderUnavailable` (`infrastructure/Providers.ts`); each adds the
 * refusals its callers can act on.
 */
import { Context, type DateTime, type Effect, Schema } from "effect"
import type { FeatureNotAvailable, ProviderUnavailable } from "../infrastructure/Providers.ts"
import type { CardPaymentId, MerchantId, PartnerId, RegistrationId } from "../kernel/Ids.ts"
import type { Money } from "../kernel/Money.ts"
import type { CardPaymentMethod, PersonalData } from "./CustomerEvents.ts"

/** The provider's link error (spec 2.15 `linkError`); `displayMessage` is meant for the end user. */
export const LinkError = Schema.Struct({
  errorType: Schema.String,
  errorCode: Schema.String,
  errorMessage: Schema.String,
  displayMessage: Schema.String,
})
export type LinkError = typeof LinkError.Type

/** Linking bank accounts failed at the provider: its `linkError`, which goes back to the client as it is. */
export class BankLinkFailed extends Schema.TaggedError<BankLinkFailed>()("BankLinkFailed", LinkError.fields) {
  override get message(): string {
    return `${this.errorType}/${this.errorCode}: ${this.errorMessage}`
  }
}

/** The identity verification session is unknown to the provider (never started, or expired and purged). */
export class KycSessionNotFound extends Schema.TaggedError<KycSessionNotFound>()("KycSessionNotFound", {
  tokenId: Schema.String,
}) {}

/** The one-time code could not be delivered to that number (unreachable, landline, blocked). Retrying will not help. */
export class OtpDeliveryFailed extends Schema.TaggedError<OtpDeliveryFailed>()("OtpDeliveryFailed", {
  reason: Schema.String,
}) {}

/** The card processor refused the request; `code` is the processor's reason code. */
export class CardProcessorRefused extends Schema.TaggedError<CardProcessorRefused>()("CardProcessorRefused", {
  code: Schema.String,
  reason: Schema.String,
}) {}

// ---------------------------------------------------------------------------
// Bank linking
// ---------------------------------------------------------------------------

/** The customer's verified identity (from KYC), as a funding-source provider needs it. */
export interface AccountHolder {
  readonly firstName: string
  readonly lastName: string
  readonly emailAddress: string
}

/** A bank account as the provider describes it. `mask` is at most the last 4 digits. */
export interface ProviderBankAccount {
  /** The provider's id of the account (from `linkAccountsMetadata.accountIds`). */
  readonly providerAccountId: string
  readonly institutionId: string
  readonly name: string
  readonly mask: string
  readonly type: string
  /** The provider's connection the account came through (a Plaid item), when it has one. */
  readonly itemId?: string | undefined
}

/**
 * Opens bank-link sessions and turns the public token of a completed session
 * into the chosen accounts. The provider's access credentials stay inside the
 * adapter; the domain only ever sees masked accounts.
 */
export class BankLinker extends Context.Service<
  BankLinker,
  {
    /** A link token the client uses to open the provider's account picker, valid until `expiration`. */
    readonly createLinkToken: (request: {
      readonly registrationId: RegistrationId
      readonly tokenId: string
    }) => Effect.Effect<{ readonly linkToken: string; readonly expiration: DateTime.Utc }, ProviderUnavailable>
    /**
     * Exchanges the public token of a completed session for the accounts the customer chose. `holder`:
     * the customer's verified identity (KYC), when there is one, for a provider that makes the money
     * movement's funding sources at link time (personal data: never logged, never sent to a bridge).
     */
    readonly exchangePublicToken: (request: {
      readonly registrationId: RegistrationId
      readonly tokenId: string
      readonly publicToken: string
      readonly linkSessionId: string
      readonly institutionId: string
      readonly accountIds: ReadonlyArray<string>
      readonly holder?: AccountHolder | undefined
    }) => Effect.Effect<{ readonly accounts: ReadonlyArray<ProviderBankAccount> }, BankLinkFailed | ProviderUnavailable>
  }
>()("partnerpay/domain/BankLinker") {}

// ---------------------------------------------------------------------------
// KYC: identity verification of a customer
// ---------------------------------------------------------------------------

export interface KycCheck {
  readonly status: "Pending" | "Verified" | "Rejected"
  /** The provider's reference of the verification (a UUID). */
  readonly referenceId: string
  /** Where the client continues the verification (empty when nothing is left to do). */
  readonly redirectUrl: string
}

/** Identity verification of customers (spec: StartKyc, CheckVerification, PersonalData). */
export class KycProvider extends Context.Service<
  KycProvider,
  {
    /** Starts a verification session `tokenId` for the customer's device. */
    readonly start: (request: {
      readonly registrationId: RegistrationId
      readonly tokenId: string
      readonly deviceId: string
      readonly phoneNumber: string
    }) => Effect.Effect<{ readonly linkToken: string; readonly expiration: DateTime.Utc }, ProviderUnavailable>
    /** The verdict so far. */
    readonly check: (request: {
      readonly registrationId: RegistrationId
      readonly tokenId: string
    }) => Effect.Effect<KycCheck, KycSessionNotFound | ProviderUnavailable>
    /**
     * The confirmed personal data of a verified customer. Implementations
     * reduce the SSN to its last four digits before returning.
     */
    readonly personalData: (
      referenceId: string,
    ) => Effect.Effect<PersonalData, KycSessionNotFound | ProviderUnavailable>
  }
>()("partnerpay/domain/KycProvider") {}

// ---------------------------------------------------------------------------
// One-time codes
// ---------------------------------------------------------------------------

/** A provider's verdict on a code typed by the end user (`OtpSender.verify`). */
export type OtpVerdict = "Approved" | "Rejected"

/**
 * Delivers one-time login codes by SMS. Either the application makes the code
 * and keeps only its hash, and the sender just delivers it; or the provider
 * owns the codes (Twilio Verify: it makes, sends and checks them, and applies
 * its own rate limits): such a sender has `verify`, ignores the `code` it is
 * given, and is asked for its verdict on each typed code. The login rules
 * (expiry, locks, attempts) stay in the `LoginChallenge` aggregate either way.
 */
export class OtpSender extends Context.Service<
  OtpSender,
  {
    /** Sends `code` (or the provider's own code, when it owns them) to an E.164 phone number. */
    readonly send: (request: {
      readonly phoneNumber: string
      readonly code: string
      /** Who asked and, for a returning customer, who receives it (the message log of the sandbox lists it). */
      readonly partnerId?: PartnerId | undefined
      readonly registrationId?: RegistrationId | undefined
    }) => Effect.Effect<void, OtpDeliveryFailed | ProviderUnavailable>
    /** Present when the provider owns the codes: its verdict on a typed code for the number. */
    readonly verify?:
      | ((request: {
          readonly phoneNumber: string
          readonly code: string
        }) => Effect.Effect<OtpVerdict, ProviderUnavailable>)
      | undefined
  }
>()("partnerpay/domain/OtpSender") {}

// ---------------------------------------------------------------------------
// Cards
// ---------------------------------------------------------------------------

/** A card setup started at the processor: its id and the client secret the app completes it with. */
export interface CardSetup {
  readonly setupIntentId: string
  readonly clientSecret: string
}

/**
 * The card processor: saved card methods of customers, and registration of card payments. Optional in
 * production: a service without one fails every operation with `FeatureNotAvailable`.
 */
export class CardProcessor extends Context.Service<
  CardProcessor,
  {
    /**
     * Starts adding a card for the payer: the processor's setup (Stripe: a SetupIntent) whose client
     * secret the app completes on the device with the processor's SDK; the processor then tells the
     * service the card was saved (Stripe: `setup_intent.succeeded`). No card details ever pass here.
     */
    readonly setupCard: (payer: {
      readonly partnerId: PartnerId
      readonly registrationId: RegistrationId
    }) => Effect.Effect<CardSetup, ProviderUnavailable | FeatureNotAvailable>
    /** The cards a customer saved with the processor (last 4 digits only). */
    readonly listCardMethods: (
      registrationId: RegistrationId,
    ) => Effect.Effect<ReadonlyArray<CardPaymentMethod>, ProviderUnavailable | FeatureNotAvailable>
    /**
     * Registers (authorizes and captures) a card payment made on an external terminal, before
     * partnerpay records it; returns the processor's reference. A declined card is
     * `CardProcessorRefused` (code e.g. "card_declined"). Keyed by (merchantId, externalReference).
     */
    readonly registerCardPayment: (request: {
      readonly cardPaymentId: CardPaymentId
      readonly merchantId: MerchantId
      readonly amount: Money
      readonly last4: string
      readonly brand: string
      readonly externalReference: string
    }) => Effect.Effect<
      {
        readonly processorReference: string
        /** When the processor makes the money available to the company (absent: at once). */
        readonly availableAt?: DateTime.Utc | undefined
      },
      CardProcessorRefused | ProviderUnavailable | FeatureNotAvailable
    >
  }
>()("partnerpay/domain/CardProcessor") {}

// ---------------------------------------------------------------------------
// Bank-link provider notifications (webhooks)
// ---------------------------------------------------------------------------

/**
 * What a verified notification of the bank-link provider asks (docs/providers.md, "Plaid"). `CheckIdentity`:
 * the customer's identity verification changed at the provider (KYC on the same provider, Plaid Identity
 * Verification): its verdict is asked of the `KycProvider` as a poll would.
 */
export type BankLinkAction = "Relink" | "RemoveItem" | "RemoveAccount" | "CheckIdentity" | "None"

/** A notification of the bank-link provider about one of its connections (items), verified. */
export interface BankLinkCallback {
  /** The provider's connection (item); for `CheckIdentity`, the provider's verification id. */
  readonly itemId: string
  readonly action: BankLinkAction
  /** `CheckIdentity`: the customer whose verification it is (the provider's client user id). */
  readonly registrationId?: string | undefined
  /** `RemoveAccount`: the provider's id of the account. */
  readonly accountId?: string | undefined
  /** The provider's code, recorded with a repair request (e.g. ITEM_LOGIN_REQUIRED). */
  readonly reason: string
}

/** The notification is not the provider's (forged, altered, replayed, or no provider sends any here). */
export class BankLinkCallbackRefused extends Schema.TaggedError<BankLinkCallbackRefused>()("BankLinkCallbackRefused", {
  reason: Schema.String,
}) {}

/** Verifies and decodes the bank-link provider's notifications (the raw body and the request's headers). */
export class BankLinkCallbacks extends Context.Service<
  BankLinkCallbacks,
  {
    readonly verify: (request: {
      readonly body: string
      readonly headers: Readonly<Record<string, string | undefined>>
    }) => Effect.Effect<BankLinkCallback, BankLinkCallbackRefused | ProviderUnavailable>
  }
>()("partnerpay/domain/BankLinkCallbacks") {}
