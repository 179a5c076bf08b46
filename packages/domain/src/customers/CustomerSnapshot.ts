/**
 * The Customer aggregate's snapshot: its state as JSON, so that loading a
 * customer does not replay a stream that grows with every login, push token
 * and preference change (see `CommandHandler.load`). Bump `schemaVersion`
 * whenever the state's shape or `evolve` changes: older snapshots are then
 * ignored and replaced on the next command. The state's shape is declared
 * here, once: `CustomerState.ts` takes its types from these schemas.
 */
import { Schema } from "effect"
import { AuthorizationEvidence } from "../kernel/AuthorizationEvidence.ts"
import type { SnapshotPolicy } from "../kernel/Decider.ts"
import { BankAccountId, CompanyId, PartnerId, RegistrationId } from "../kernel/Ids.ts"
import {
  CardPaymentMethod,
  KycStatus,
  LinkedBankAccount,
  NotificationPreferences,
  PersonalData,
  PushToken,
} from "./CustomerEvents.ts"

/** A customer not registered yet: the state before its first event. */
export const Unregistered = Schema.TaggedStruct("Unregistered", {})

/** A bank account known to the customer; `linked` is false once removed. */
export const BankAccount = Schema.Struct({ ...LinkedBankAccount.fields, linked: Schema.Boolean })

/** A registered customer, as its events leave it (the types of `CustomerState.ts` are this schema's). */
export const Registered = Schema.TaggedStruct("Registered", {
  registrationId: RegistrationId,
  partnerId: PartnerId,
  phoneNumber: Schema.String,
  kycStatus: KycStatus,
  /** The provider's reference of the latest verdict (null before any). */
  kycReferenceId: Schema.NullOr(Schema.String),
  /** Set once identity is verified. */
  personalData: Schema.NullOr(PersonalData),
  /** Token ids of the bank-link sessions issued to the customer, oldest first. */
  linkSessions: Schema.Array(Schema.String),
  /** Every bank account ever linked, in order of first link. */
  bankAccounts: Schema.Array(BankAccount),
  notificationPreferences: NotificationPreferences,
  /** Push tokens, least recently registered first; never more than `maxPushTokens`. */
  pushTokens: Schema.Array(PushToken),
  cardPaymentMethods: Schema.Array(CardPaymentMethod),
  /** The account autopay debits (PUT /Account/Default); cleared when that account is unlinked. */
  defaultBankAccountId: Schema.optionalKey(BankAccountId),
  /** The evidence of the autopay designation in force (with `defaultBankAccountId`), when recorded. */
  autopayAuthorization: Schema.optionalKey(AuthorizationEvidence),
  /** Accounts an account-level ACH return made unusable, with its code; cleared when linked again. */
  unusableBankAccounts: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  /** Companies an unauthorized return turned autopay off for; cleared by a new autopay designation. */
  autoPayRevokedFor: Schema.optionalKey(Schema.Array(CompanyId)),
})

/** The Customer state's JSON codec. */
export const CustomerStateJson = Schema.Union([Unregistered, Registered])

/** A snapshot at least every 100 events. */
export const policy: SnapshotPolicy<typeof CustomerStateJson.Type> = {
  schemaVersion: 3,
  state: CustomerStateJson,
  every: 100,
}
