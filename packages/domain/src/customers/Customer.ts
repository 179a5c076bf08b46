/**
 * Customer: an end user of a partner, identified by a registration id. The
 * first successful one-time-code login registers the customer; afterwards the
 * customer verifies their identity (KYC), links and removes bank accounts,
 * chooses which notifications they receive, registers device push tokens and
 * keeps card payment methods saved with the card processor.
 *
 * Sensitive data never enters the state or the events in full: bank accounts
 * and cards keep only their last four digits, personal data only the last four
 * digits of the SSN, and the provider's link token is not recorded.
 *
 * Bank accounts are linked only through a bank-link session issued to this
 * customer (by `StartKyc`, or `OpenBankLinkSession` once verified): the
 * `tokenId` of `LinkBankAccounts` must be one of those sessions. Linking does
 * not require a verified identity; whether a payment may use an account is the
 * payment's rule, given the facts by the application.
 *
 * One aggregate, its decider split by responsibility: this module registers
 * the customer, dispatches every other command to its module
 * (`CustomerKyc`, `CustomerBankAccounts`, `CustomerNotificationSettings`,
 * `CustomerCards`) and folds the events; the state and its queries are
 * `CustomerState`. The commands share one stream (recorded history, one
 * snapshot), the rule "a registered customer of this partner", and KYC and
 * bank accounts share the link sessions, so they stay one aggregate.
 */
import {
  type Aggregate,
  accept,
  byCommand,
  byEvent,
  type CommandFor,
  type Decision,
  nothing,
  refuse,
} from "../kernel/Decider.ts"
import { AlreadyExists, type DomainError, NotFound } from "../kernel/DomainError.ts"
import { isErased } from "../kernel/Personal.ts"
import * as CustomerBankAccounts from "./CustomerBankAccounts.ts"
import * as CustomerCards from "./CustomerCards.ts"
import { entity, failIfAny, type Issues, pattern, phoneMessage } from "./CustomerChecks.ts"
import {
  type CustomerEvent,
  CustomerEvent as CustomerEventSchema,
  CustomerRegistered,
  e164Pattern,
} from "./CustomerEvents.ts"
import * as CustomerKyc from "./CustomerKyc.ts"
import * as CustomerNotificationSettings from "./CustomerNotificationSettings.ts"
import * as CustomerReturns from "./CustomerReturns.ts"
import * as CustomerSnapshot from "./CustomerSnapshot.ts"
import {
  type BankAccount,
  defaultNotificationPreferences,
  initialState,
  type RegisteredCustomer,
  type State,
} from "./CustomerState.ts"

export type { LinkBankAccounts, SetDefaultBankAccount, UnlinkBankAccount } from "./CustomerBankAccounts.ts"
export type { SaveCardPaymentMethod } from "./CustomerCards.ts"
export * from "./CustomerEvents.ts"
export type { KycOutcome, OpenBankLinkSession, RecordKycResult, StartKyc } from "./CustomerKyc.ts"
export type {
  PruneExpiredPushTokens,
  RegisterPushToken,
  RemovePushToken,
  UpdateNotificationPreferences,
} from "./CustomerNotificationSettings.ts"
export { activePushTokens } from "./CustomerNotificationSettings.ts"
export type { MarkBankAccountUnusable, RevokeAutoPay } from "./CustomerReturns.ts"
export { autoPayAllowedFor, bankAccountRefusal, unusableCode, unusableReturnCode } from "./CustomerReturns.ts"
export * from "./CustomerState.ts"

// ---------------------------------------------------------------------------
// Commands (each responsibility's own in its module)
// ---------------------------------------------------------------------------

/** The first successful one-time-code login registers the customer with the phone number the code was sent to. */
export type RegisterCustomer = CommandFor<"RegisterCustomer", typeof CustomerRegistered.Type>

/** The events of this aggregate. */
export type Event = CustomerEvent

export type Command =
  | RegisterCustomer
  | CustomerKyc.StartKyc
  | CustomerKyc.RecordKycResult
  | CustomerKyc.OpenBankLinkSession
  | CustomerBankAccounts.LinkBankAccounts
  | CustomerBankAccounts.UnlinkBankAccount
  | CustomerNotificationSettings.UpdateNotificationPreferences
  | CustomerNotificationSettings.RegisterPushToken
  | CustomerNotificationSettings.RemovePushToken
  | CustomerNotificationSettings.PruneExpiredPushTokens
  | CustomerCards.SaveCardPaymentMethod
  | CustomerBankAccounts.SetDefaultBankAccount
  | CustomerReturns.MarkBankAccountUnusable
  | CustomerReturns.RevokeAutoPay

// ---------------------------------------------------------------------------
// Decide: registration here, every other command in its responsibility's module
// ---------------------------------------------------------------------------

const register = (command: RegisterCustomer, state: State): Decision<Event> => {
  if (state._tag === "Registered") {
    // An erased customer logging in again with their phone (same challenge, same id) stays registered as is.
    return state.partnerId === command.partnerId &&
      (state.phoneNumber === command.phoneNumber || isErased(state.phoneNumber))
      ? nothing
      : refuse(new AlreadyExists({ entity }))
  }
  const issues: Issues = []
  pattern(issues, "phoneNumber", command.phoneNumber, e164Pattern, phoneMessage)
  const invalid = failIfAny(issues)
  if (invalid) return refuse(invalid)
  const { registrationId, partnerId, phoneNumber, at } = command
  return accept<CustomerEvent>(CustomerRegistered.make({ registrationId, partnerId, phoneNumber, at }))
}

/** Every command of a registered customer, each to the function of its responsibility's module. */
const decideRegistered = byCommand<Exclude<Command, RegisterCustomer>, RegisteredCustomer, Event>({
  StartKyc: CustomerKyc.startKyc,
  RecordKycResult: CustomerKyc.recordKycResult,
  OpenBankLinkSession: CustomerKyc.openBankLinkSession,
  LinkBankAccounts: CustomerBankAccounts.linkBankAccounts,
  UnlinkBankAccount: CustomerBankAccounts.unlinkBankAccount,
  SetDefaultBankAccount: CustomerBankAccounts.setDefaultBankAccount,
  UpdateNotificationPreferences: CustomerNotificationSettings.updateNotificationPreferences,
  RegisterPushToken: CustomerNotificationSettings.registerPushToken,
  RemovePushToken: CustomerNotificationSettings.removePushToken,
  PruneExpiredPushTokens: CustomerNotificationSettings.pruneExpiredPushTokens,
  SaveCardPaymentMethod: CustomerCards.saveCardPaymentMethod,
  MarkBankAccountUnusable: CustomerReturns.markBankAccountUnusable,
  RevokeAutoPay: CustomerReturns.revokeAutoPay,
})

export const decide = (command: Command, state: State): Decision<Event> => {
  if (command._tag === "RegisterCustomer") return register(command, state)
  if (state._tag === "Unregistered") return refuse(new NotFound({ entity }))
  return decideRegistered(command, state)
}

// ---------------------------------------------------------------------------
// Evolve
// ---------------------------------------------------------------------------

/** Every event of a registered customer. */
const evolveRegistered = byEvent<Exclude<Event, { readonly _tag: "CustomerRegistered" }>, RegisteredCustomer>({
  KycStarted: (state, event) => ({
    ...state,
    kycStatus: "Pending",
    linkSessions: [...state.linkSessions, event.tokenId],
  }),
  KycVerified: (state, event) => ({
    ...state,
    kycStatus: "Verified",
    kycReferenceId: event.referenceId,
    personalData: event.personalData,
  }),
  KycRejected: (state, event) => ({ ...state, kycStatus: "Rejected", kycReferenceId: event.referenceId }),
  BankLinkSessionOpened: (state, event) => ({ ...state, linkSessions: [...state.linkSessions, event.tokenId] }),
  BankAccountsLinked: (state, event) => {
    let accounts = state.bankAccounts
    for (const account of event.accounts) {
      const linked: BankAccount = { ...account, linked: true }
      accounts = accounts.some((a) => a.bankAccountId === account.bankAccountId)
        ? accounts.map((a) => (a.bankAccountId === account.bankAccountId ? linked : a))
        : [...accounts, linked]
    }
    // Linking an account again makes it usable again (the customer repaired it at the bank-link provider).
    const unusable = withoutKeys(
      state.unusableBankAccounts,
      event.accounts.map((a) => a.bankAccountId),
    )
    const { unusableBankAccounts: _previous, ...rest } = state
    return { ...rest, bankAccounts: accounts, ...(unusable === undefined ? {} : { unusableBankAccounts: unusable }) }
  },
  BankAccountUnusable: (state, event) => {
    const { defaultBankAccountId, autopayAuthorization: _evidence, ...rest } = state
    return {
      ...(defaultBankAccountId === event.bankAccountId ? rest : state),
      unusableBankAccounts: { ...state.unusableBankAccounts, [event.bankAccountId]: event.returnCode },
    }
  },
  AutoPayRevoked: (state, event) => ({
    ...state,
    autoPayRevokedFor: [...(state.autoPayRevokedFor ?? []), event.companyId],
  }),
  BankAccountUnlinked: (state, event) => {
    const { defaultBankAccountId, autopayAuthorization: _evidence, ...rest } = state
    return {
      ...(defaultBankAccountId === event.bankAccountId ? rest : state),
      bankAccounts: state.bankAccounts.map((a) =>
        a.bankAccountId === event.bankAccountId ? { ...a, linked: false } : a,
      ),
    }
  },
  DefaultBankAccountSet: (state, event) => {
    // A new autopay designation authorizes autopay again, for every company.
    const { autoPayRevokedFor: _revoked, autopayAuthorization: _previous, ...rest } = state
    return {
      ...rest,
      defaultBankAccountId: event.bankAccountId,
      ...(event.authorization === undefined ? {} : { autopayAuthorization: event.authorization }),
    }
  },
  NotificationPreferencesUpdated: (state, event) => ({ ...state, notificationPreferences: event.preferences }),
  PushTokenRegistered: (state, event) => ({
    ...state,
    pushTokens: [
      ...state.pushTokens.filter((t) => t.token !== event.token),
      { token: event.token, expireAt: event.expireAt },
    ],
  }),
  PushTokenRemoved: (state, event) => ({
    ...state,
    pushTokens: state.pushTokens.filter((t) => t.token !== event.token),
  }),
  CardPaymentMethodSaved: (state, event) => ({
    ...state,
    cardPaymentMethods: state.cardPaymentMethods.some((m) => m.id === event.method.id)
      ? state.cardPaymentMethods.map((m) => (m.id === event.method.id ? event.method : m))
      : [...state.cardPaymentMethods, event.method],
  }),
})

export const evolve = (state: State, event: Event): State => {
  if (event._tag === "CustomerRegistered") {
    // A second registration does not fit a registered customer: it changes nothing (decide never emits one).
    if (state._tag === "Registered") return state
    return {
      _tag: "Registered",
      registrationId: event.registrationId,
      partnerId: event.partnerId,
      phoneNumber: event.phoneNumber,
      kycStatus: "NotStarted",
      kycReferenceId: null,
      personalData: null,
      linkSessions: [],
      bankAccounts: [],
      notificationPreferences: defaultNotificationPreferences,
      pushTokens: [],
      cardPaymentMethods: [],
    }
  }
  if (state._tag === "Unregistered") return state
  return evolveRegistered(state, event)
}

/** The record without the given keys; undefined when nothing is left. */
const withoutKeys = (
  record: Readonly<Record<string, string>> | undefined,
  keys: ReadonlyArray<string>,
): Readonly<Record<string, string>> | undefined => {
  if (record === undefined) return undefined
  const kept = Object.fromEntries(Object.entries(record).filter(([key]) => !keys.includes(key)))
  return Object.keys(kept).length === 0 ? undefined : kept
}

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "Customer",
  initialState,
  decide,
  evolve,
  events: CustomerEventSchema,
  eventVersion: () => 1,
  snapshot: CustomerSnapshot.policy,
}
