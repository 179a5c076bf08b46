/**
 * The provider ports: the outside services partnerpay relies on, as Effect
 * services. Only interfaces and typed errors live here; the application
 * provides implementations (sandbox fakes first, real providers later).
 *
 * Providers are called by the application around the deciders, never from
 * inside them: the application calls a port, then puts the outcome in a
 * command (for example `RecordKycResult` with the verdict of `KycProvider.check`).
 *
 * Every port may fail with `ProviderUnavailable` (timeout, 5xx, network):
 * nothing is known to have happened and the call may be retried. Each port
 * adds the refusals its callers can act on.
 */
import { Context, type DateTime, type Effect, Schema } from "effect"
import type { CardPaymentMethod, PersonalData } from "../customers/CustomerEvents.ts"
import type { CalendarDate } from "../kernel/CalendarDate.ts"
import type { CardPaymentId, CompanyId, MerchantId, PartnerId, RegistrationId, TransferId } from "../kernel/Ids.ts"
import type { Money } from "../kernel/Money.ts"

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

/** The provider could not be reached or failed; nothing is known to have happened, a retry is safe. */
export class ProviderUnavailable extends Schema.TaggedError<ProviderUnavailable>()("ProviderUnavailable", {
  provider: Schema.String,
  reason: Schema.String,
}) {
  override get message(): string {
    return `${this.provider} unavailable: ${this.reason}`
  }
}

/** The KYB provider refused the submission itself (missing or malformed data), before any verdict. */
export class KybSubmissionRefused extends Schema.TaggedError<KybSubmissionRefused>()("KybSubmissionRefused", {
  reason: Schema.String,
}) {}

/**
 * Linking bank accounts failed at the provider. The four fields are the
 * spec's `linkError` (2.15) and go back to the client as they are;
 * `displayMessage` is meant for the end user.
 */
export class BankLinkFailed extends Schema.TaggedError<BankLinkFailed>()("BankLinkFailed", {
  errorType: Schema.String,
  errorCode: Schema.String,
  errorMessage: Schema.String,
  displayMessage: Schema.String,
}) {
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

/** The e-signature provider refused to create the envelope (unknown template, invalid signer). */
export class ESignatureRefused extends Schema.TaggedError<ESignatureRefused>()("ESignatureRefused", {
  reason: Schema.String,
}) {}

// ---------------------------------------------------------------------------
// KYB: business verification of a company
// ---------------------------------------------------------------------------

export interface PostalAddress {
  readonly streetNumberAndName: string
  readonly apartmentNumber: string
  readonly zipCode: string
  readonly city: string
  readonly state: string
}

/**
 * What the KYB provider needs about a company. The owner's full SSN passes
 * through to the provider here and is never recorded by partnerpay.
 */
export interface KybSubmission {
  readonly companyId: CompanyId
  readonly partnerId: PartnerId
  readonly name: string
  readonly taxId: string
  readonly taxIdType: string
  readonly companyType: string
  readonly address: PostalAddress
  readonly websiteUrl?: string | undefined
  readonly owner: {
    readonly name: string
    readonly emailAddress: string
    readonly dateOfBirth: CalendarDate
    readonly documentNumber: string
    readonly documentType: string
    readonly ssn: string
    readonly address: PostalAddress
  }
}

export type KybOutcome = "Pending" | "Verified" | "Rejected"

/**
 * Submits companies for business verification (KYB). The verdict comes later
 * (up to 24 hours): the provider notifies the application, or the application
 * polls `status`; either way it records the verdict on the Company aggregate.
 */
export class KybVerifier extends Context.Service<
  KybVerifier,
  {
    /** Submits the company; returns the provider's reference of the submission. */
    readonly submit: (
      submission: KybSubmission,
    ) => Effect.Effect<{ readonly submissionId: string }, KybSubmissionRefused | ProviderUnavailable>
    /** The current verdict of a submission. */
    readonly status: (submissionId: string) => Effect.Effect<KybOutcome, ProviderUnavailable>
  }
>()("partnerpay/domain/KybVerifier") {}

// ---------------------------------------------------------------------------
// Bank linking
// ---------------------------------------------------------------------------

/** A bank account as the provider describes it. `mask` is at most the last 4 digits. */
export interface ProviderBankAccount {
  /** The provider's id of the account (from `linkAccountsMetadata.accountIds`). */
  readonly providerAccountId: string
  readonly institutionId: string
  readonly name: string
  readonly mask: string
  readonly type: string
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
    /** Exchanges the public token of a completed session for the accounts the customer chose. */
    readonly exchangePublicToken: (request: {
      readonly registrationId: RegistrationId
      readonly tokenId: string
      readonly publicToken: string
      readonly linkSessionId: string
      readonly institutionId: string
      readonly accountIds: ReadonlyArray<string>
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

/**
 * Delivers one-time login codes by SMS. The application makes the code and
 * keeps only its hash; the sender just delivers it.
 */
export class OtpSender extends Context.Service<
  OtpSender,
  {
    /** Sends `code` to an E.164 phone number. */
    readonly send: (request: {
      readonly phoneNumber: string
      readonly code: string
      /** Who asked and, for a returning customer, who receives it (the message log of the sandbox lists it). */
      readonly partnerId?: PartnerId | undefined
      readonly registrationId?: RegistrationId | undefined
    }) => Effect.Effect<void, OtpDeliveryFailed | ProviderUnavailable>
  }
>()("partnerpay/domain/OtpSender") {}

// ---------------------------------------------------------------------------
// Cards
// ---------------------------------------------------------------------------

/** The card processor: saved card methods of customers, and registration of card payments. */
export class CardProcessor extends Context.Service<
  CardProcessor,
  {
    /** The cards a customer saved with the processor (last 4 digits only). */
    readonly listCardMethods: (
      registrationId: RegistrationId,
    ) => Effect.Effect<ReadonlyArray<CardPaymentMethod>, ProviderUnavailable>
    /** Registers a card payment made on an external terminal; returns the processor's reference. */
    readonly registerCardPayment: (request: {
      readonly cardPaymentId: CardPaymentId
      readonly merchantId: MerchantId
      readonly amount: Money
      readonly externalReference: string
    }) => Effect.Effect<{ readonly processorReference: string }, CardProcessorRefused | ProviderUnavailable>
  }
>()("partnerpay/domain/CardProcessor") {}

// ---------------------------------------------------------------------------
// E-signature
// ---------------------------------------------------------------------------

/** Signing envelopes, used to have a reimbursement request signed (POST /Reimbursement/Create). */
export class ESignature extends Context.Service<
  ESignature,
  {
    /** Creates the envelope for reimbursing `transferId`; the signer opens `signingUrl`. */
    readonly createReimbursementEnvelope: (request: {
      readonly transferId: TransferId
      /** The spec's providerId of POST /Reimbursement/Create. */
      readonly providerId: string
      readonly signer: { readonly registrationId: RegistrationId; readonly name: string; readonly emailAddress: string }
    }) => Effect.Effect<
      { readonly envelopeId: string; readonly signingUrl: string },
      ESignatureRefused | ProviderUnavailable
    >
  }
>()("partnerpay/domain/ESignature") {}

// ---------------------------------------------------------------------------
// Settlement
// ---------------------------------------------------------------------------

/** Where a transfer stands at the bank: still moving, settled, or returned with an ACH return code. */
export type SettlementOutcome =
  | { readonly status: "Pending" }
  | { readonly status: "Settled" }
  | { readonly status: "Failed"; readonly returnCode: string; readonly reason: string }

/**
 * The bank (ACH) side of transfers: reports whether a pending transfer
 * settled or was returned. The application records the outcome on the
 * Transfer (`Payments.settleTransfer` / `Payments.failTransfer`).
 */
export class SettlementProvider extends Context.Service<
  SettlementProvider,
  {
    readonly status: (request: {
      readonly transferId: TransferId
      readonly amount: Money
    }) => Effect.Effect<SettlementOutcome, ProviderUnavailable>
  }
>()("partnerpay/domain/SettlementProvider") {}

/** Every provider port, for layers that provide them all (a sandbox, a test). */
export type AllProviders =
  | KybVerifier
  | BankLinker
  | KycProvider
  | OtpSender
  | CardProcessor
  | ESignature
  | SettlementProvider
