/**
 * The Customer's identity verification (KYC) and bank-link sessions: a
 * verification started with the provider is also a bank-link session; once
 * verified, the customer opens more sessions; the provider's verdict is
 * recorded once. The sessions issued here are the only ones
 * `LinkBankAccounts` accepts (`CustomerBankAccounts.ts`): the invariant that
 * keeps the two in one aggregate.
 */
import type { DateTime } from "effect"
import * as CalendarDate from "../kernel/CalendarDate.ts"
import { accept, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import type { ValidationFailed } from "../kernel/DomainError.ts"
import {
  failIfAny,
  type Issues,
  identityOf,
  illegal,
  millis,
  pattern,
  phoneMessage,
  text,
  uuidMessage,
  uuidPattern,
} from "./CustomerChecks.ts"
import {
  type CustomerEvent,
  e164Pattern,
  emailPattern,
  KycRejected,
  KycVerified,
  lastFourPattern,
  type PersonalData,
} from "./CustomerEvents.ts"
import type { RegisteredCustomer } from "./CustomerState.ts"

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

const personalDataOnly = (data: PersonalData): PersonalData => ({
  profileName: data.profileName,
  firstName: data.firstName,
  lastName: data.lastName,
  birthDate: data.birthDate,
  ssnLastFourDigits: data.ssnLastFourDigits,
  emailAddress: data.emailAddress,
  phoneNumber: data.phoneNumber,
})

const validateSession = (command: StartKyc | OpenBankLinkSession): ValidationFailed | undefined => {
  const issues: Issues = []
  pattern(issues, "tokenId", command.tokenId, uuidPattern, uuidMessage)
  if (millis(command.expiration) <= millis(command.at)) {
    issues.push({ field: "expiration", message: "must be in the future" })
  }
  return failIfAny(issues)
}

export const startKyc = (command: StartKyc, state: RegisteredCustomer): Decision<CustomerEvent> =>
  state.kycStatus === "Verified"
    ? illegal(state, command, "the customer's identity is already verified")
    : opened("KycStarted", command, state)

export const openBankLinkSession = (
  command: OpenBankLinkSession,
  state: RegisteredCustomer,
): Decision<CustomerEvent> =>
  state.kycStatus !== "Verified"
    ? illegal(state, command, "start identity verification (StartKyc) to open a bank-link session")
    : opened("BankLinkSessionOpened", command, state)

/** A KYC or bank-link session, once per token: the two are opened alike and share the customer's `linkSessions`. */
const opened = (
  _tag: "KycStarted" | "BankLinkSessionOpened",
  command: StartKyc | OpenBankLinkSession,
  state: RegisteredCustomer,
): Decision<CustomerEvent> => {
  const invalid = validateSession(command)
  if (invalid) return refuse(invalid)
  if (state.linkSessions.includes(command.tokenId)) return nothing
  const { tokenId, expiration, at } = command
  return accept<CustomerEvent>({ _tag, ...identityOf(state), tokenId, expiration, at })
}

export const recordKycResult = (command: RecordKycResult, state: RegisteredCustomer): Decision<CustomerEvent> => {
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
      const { referenceId, at } = command
      if (command.outcome === "Rejected")
        return accept<CustomerEvent>(KycRejected.make({ ...customer, referenceId, at }))
      const personalData = personalDataOnly(command.personalData as PersonalData)
      return accept<CustomerEvent>(KycVerified.make({ ...customer, referenceId, personalData, at }))
    }
  }
}
