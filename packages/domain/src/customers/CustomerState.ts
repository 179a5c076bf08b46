/**
 * The Customer aggregate's state, the limits its decider keeps, and the
 * queries read models, use cases and other areas ask of it (is the customer
 * the partner's, which bank accounts are linked...). The decider itself is
 * `Customer.ts`; the state's schema is also its snapshots' JSON codec (`CustomerSnapshot.ts`).
 */
import { Schema } from "effect"
import { AuthorizationEvidence } from "../kernel/AuthorizationEvidence.ts"
import { BankAccountId, CompanyId, PartnerId, RegistrationId } from "../kernel/Ids.ts"
import {
  CardPaymentMethod,
  KycStatus,
  LinkedBankAccount,
  NotificationPreferences,
  PersonalData,
  PushToken,
} from "./CustomerEvents.ts"

// ---------------------------------------------------------------------------
// Policies
// ---------------------------------------------------------------------------

/**
 * Preferences of a new customer: messages about their own payments (status,
 * due dates, overdraft warnings) on by email and push; news (marketing) off
 * until the customer opts in.
 */
export const defaultNotificationPreferences: NotificationPreferences = {
  newsEmail: false,
  newsPush: false,
  overdraftWarningsEmail: true,
  overdraftWarningsPush: true,
  paymentStatusEmail: true,
  paymentStatusPush: true,
  paymentDueEmail: true,
  paymentDuePush: true,
}

/** At most this many push tokens per customer; registering one more drops the least recently registered. */
export const maxPushTokens = 20
/** Longest push token accepted (device tokens are far shorter; this bounds storage). */
export const maxPushTokenLength = 4096
/** Longest free-text field (names, institution ids, account types, card ids and brands). */
export const maxTextLength = 255

// ---------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------

/** A bank account known to the customer; `linked` is false once removed. */
export const BankAccount = Schema.Struct({ ...LinkedBankAccount.fields, linked: Schema.Boolean })
export type BankAccount = typeof BankAccount.Type

/** A customer not registered yet: the state before its first event. */
export const UnregisteredCustomer = Schema.TaggedStruct("Unregistered", {})

/** A registered customer, as its events leave it. */
export const RegisteredCustomer = Schema.TaggedStruct("Registered", {
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
export type RegisteredCustomer = typeof RegisteredCustomer.Type

/** The state, declared once: its schema is also the JSON codec of its snapshots (`CustomerSnapshot.ts`). */
export const State = Schema.Union([UnregisteredCustomer, RegisteredCustomer])
export type State = typeof State.Type

export const initialState: State = { _tag: "Unregistered" }

// ---------------------------------------------------------------------------
// Queries for read models and the HTTP layer
// ---------------------------------------------------------------------------

export const isRegistered = (state: State): state is RegisteredCustomer => state._tag === "Registered"

/** True when the customer exists and belongs to the partner (tenancy check at the edge). */
export const belongsTo = (state: State, partnerId: PartnerId): boolean =>
  // Stryker disable next-line ConditionalExpression: equivalent, a customer never registered has no partner (the test narrows the type)
  state._tag === "Registered" && state.partnerId === partnerId

export const kycStatus = (state: State): KycStatus => (state._tag === "Registered" ? state.kycStatus : "NotStarted")

export const personalData = (state: State): PersonalData | null =>
  state._tag === "Registered" ? state.personalData : null

/** True when the bank account is currently linked to the customer. */
export const hasBankAccount = (state: State, bankAccountId: BankAccountId): boolean =>
  state._tag === "Registered" && state.bankAccounts.some((a) => a.bankAccountId === bankAccountId && a.linked)

/** The currently linked bank accounts (masked), in order of first link. */
export const linkedBankAccounts = (state: State): ReadonlyArray<LinkedBankAccount> =>
  state._tag === "Registered"
    ? state.bankAccounts.filter((a) => a.linked).map(({ linked: _linked, ...account }) => account)
    : []

export const notificationPreferences = (state: State): NotificationPreferences =>
  state._tag === "Registered" ? state.notificationPreferences : defaultNotificationPreferences

export const pushTokens = (state: State): ReadonlyArray<PushToken> =>
  state._tag === "Registered" ? state.pushTokens : []

/** The linked account the customer designated for autopay, if any. */
export const defaultBankAccount = (state: State): LinkedBankAccount | undefined =>
  // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent, without a registration or a designation no linked account matches (the tests narrow the type)
  state._tag === "Registered" && state.defaultBankAccountId !== undefined
    ? linkedBankAccounts(state).find((a) => a.bankAccountId === state.defaultBankAccountId)
    : undefined

export const cardPaymentMethods = (state: State): ReadonlyArray<CardPaymentMethod> =>
  state._tag === "Registered" ? state.cardPaymentMethods : []
