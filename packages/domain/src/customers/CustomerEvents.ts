/**
 * Events of a customer: an end user of a partner, identified by a registration
 * id. They cover registration (first successful one-time-code login), identity
 * verification (KYC), bank-link sessions and linked bank accounts,
 * notification preferences, push tokens and saved card payment methods.
 *
 * Sensitive data is reduced before it reaches an event: bank accounts and
 * cards carry only their last four digits (`mask`, `last4`), personal data only
 * the last four digits of the SSN, and the provider's link token (a short-lived
 * bearer credential) is never recorded. The schemas enforce this, so an event
 * holding a full account number cannot even be decoded.
 */
import { Schema } from "effect"
import { AuthorizationEvidence } from "../kernel/AuthorizationEvidence.ts"
import { CalendarDate } from "../kernel/CalendarDate.ts"
import { unionOf } from "../kernel/EventSchema.ts"
import { BankAccountId, CompanyId, PartnerId, RegistrationId, Uuid } from "../kernel/Ids.ts"
import { CardShown, LastFour, lastFourPattern } from "../kernel/Masked.ts"
import { Erasable } from "../kernel/Personal.ts"

/** Phone numbers in E.164 form: `+` then 2 to 15 digits, no leading zero (`+14155550123`). */
export const e164Pattern = /^\+[1-9]\d{1,14}$/
/** A pragmatic email check: something@domain.tld, no spaces. */
export const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

export const PhoneNumber = Schema.String.check(
  Schema.isPattern(e164Pattern, { message: "must be an E.164 phone number such as +14155550123" }),
)
/** The last four digits, as the kernel declares them (`Masked.ts`). */
export { LastFour, lastFourPattern }

/** A customer's identity verification status, as clients read it. */
export const KycStatus = Schema.Literals(["NotStarted", "Pending", "Verified", "Rejected"])
export type KycStatus = typeof KycStatus.Type

/** The kinds of message a customer chooses to receive or not (spec 2.13), each by e-mail and by push. */
export const messageKinds = ["news", "overdraftWarnings", "paymentStatus", "paymentDue"] as const
export const preferenceChannels = ["Email", "Push"] as const

/** One switch per kind of message and channel: `newsEmail`, `newsPush`, ... `paymentDuePush`. */
export type PreferenceSwitch = `${(typeof messageKinds)[number]}${(typeof preferenceChannels)[number]}`

/** The eight switches of spec 2.13, kind by kind (e-mail, then push). */
export const NotificationPreferences = Schema.Struct(
  Object.fromEntries(
    messageKinds.flatMap((kind) => preferenceChannels.map((channel) => [`${kind}${channel}`, Schema.Boolean])),
  ) as { readonly [Switch in PreferenceSwitch]: typeof Schema.Boolean },
)
export type NotificationPreferences = typeof NotificationPreferences.Type

/**
 * Identity data confirmed by KYC (spec 2.14). Only the last four digits of the SSN are ever kept.
 * Personal data of the customer: stored sealed, and "[erased]" in every field once the customer is erased.
 */
export const PersonalData = Schema.Struct({
  profileName: Schema.String,
  firstName: Schema.String,
  lastName: Schema.String,
  birthDate: Erasable(CalendarDate),
  ssnLastFourDigits: Erasable(LastFour),
  emailAddress: Schema.String,
  phoneNumber: Erasable(PhoneNumber),
})
export type PersonalData = typeof PersonalData.Type

/**
 * A bank account as linked: our id, the provider's institution, a display name, the last 4 digits and a type.
 * The name is personal (the holder may have chosen it): sealed at rest, "[erased]" once the customer is erased.
 */
export const LinkedBankAccount = Schema.Struct({
  bankAccountId: BankAccountId,
  institutionId: Schema.String,
  name: Schema.String,
  mask: LastFour,
  type: Schema.String,
})
export type LinkedBankAccount = typeof LinkedBankAccount.Type

/** A card saved with the card processor (spec 2.12). Only the last 4 digits are known. */
export const CardPaymentMethod = Schema.Struct({
  id: Schema.String,
  type: Schema.String,
  ...CardShown.fields,
  expMonth: Schema.Int,
  expYear: Schema.Int,
})
export type CardPaymentMethod = typeof CardPaymentMethod.Type

/** A device push token and when it expires (personal: sealed at rest, "[erased]" once the customer is erased). */
export const PushToken = Schema.Struct({ token: Schema.String, expireAt: Schema.DateTimeUtcFromString })
export type PushToken = typeof PushToken.Type

/**
 * Why a push token was removed: the customer asked, the oldest token made room for a new one, or it had
 * expired when a message was to be pushed to it (pruned by the notifications).
 */
export const PushTokenRemovalReason = Schema.Literals(["RemovedByCustomer", "CapReached", "Expired"])
export type PushTokenRemovalReason = typeof PushTokenRemovalReason.Type

/**
 * Every event of a customer, by its tag (the codec of its stream). Each names the customer (its
 * registration id, within its partner) and the instant `at`.
 */
export const CustomerEvent = unionOf(
  { registrationId: RegistrationId, partnerId: PartnerId },
  {
    /** The customer logged in for the first time with a one-time code sent to `phoneNumber`. */
    CustomerRegistered: {
      /** Personal: stored sealed; "[erased]" once the customer is erased. */
      phoneNumber: Erasable(PhoneNumber),
    },
    /** Identity verification started; `tokenId` also opens a bank-link session that expires at `expiration`. */
    KycStarted: { tokenId: Uuid, expiration: Schema.DateTimeUtcFromString },
    /** The provider verified the customer's identity; the confirmed personal data is recorded. */
    KycVerified: { referenceId: Uuid, personalData: PersonalData },
    /** The provider refused to verify the customer's identity. */
    KycRejected: { referenceId: Uuid },
    /** A bank-link session was opened for an already verified customer (to link more accounts). */
    BankLinkSessionOpened: { tokenId: Uuid, expiration: Schema.DateTimeUtcFromString },
    /** Bank accounts were linked (or re-linked, or their details refreshed) through the link session `tokenId`. */
    BankAccountsLinked: { tokenId: Uuid, accounts: Schema.Array(LinkedBankAccount) },
    /** The customer removed a linked bank account. */
    BankAccountUnlinked: { bankAccountId: BankAccountId },
    /** The notification preferences changed; `preferences` is the complete new set. */
    NotificationPreferencesUpdated: { preferences: NotificationPreferences },
    /**
     * A device push token was registered (or refreshed with a new expiry); it becomes the newest token. The
     * token (here and in `PushTokenRemoved`) is personal: sealed at rest, "[erased]" once the customer is erased.
     */
    PushTokenRegistered: PushToken.fields,
    PushTokenRemoved: { token: Schema.String, reason: PushTokenRemovalReason },
    /** A card payment method was saved (or its details, such as the expiry, refreshed). */
    CardPaymentMethodSaved: { method: CardPaymentMethod },
    /**
     * The customer chose the linked bank account the service debits for autopay
     * and debit-authorization collections (PUT /Account/Default).
     */
    DefaultBankAccountSet: {
      bankAccountId: BankAccountId,
      /** The evidence of the payer's autopay authorization (absent on designations recorded before it was). */
      authorization: Schema.optionalKey(AuthorizationEvidence),
    },
    /**
     * The payer's bank returned a debit of the account with an account-level code (`returnCode`, e.g.
     * R03 no account: `ReturnConsequences.ts`): the account is unusable until linked again.
     */
    BankAccountUnusable: { bankAccountId: BankAccountId, returnCode: Schema.String, reason: Schema.String },
    /**
     * The payer's bank returned a debit to `companyId` as unauthorized (`returnCode`, e.g. R10): autopay
     * for that company is off until the payer designates an autopay account again.
     */
    AutoPayRevoked: { companyId: CompanyId, returnCode: Schema.String },
  },
)
export type CustomerEvent = typeof CustomerEvent.Type

export const {
  CustomerRegistered,
  KycStarted,
  KycVerified,
  KycRejected,
  BankLinkSessionOpened,
  BankAccountsLinked,
  BankAccountUnlinked,
  NotificationPreferencesUpdated,
  PushTokenRegistered,
  PushTokenRemoved,
  CardPaymentMethodSaved,
  DefaultBankAccountSet,
  BankAccountUnusable,
  AutoPayRevoked,
} = CustomerEvent.cases
