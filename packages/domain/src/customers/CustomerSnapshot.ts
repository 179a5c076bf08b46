/**
 * The Customer aggregate's snapshot: its state as JSON, so that loading a
 * customer does not replay a stream that grows with every login, push token
 * and preference change (see `CommandHandler.load`). Bump `schemaVersion`
 * whenever the state's shape or `evolve` changes: older snapshots are then
 * ignored and replaced on the next command.
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
} from "./CustomerEvents.ts"
import type { State as CustomerState } from "./CustomerState.ts"

const Unregistered = Schema.TaggedStruct("Unregistered", {})

const Registered = Schema.TaggedStruct("Registered", {
  registrationId: RegistrationId,
  partnerId: PartnerId,
  phoneNumber: Schema.String,
  kycStatus: KycStatus,
  kycReferenceId: Schema.NullOr(Schema.String),
  personalData: Schema.NullOr(PersonalData),
  linkSessions: Schema.Array(Schema.String),
  bankAccounts: Schema.Array(Schema.Struct({ ...LinkedBankAccount.fields, linked: Schema.Boolean })),
  notificationPreferences: NotificationPreferences,
  pushTokens: Schema.Array(Schema.Struct({ token: Schema.String, expireAt: Schema.DateTimeUtcFromString })),
  cardPaymentMethods: Schema.Array(CardPaymentMethod),
  defaultBankAccountId: Schema.optionalKey(BankAccountId),
  autopayAuthorization: Schema.optionalKey(AuthorizationEvidence),
  unusableBankAccounts: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  autoPayRevokedFor: Schema.optionalKey(Schema.Array(CompanyId)),
})

/** The Customer state's JSON codec. */
export const CustomerStateJson: Schema.Codec<CustomerState, unknown> = Schema.Union([Unregistered, Registered])

/** A snapshot at least every 100 events. */
export const policy: SnapshotPolicy<CustomerState> = {
  schemaVersion: 3,
  state: CustomerStateJson,
  every: 100,
}
