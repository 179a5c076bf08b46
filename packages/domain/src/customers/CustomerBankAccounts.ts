/**
 * The Customer's bank accounts: linked in a bank-link session issued to the
 * customer (`CustomerKyc.ts`), kept masked (last 4 digits), unlinked, and one
 * designated for autopay and debit-authorization collections.
 */
import type { DateTime } from "effect"
import * as AuthorizationEvidence from "../kernel/AuthorizationEvidence.ts"
import { accept, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import { NotFound, RuleViolated } from "../kernel/DomainError.ts"
import type { BankAccountId } from "../kernel/Ids.ts"
import { failIfAny, type Issues, identityOf, pattern, text, uuidMessage, uuidPattern } from "./CustomerChecks.ts"
import {
  BankAccountsLinked,
  BankAccountUnlinked,
  type CustomerEvent,
  DefaultBankAccountSet,
  type LinkedBankAccount,
  lastFourPattern,
} from "./CustomerEvents.ts"
import { hasBankAccount, type RegisteredCustomer } from "./CustomerState.ts"

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

/** The customer designates a linked account for autopay and debit-authorization collections. */
export interface SetDefaultBankAccount {
  readonly _tag: "SetDefaultBankAccount"
  readonly bankAccountId: BankAccountId
  /** The request that carried the payer's autopay authorization, recorded as its evidence. */
  readonly client?: AuthorizationEvidence.ClientContext
  readonly at: DateTime.Utc
}

/** The same details for an account already found by its id. */
const sameDetails = (a: LinkedBankAccount, b: LinkedBankAccount): boolean =>
  a.institutionId === b.institutionId && a.name === b.name && a.mask === b.mask && a.type === b.type

/** Only what a stored account may hold: a fresh object, so no extra field (a full number) slips through. */
const maskedAccount = (account: LinkedBankAccount): LinkedBankAccount => ({
  bankAccountId: account.bankAccountId,
  institutionId: account.institutionId,
  name: account.name,
  mask: account.mask,
  type: account.type,
})

/**
 * CUSTOMER_NOT_VERIFIED: a customer whose identity verification was Rejected links no account (the
 * money-movement providers refuse funding sources of unverified customers); a new verification
 * (`StartKyc`) makes it Pending again, and linking works again in its session.
 */
export const kycRejected = new RuleViolated({
  code: "CUSTOMER_NOT_VERIFIED",
  reason: "the customer's identity verification (KYC) was Rejected: start a new verification before linking accounts",
})

export const linkBankAccounts = (command: LinkBankAccounts, state: RegisteredCustomer): Decision<CustomerEvent> => {
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
  if (state.kycStatus === "Rejected") return refuse(kycRejected)
  if (!state.linkSessions.includes(command.tokenId)) {
    return refuse(
      new RuleViolated({
        code: "LINK_SESSION_UNKNOWN",
        reason: "the bank-link session was not issued to this customer",
      }),
    )
  }
  // An account an ACH return made unusable is usable again once linked again, even with the same details.
  const changed = command.accounts.filter((account) => {
    const known = state.bankAccounts.find((a) => a.bankAccountId === account.bankAccountId)
    return (
      known === undefined ||
      !known.linked ||
      !sameDetails(known, account) ||
      state.unusableBankAccounts?.[account.bankAccountId] !== undefined
    )
  })
  if (changed.length === 0) return nothing
  const { tokenId, at } = command
  return accept<CustomerEvent>(
    BankAccountsLinked.make({ ...identityOf(state), tokenId, accounts: changed.map(maskedAccount), at }),
  )
}

export const unlinkBankAccount = (command: UnlinkBankAccount, state: RegisteredCustomer): Decision<CustomerEvent> => {
  const customer = identityOf(state)
  const account = state.bankAccounts.find((a) => a.bankAccountId === command.bankAccountId)
  if (account === undefined) return refuse(new NotFound({ entity: "BankAccount" }))
  if (!account.linked) return nothing
  return accept<CustomerEvent>(
    BankAccountUnlinked.make({ ...customer, bankAccountId: command.bankAccountId, at: command.at }),
  )
}

export const setDefaultBankAccount = (
  command: SetDefaultBankAccount,
  state: RegisteredCustomer,
): Decision<CustomerEvent> => {
  if (!hasBankAccount(state, command.bankAccountId)) return refuse(new NotFound({ entity: "BankAccount" }))
  if (state.defaultBankAccountId === command.bankAccountId) return nothing
  const { bankAccountId, at } = command
  const authorization = AuthorizationEvidence.authorizationOf("Autopay", command)
  return accept<CustomerEvent>(
    DefaultBankAccountSet.make({ ...identityOf(state), bankAccountId, ...authorization, at }),
  )
}
