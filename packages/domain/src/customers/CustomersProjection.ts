/**
 * The `customers` read model: one document per registered customer (an end
 * user of a partner, by registration id), complete for every Customer event:
 * phone number, identity verification status and reference, the latest
 * verification session, personal data (SSN last four digits only), linked
 * bank accounts (masked), notification preferences, push tokens and saved
 * card payment methods.
 *
 * Indexed by partner (never by phone number: index keys are stored plain),
 * sorted by registration instant. The phone number, the personal data, the
 * push tokens and the bank accounts' names are sealed at rest
 * (`CustomerPersonalData.ts`). Push tokens are kept (with their expiry)
 * because a push sender needs them; once the customer is erased they read
 * "[erased]" and nothing is pushed to them.
 */
import { DateTime, Schema } from "effect"
import type * as Envelope from "../infrastructure/Envelope.ts"
import { type Projection, perAggregate } from "../infrastructure/ReadModel.ts"
import { PartnerId, RegistrationId, Uuid } from "../kernel/Ids.ts"
import { Erasable } from "../kernel/Personal.ts"
import { defaultNotificationPreferences } from "./Customer.ts"
import type { CustomerEvent } from "./CustomerEvents.ts"
import {
  CardPaymentMethod,
  KycStatus,
  LinkedBankAccount,
  NotificationPreferences,
  PersonalData,
  PhoneNumber,
  PushToken,
} from "./CustomerEvents.ts"

/** The events this read model reads. */
export type CustomerEnvelope = Envelope.Of<"Customer", CustomerEvent>

export const collection = "customers"

export { KycStatus, PushToken }

/** A verification (or bank-link) session issued to the customer. */
export const LinkSession = Schema.Struct({
  tokenId: Uuid,
  expiration: Schema.DateTimeUtcFromString,
  /** "Kyc" for StartKyc sessions, "BankLink" for sessions of a verified customer. */
  kind: Schema.Literals(["Kyc", "BankLink"]),
})
export type LinkSession = typeof LinkSession.Type

/**
 * A listed bank account: its masked details and, once an account-level ACH return made it unusable,
 * `status` Unusable with the `returnCode` (absent: usable; linking it again clears both).
 */
export const ListedBankAccount = Schema.Struct({
  ...LinkedBankAccount.fields,
  status: Schema.optionalKey(Schema.Literals(["Active", "Unusable"])),
  returnCode: Schema.optionalKey(Schema.String),
})
export type ListedBankAccount = typeof ListedBankAccount.Type

export const CustomerDocument = Schema.Struct({
  registrationId: RegistrationId,
  partnerId: PartnerId,
  /** Personal (sealed at rest, like `personalData`); "[erased]" once the customer is erased. */
  phoneNumber: Erasable(PhoneNumber),
  registeredAt: Schema.DateTimeUtcFromString,
  kycStatus: KycStatus,
  /** The provider's reference of the latest verdict (null before any). */
  kycReferenceId: Schema.NullOr(Schema.String),
  /** The latest identity-verification session (StartKyc), null before any. */
  kycSession: Schema.NullOr(LinkSession),
  /** Every session issued (verification and bank-link), oldest first. */
  linkSessions: Schema.Array(LinkSession),
  /** Set once the identity is verified; SSN last four digits only. */
  personalData: Schema.NullOr(PersonalData),
  /** Currently linked bank accounts (masked), in order of first link. */
  bankAccounts: Schema.Array(ListedBankAccount),
  notificationPreferences: NotificationPreferences,
  /** Least recently registered first. */
  pushTokens: Schema.Array(PushToken),
  cardPaymentMethods: Schema.Array(CardPaymentMethod),
  updatedAt: Schema.DateTimeUtcFromString,
})
export type CustomerDocument = typeof CustomerDocument.Type

const apply = (current: CustomerDocument | undefined, envelope: CustomerEnvelope): CustomerDocument | undefined => {
  if (envelope.streamType !== "Customer") return current
  const event = envelope.event
  if (event._tag === "CustomerRegistered") {
    if (current !== undefined) return current
    return {
      registrationId: event.registrationId,
      partnerId: event.partnerId,
      phoneNumber: event.phoneNumber,
      registeredAt: event.at,
      kycStatus: "NotStarted",
      kycReferenceId: null,
      kycSession: null,
      linkSessions: [],
      personalData: null,
      bankAccounts: [],
      notificationPreferences: defaultNotificationPreferences,
      pushTokens: [],
      cardPaymentMethods: [],
      updatedAt: event.at,
    }
  }
  if (current === undefined) return current
  const doc = { ...current, updatedAt: event.at }
  switch (event._tag) {
    case "KycStarted": {
      const session: LinkSession = { tokenId: event.tokenId, expiration: event.expiration, kind: "Kyc" }
      return { ...doc, kycStatus: "Pending", kycSession: session, linkSessions: [...doc.linkSessions, session] }
    }
    case "KycVerified":
      return { ...doc, kycStatus: "Verified", kycReferenceId: event.referenceId, personalData: event.personalData }
    case "KycRejected":
      return { ...doc, kycStatus: "Rejected", kycReferenceId: event.referenceId }
    case "BankLinkSessionOpened": {
      const session: LinkSession = { tokenId: event.tokenId, expiration: event.expiration, kind: "BankLink" }
      return { ...doc, linkSessions: [...doc.linkSessions, session] }
    }
    case "BankAccountsLinked": {
      let accounts = doc.bankAccounts
      for (const account of event.accounts) {
        accounts = accounts.some((a) => a.bankAccountId === account.bankAccountId)
          ? accounts.map((a) => (a.bankAccountId === account.bankAccountId ? account : a))
          : [...accounts, account]
      }
      return { ...doc, bankAccounts: accounts }
    }
    case "BankAccountUnlinked":
      return { ...doc, bankAccounts: doc.bankAccounts.filter((a) => a.bankAccountId !== event.bankAccountId) }
    case "NotificationPreferencesUpdated":
      return { ...doc, notificationPreferences: event.preferences }
    case "PushTokenRegistered":
      return {
        ...doc,
        pushTokens: [
          ...doc.pushTokens.filter((t) => t.token !== event.token),
          { token: event.token, expireAt: event.expireAt },
        ],
      }
    case "PushTokenRemoved":
      return { ...doc, pushTokens: doc.pushTokens.filter((t) => t.token !== event.token) }
    case "CardPaymentMethodSaved":
      return {
        ...doc,
        cardPaymentMethods: doc.cardPaymentMethods.some((m) => m.id === event.method.id)
          ? doc.cardPaymentMethods.map((m) => (m.id === event.method.id ? event.method : m))
          : [...doc.cardPaymentMethods, event.method],
      }
    case "BankAccountUnusable":
      return {
        ...doc,
        bankAccounts: doc.bankAccounts.map((a) =>
          a.bankAccountId === event.bankAccountId ? { ...a, status: "Unusable", returnCode: event.returnCode } : a,
        ),
      }
    case "DefaultBankAccountSet":
    case "AutoPayRevoked":
      return doc
  }
}

export const projection: Projection<CustomerDocument, CustomerEnvelope> = {
  collection,
  document: CustomerDocument as Schema.Codec<CustomerDocument, unknown>,
  ...perAggregate<CustomerEnvelope>("Customer", (event) => event.registrationId),
  creates: ["CustomerRegistered"],
  apply,
  index: (document) => ({
    partnerId: document.partnerId,
    // The identity verification's reference: a donor named by their verification id (Charity.ts).
    keys: document.kycReferenceId === null ? {} : { kycReferenceId: document.kycReferenceId },
    sortKey: DateTime.formatIso(document.registeredAt),
  }),
}
