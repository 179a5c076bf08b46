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
 */
import { DateTime } from "effect"
import * as CalendarDate from "../kernel/CalendarDate.ts"
import { type Aggregate, accept, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import {
  AlreadyExists,
  type DomainError,
  type FieldIssue,
  IllegalTransition,
  NotFound,
  RuleViolated,
  ValidationFailed,
} from "../kernel/DomainError.ts"
import type { BankAccountId, PartnerId, RegistrationId } from "../kernel/Ids.ts"
import { isErased } from "../kernel/Personal.ts"
import {
  type BankAccountsLinked,
  type BankAccountUnlinked,
  type BankLinkSessionOpened,
  type CardPaymentMethod,
  type CardPaymentMethodSaved,
  type CustomerEvent,
  CustomerEvent as CustomerEventSchema,
  type CustomerRegistered,
  type DefaultBankAccountSet,
  e164Pattern,
  emailPattern,
  type KycRejected,
  type KycStarted,
  type KycVerified,
  type LinkedBankAccount,
  lastFourPattern,
  type NotificationPreferences,
  type NotificationPreferencesUpdated,
  type PersonalData,
  type PushTokenRegistered,
  type PushTokenRemoved,
} from "./CustomerEvents.ts"
import * as CustomerSnapshot from "./CustomerSnapshot.ts"
import {
  type BankAccount,
  defaultNotificationPreferences,
  hasBankAccount,
  initialState,
  maxPushTokenLength,
  maxPushTokens,
  maxTextLength,
  type PushToken,
  pushTokens,
  type RegisteredCustomer,
  type State,
} from "./CustomerState.ts"

export * from "./CustomerEvents.ts"
export * from "./CustomerState.ts"

// ---------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------

/** The first successful one-time-code login registers the customer with the phone number the code was sent to. */
export interface RegisterCustomer {
  readonly _tag: "RegisterCustomer"
  readonly registrationId: RegistrationId
  readonly partnerId: PartnerId
  readonly phoneNumber: string
  readonly at: DateTime.Utc
}

/**
 * Identity verification started with the provider: `tokenId` identifies the
 * session (it is also a bank-link session), valid until `expiration`. The
 * provider's link token goes back to the client and is not recorded.
 */
export interface StartKyc {
  readonly _tag: "StartKyc"
  readonly tokenId: string
  readonly expiration: DateTime.Utc
  readonly at: DateTime.Utc
}

export type KycOutcome = "Verified" | "Rejected" | "Pending"

/** The provider's verdict. `personalData` is required when Verified and ignored otherwise. */
export interface RecordKycResult {
  readonly _tag: "RecordKycResult"
  readonly outcome: KycOutcome
  readonly referenceId: string
  readonly personalData?: PersonalData | undefined
  readonly at: DateTime.Utc
}

/** Opens a bank-link session for a verified customer, to link more accounts. */
export interface OpenBankLinkSession {
  readonly _tag: "OpenBankLinkSession"
  readonly tokenId: string
  readonly expiration: DateTime.Utc
  readonly at: DateTime.Utc
}

/** Bank accounts chosen in the link session `tokenId`, with masked numbers (`mask` = last 4 digits). */
export interface LinkBankAccounts {
  readonly _tag: "LinkBankAccounts"
  readonly tokenId: string
  readonly accounts: ReadonlyArray<LinkedBankAccount>
  readonly at: DateTime.Utc
}

export interface UnlinkBankAccount {
  readonly _tag: "UnlinkBankAccount"
  readonly bankAccountId: BankAccountId
  readonly at: DateTime.Utc
}

/** Changes some preferences; the others keep their value. */
export interface UpdateNotificationPreferences {
  readonly _tag: "UpdateNotificationPreferences"
  readonly changes: Partial<NotificationPreferences>
  readonly at: DateTime.Utc
}

export interface RegisterPushToken {
  readonly _tag: "RegisterPushToken"
  readonly token: string
  readonly expireAt: DateTime.Utc
  readonly at: DateTime.Utc
}

export interface RemovePushToken {
  readonly _tag: "RemovePushToken"
  readonly token: string
  readonly at: DateTime.Utc
}

/** Removes every push token expired at `at` (before pushing a message: an expired token is never used). */
export interface PruneExpiredPushTokens {
  readonly _tag: "PruneExpiredPushTokens"
  readonly at: DateTime.Utc
}

/** A card saved with the card processor, as it lists it (`id` is the processor's id). */
export interface SaveCardPaymentMethod {
  readonly _tag: "SaveCardPaymentMethod"
  readonly method: CardPaymentMethod
  readonly at: DateTime.Utc
}

/** The customer designates a linked account for autopay and debit-authorization collections. */
export interface SetDefaultBankAccount {
  readonly _tag: "SetDefaultBankAccount"
  readonly bankAccountId: BankAccountId
  readonly at: DateTime.Utc
}

/** The events of this aggregate. */
export type Event = CustomerEvent

export type Command =
  | RegisterCustomer
  | StartKyc
  | RecordKycResult
  | OpenBankLinkSession
  | LinkBankAccounts
  | UnlinkBankAccount
  | UpdateNotificationPreferences
  | RegisterPushToken
  | RemovePushToken
  | PruneExpiredPushTokens
  | SaveCardPaymentMethod
  | SetDefaultBankAccount

// ---------------------------------------------------------------------------
// Validation helpers
// ---------------------------------------------------------------------------

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

type Issues = Array<FieldIssue>

const text = (issues: Issues, field: string, value: string, options: { allowEmpty?: boolean } = {}): void => {
  if (typeof value !== "string") issues.push({ field, message: "must be a string" })
  else if (!options.allowEmpty && value.trim().length === 0) issues.push({ field, message: "must not be empty" })
  else if (value.length > maxTextLength) issues.push({ field, message: `must be at most ${maxTextLength} characters` })
}

const pattern = (issues: Issues, field: string, value: string, re: RegExp, message: string): void => {
  if (typeof value !== "string" || !re.test(value)) issues.push({ field, message })
}

const phoneMessage = "must be an E.164 phone number such as +14155550123"
const lastFourMessage = "must be exactly the last 4 digits"
const uuidMessage = "must be a lowercase UUID"

const millis = (instant: DateTime.Utc): number => instant.epochMilliseconds

const failIfAny = (issues: Issues): ValidationFailed | undefined =>
  issues.length > 0 ? new ValidationFailed({ issues }) : undefined

const validatePersonalData = (issues: Issues, data: PersonalData, at: DateTime.Utc): void => {
  text(issues, "personalData.profileName", data.profileName, { allowEmpty: true })
  text(issues, "personalData.firstName", data.firstName)
  text(issues, "personalData.lastName", data.lastName)
  if (typeof data.birthDate !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(data.birthDate)) {
    issues.push({ field: "personalData.birthDate", message: "must be a date YYYY-MM-DD" })
  } else if (
    CalendarDate.compare(data.birthDate as CalendarDate.CalendarDate, CalendarDate.fromEpochMillis(millis(at))) >= 0
  ) {
    issues.push({ field: "personalData.birthDate", message: "must be in the past" })
  }
  pattern(
    issues,
    "personalData.ssnLastFourDigits",
    data.ssnLastFourDigits,
    lastFourPattern,
    "must be exactly the last 4 digits of the SSN (a full SSN is never accepted)",
  )
  pattern(issues, "personalData.emailAddress", data.emailAddress, emailPattern, "must be an email address")
  pattern(issues, "personalData.phoneNumber", data.phoneNumber, e164Pattern, phoneMessage)
}

const sameAccount = (a: LinkedBankAccount, b: LinkedBankAccount): boolean =>
  a.bankAccountId === b.bankAccountId &&
  a.institutionId === b.institutionId &&
  a.name === b.name &&
  a.mask === b.mask &&
  a.type === b.type

const sameCard = (a: CardPaymentMethod, b: CardPaymentMethod): boolean =>
  a.id === b.id &&
  a.type === b.type &&
  a.brand === b.brand &&
  a.last4 === b.last4 &&
  a.expMonth === b.expMonth &&
  a.expYear === b.expYear

/** Only what a stored account may hold: a fresh object, so no extra field (a full number) slips through. */
const maskedAccount = (account: LinkedBankAccount): LinkedBankAccount => ({
  bankAccountId: account.bankAccountId,
  institutionId: account.institutionId,
  name: account.name,
  mask: account.mask,
  type: account.type,
})

const cardOnly = (card: CardPaymentMethod): CardPaymentMethod => ({
  id: card.id,
  type: card.type,
  brand: card.brand,
  last4: card.last4,
  expMonth: card.expMonth,
  expYear: card.expYear,
})

const personalDataOnly = (data: PersonalData): PersonalData => ({
  profileName: data.profileName,
  firstName: data.firstName,
  lastName: data.lastName,
  birthDate: data.birthDate,
  ssnLastFourDigits: data.ssnLastFourDigits,
  emailAddress: data.emailAddress,
  phoneNumber: data.phoneNumber,
})

// ---------------------------------------------------------------------------
// Decide
// ---------------------------------------------------------------------------

const entity = "Customer"

const illegal = (state: RegisteredCustomer, command: Command, reason: string) =>
  refuse(new IllegalTransition({ entity, state: state.kycStatus, command: command._tag, reason }))

export const decide = (command: Command, state: State): Decision<Event> => {
  if (command._tag === "RegisterCustomer") return register(command, state)
  if (state._tag === "Unregistered") return refuse(new NotFound({ entity }))
  switch (command._tag) {
    case "StartKyc":
      return startKyc(command, state)
    case "RecordKycResult":
      return recordKycResult(command, state)
    case "OpenBankLinkSession":
      return openBankLinkSession(command, state)
    case "LinkBankAccounts":
      return linkBankAccounts(command, state)
    case "UnlinkBankAccount":
      return unlinkBankAccount(command, state)
    case "UpdateNotificationPreferences":
      return updateNotificationPreferences(command, state)
    case "RegisterPushToken":
      return registerPushToken(command, state)
    case "RemovePushToken":
      return removePushToken(command, state)
    case "PruneExpiredPushTokens":
      return pruneExpiredPushTokens(command, state)
    case "SaveCardPaymentMethod":
      return saveCardPaymentMethod(command, state)
    case "SetDefaultBankAccount":
      return setDefaultBankAccount(command, state)
  }
}

const setDefaultBankAccount = (command: SetDefaultBankAccount, state: RegisteredCustomer): Decision<Event> => {
  if (!hasBankAccount(state, command.bankAccountId)) return refuse(new NotFound({ entity: "BankAccount" }))
  if (state.defaultBankAccountId === command.bankAccountId) return nothing
  const event: DefaultBankAccountSet = {
    _tag: "DefaultBankAccountSet",
    ...identityOf(state),
    bankAccountId: command.bankAccountId,
    at: command.at,
  }
  return accept<CustomerEvent>(event)
}

/** The registration id and partner id every event carries. */
const identityOf = (state: RegisteredCustomer) => ({ registrationId: state.registrationId, partnerId: state.partnerId })

const startKyc = (command: StartKyc, state: RegisteredCustomer): Decision<Event> => {
  const customer = identityOf(state)
  if (state.kycStatus === "Verified") return illegal(state, command, "the customer's identity is already verified")
  const invalid = validateSession(command)
  if (invalid) return refuse(invalid)
  if (state.linkSessions.includes(command.tokenId)) return nothing
  const event: KycStarted = {
    _tag: "KycStarted",
    ...customer,
    tokenId: command.tokenId,
    expiration: command.expiration,
    at: command.at,
  }
  return accept<CustomerEvent>(event)
}

const openBankLinkSession = (command: OpenBankLinkSession, state: RegisteredCustomer): Decision<Event> => {
  const customer = identityOf(state)
  if (state.kycStatus !== "Verified") {
    return illegal(state, command, "start identity verification (StartKyc) to open a bank-link session")
  }
  const invalid = validateSession(command)
  if (invalid) return refuse(invalid)
  if (state.linkSessions.includes(command.tokenId)) return nothing
  const event: BankLinkSessionOpened = {
    _tag: "BankLinkSessionOpened",
    ...customer,
    tokenId: command.tokenId,
    expiration: command.expiration,
    at: command.at,
  }
  return accept<CustomerEvent>(event)
}

const unlinkBankAccount = (command: UnlinkBankAccount, state: RegisteredCustomer): Decision<Event> => {
  const customer = identityOf(state)
  const account = state.bankAccounts.find((a) => a.bankAccountId === command.bankAccountId)
  if (account === undefined) return refuse(new NotFound({ entity: "BankAccount" }))
  if (!account.linked) return nothing
  const event: BankAccountUnlinked = {
    _tag: "BankAccountUnlinked",
    ...customer,
    bankAccountId: command.bankAccountId,
    at: command.at,
  }
  return accept<CustomerEvent>(event)
}

const updateNotificationPreferences = (
  command: UpdateNotificationPreferences,
  state: RegisteredCustomer,
): Decision<Event> => {
  const customer = identityOf(state)
  const issues: Issues = []
  const preferences = { ...state.notificationPreferences }
  for (const [key, value] of Object.entries(command.changes)) {
    if (!Object.hasOwn(defaultNotificationPreferences, key)) {
      issues.push({ field: `changes.${key}`, message: "is not a notification preference" })
    } else if (typeof value !== "boolean") {
      issues.push({ field: `changes.${key}`, message: "must be true or false" })
    } else {
      preferences[key as keyof NotificationPreferences] = value
    }
  }
  const invalid = failIfAny(issues)
  if (invalid) return refuse(invalid)
  const unchanged = (Object.keys(preferences) as Array<keyof NotificationPreferences>).every(
    (key) => preferences[key] === state.notificationPreferences[key],
  )
  if (unchanged) return nothing
  const event: NotificationPreferencesUpdated = {
    _tag: "NotificationPreferencesUpdated",
    ...customer,
    preferences,
    at: command.at,
  }
  return accept<CustomerEvent>(event)
}

const registerPushToken = (command: RegisterPushToken, state: RegisteredCustomer): Decision<Event> => {
  const customer = identityOf(state)
  const issues: Issues = []
  if (typeof command.token !== "string" || command.token.trim().length === 0) {
    issues.push({ field: "token", message: "must not be empty" })
  } else if (command.token.length > maxPushTokenLength) {
    issues.push({ field: "token", message: `must be at most ${maxPushTokenLength} characters` })
  }
  if (millis(command.expireAt) <= millis(command.at)) {
    issues.push({ field: "expireAt", message: "must be in the future" })
  }
  const invalid = failIfAny(issues)
  if (invalid) return refuse(invalid)
  const known = state.pushTokens.find((t) => t.token === command.token)
  if (known !== undefined && millis(known.expireAt) === millis(command.expireAt)) return nothing
  const events: Array<CustomerEvent> = []
  const oldest = state.pushTokens[0]
  if (known === undefined && state.pushTokens.length >= maxPushTokens && oldest !== undefined) {
    const removed: PushTokenRemoved = {
      _tag: "PushTokenRemoved",
      ...customer,
      token: oldest.token,
      reason: "CapReached",
      at: command.at,
    }
    events.push(removed)
  }
  const registered: PushTokenRegistered = {
    _tag: "PushTokenRegistered",
    ...customer,
    token: command.token,
    expireAt: command.expireAt,
    at: command.at,
  }
  events.push(registered)
  return accept(...events)
}

const removePushToken = (command: RemovePushToken, state: RegisteredCustomer): Decision<Event> => {
  const customer = identityOf(state)
  if (!state.pushTokens.some((t) => t.token === command.token)) return nothing
  const event: PushTokenRemoved = {
    _tag: "PushTokenRemoved",
    ...customer,
    token: command.token,
    reason: "RemovedByCustomer",
    at: command.at,
  }
  return accept<CustomerEvent>(event)
}

/** The push tokens that can still be used at `at` (expiry is exclusive: a token expiring at `at` is expired). */
export const activePushTokens = (state: State, at: DateTime.Utc): ReadonlyArray<PushToken> =>
  pushTokens(state).filter((t) => DateTime.isGreaterThan(t.expireAt, at))

const pruneExpiredPushTokens = (command: PruneExpiredPushTokens, state: RegisteredCustomer): Decision<Event> => {
  const customer = identityOf(state)
  const expired = state.pushTokens.filter((t) => !DateTime.isGreaterThan(t.expireAt, command.at))
  if (expired.length === 0) return nothing
  return accept<CustomerEvent>(
    ...expired.map(
      (t): PushTokenRemoved => ({
        _tag: "PushTokenRemoved",
        ...customer,
        token: t.token,
        reason: "Expired",
        at: command.at,
      }),
    ),
  )
}

const saveCardPaymentMethod = (command: SaveCardPaymentMethod, state: RegisteredCustomer): Decision<Event> => {
  const customer = identityOf(state)
  const issues: Issues = []
  const card = command.method
  text(issues, "method.id", card.id)
  text(issues, "method.type", card.type)
  text(issues, "method.brand", card.brand)
  pattern(issues, "method.last4", card.last4, lastFourPattern, lastFourMessage)
  const today = CalendarDate.fromEpochMillis(millis(command.at))
  const [year, month] = today.split("-").map(Number) as [number, number]
  const monthOk = Number.isInteger(card.expMonth) && card.expMonth >= 1 && card.expMonth <= 12
  const yearOk = Number.isInteger(card.expYear) && card.expYear <= 9999
  if (!monthOk) issues.push({ field: "method.expMonth", message: "must be a month number from 1 to 12" })
  if (!yearOk) issues.push({ field: "method.expYear", message: "must be a four-digit year" })
  else if (card.expYear < year) issues.push({ field: "method.expYear", message: "the card has expired" })
  else if (monthOk && card.expYear === year && card.expMonth < month) {
    issues.push({ field: "method.expMonth", message: "the card has expired" })
  }
  const invalid = failIfAny(issues)
  if (invalid) return refuse(invalid)
  const known = state.cardPaymentMethods.find((m) => m.id === card.id)
  if (known !== undefined && sameCard(known, card)) return nothing
  const event: CardPaymentMethodSaved = {
    _tag: "CardPaymentMethodSaved",
    ...customer,
    method: cardOnly(card),
    at: command.at,
  }
  return accept<CustomerEvent>(event)
}

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
  const event: CustomerRegistered = {
    _tag: "CustomerRegistered",
    registrationId: command.registrationId,
    partnerId: command.partnerId,
    phoneNumber: command.phoneNumber,
    at: command.at,
  }
  return accept<CustomerEvent>(event)
}

const validateSession = (command: StartKyc | OpenBankLinkSession): ValidationFailed | undefined => {
  const issues: Issues = []
  pattern(issues, "tokenId", command.tokenId, uuidPattern, uuidMessage)
  if (millis(command.expiration) <= millis(command.at)) {
    issues.push({ field: "expiration", message: "must be in the future" })
  }
  return failIfAny(issues)
}

const recordKycResult = (command: RecordKycResult, state: RegisteredCustomer): Decision<Event> => {
  const customer = identityOf(state)
  switch (state.kycStatus) {
    case "NotStarted":
      return illegal(state, command, "no identity verification was started")
    case "Verified":
    case "Rejected":
      return command.outcome === state.kycStatus && command.referenceId === state.kycReferenceId
        ? nothing
        : illegal(
            state,
            command,
            state.kycStatus === "Verified"
              ? "the customer's identity is already verified"
              : "the verification was rejected; start a new one first",
          )
    case "Pending": {
      const issues: Issues = []
      pattern(issues, "referenceId", command.referenceId, uuidPattern, uuidMessage)
      if (command.outcome === "Verified") {
        if (command.personalData === undefined) {
          issues.push({ field: "personalData", message: "is required when the identity is verified" })
        } else {
          validatePersonalData(issues, command.personalData, command.at)
        }
      }
      const invalid = failIfAny(issues)
      if (invalid) return refuse(invalid)
      if (command.outcome === "Pending") return nothing
      if (command.outcome === "Rejected") {
        const event: KycRejected = {
          _tag: "KycRejected",
          ...customer,
          referenceId: command.referenceId,
          at: command.at,
        }
        return accept<CustomerEvent>(event)
      }
      const event: KycVerified = {
        _tag: "KycVerified",
        ...customer,
        referenceId: command.referenceId,
        personalData: personalDataOnly(command.personalData as PersonalData),
        at: command.at,
      }
      return accept<CustomerEvent>(event)
    }
  }
}

const linkBankAccounts = (command: LinkBankAccounts, state: RegisteredCustomer): Decision<Event> => {
  const issues: Issues = []
  if (command.accounts.length === 0) issues.push({ field: "accounts", message: "must list at least one account" })
  const seen = new Set<string>()
  command.accounts.forEach((account, index) => {
    const at = `accounts[${index}]`
    pattern(issues, `${at}.bankAccountId`, account.bankAccountId, uuidPattern, uuidMessage)
    if (seen.has(account.bankAccountId)) issues.push({ field: `${at}.bankAccountId`, message: "is listed twice" })
    seen.add(account.bankAccountId)
    text(issues, `${at}.institutionId`, account.institutionId)
    text(issues, `${at}.name`, account.name)
    pattern(issues, `${at}.mask`, account.mask, lastFourPattern, "must be the last 4 digits of the account number")
    text(issues, `${at}.type`, account.type)
  })
  const invalid = failIfAny(issues)
  if (invalid) return refuse(invalid)
  if (!state.linkSessions.includes(command.tokenId)) {
    return refuse(
      new RuleViolated({
        code: "LINK_SESSION_UNKNOWN",
        reason: "the bank-link session was not issued to this customer",
      }),
    )
  }
  const changed = command.accounts.filter((account) => {
    const known = state.bankAccounts.find((a) => a.bankAccountId === account.bankAccountId)
    return known === undefined || !known.linked || !sameAccount(known, account)
  })
  if (changed.length === 0) return nothing
  const event: BankAccountsLinked = {
    _tag: "BankAccountsLinked",
    registrationId: state.registrationId,
    partnerId: state.partnerId,
    tokenId: command.tokenId,
    accounts: changed.map(maskedAccount),
    at: command.at,
  }
  return accept<CustomerEvent>(event)
}

// ---------------------------------------------------------------------------
// Evolve
// ---------------------------------------------------------------------------

export const evolve = (state: State, event: Event): State => {
  if (event._tag === "CustomerRegistered") {
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
  switch (event._tag) {
    case "KycStarted":
      return { ...state, kycStatus: "Pending", linkSessions: [...state.linkSessions, event.tokenId] }
    case "KycVerified":
      return { ...state, kycStatus: "Verified", kycReferenceId: event.referenceId, personalData: event.personalData }
    case "KycRejected":
      return { ...state, kycStatus: "Rejected", kycReferenceId: event.referenceId }
    case "BankLinkSessionOpened":
      return { ...state, linkSessions: [...state.linkSessions, event.tokenId] }
    case "BankAccountsLinked": {
      let accounts = state.bankAccounts
      for (const account of event.accounts) {
        const linked: BankAccount = { ...account, linked: true }
        accounts = accounts.some((a) => a.bankAccountId === account.bankAccountId)
          ? accounts.map((a) => (a.bankAccountId === account.bankAccountId ? linked : a))
          : [...accounts, linked]
      }
      return { ...state, bankAccounts: accounts }
    }
    case "BankAccountUnlinked": {
      const { defaultBankAccountId, ...rest } = state
      return {
        ...(defaultBankAccountId === event.bankAccountId ? rest : state),
        bankAccounts: state.bankAccounts.map((a) =>
          a.bankAccountId === event.bankAccountId ? { ...a, linked: false } : a,
        ),
      }
    }
    case "DefaultBankAccountSet":
      return { ...state, defaultBankAccountId: event.bankAccountId }
    case "NotificationPreferencesUpdated":
      return { ...state, notificationPreferences: event.preferences }
    case "PushTokenRegistered":
      return {
        ...state,
        pushTokens: [
          ...state.pushTokens.filter((t) => t.token !== event.token),
          { token: event.token, expireAt: event.expireAt },
        ],
      }
    case "PushTokenRemoved":
      return { ...state, pushTokens: state.pushTokens.filter((t) => t.token !== event.token) }
    case "CardPaymentMethodSaved":
      return {
        ...state,
        cardPaymentMethods: state.cardPaymentMethods.some((m) => m.id === event.method.id)
          ? state.cardPaymentMethods.map((m) => (m.id === event.method.id ? event.method : m))
          : [...state.cardPaymentMethods, event.method],
      }
  }
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
