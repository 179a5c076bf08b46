/**
 * What an ACH return does to the payer (`payments/ReturnConsequences.ts` decides which return does
 * what; the service issues these commands, never a client):
 * - an account-level return (R02, R03, R04, R12-R17, R20) makes the debited bank account
 *   **unusable**: it stays listed with status Unusable, is no longer the autopay account, and no
 *   authorization may name it (`bankAccountRefusal`: BANK_ACCOUNT_UNUSABLE) until the customer links
 *   it again through a bank-link session (BANK_ACCOUNT_RELINK_REQUIRED tells the partner);
 * - an unauthorized return (R05, R07, R10, R11, R29, R51) turns **autopay off for that company**:
 *   the service collects no autopay request of that company from the payer until the payer
 *   designates an autopay account again (PUT /Account/Default: a new autopay authorization).
 */
import { accept, type CommandFor, type Decision, nothing } from "../kernel/Decider.ts"
import { RuleViolated } from "../kernel/DomainError.ts"
import type { BankAccountId, CompanyId } from "../kernel/Ids.ts"
import { identityOf } from "./CustomerChecks.ts"
import { AutoPayRevoked, BankAccountUnusable, type CustomerEvent } from "./CustomerEvents.ts"
import type { RegisteredCustomer, State } from "./CustomerState.ts"

/** The payer's bank said the account cannot be debited (`returnCode` of the account-level group). */
export type MarkBankAccountUnusable = CommandFor<"MarkBankAccountUnusable", typeof BankAccountUnusable.Type, Ids>

/** The payer's bank returned a debit to `companyId` as unauthorized: autopay for that company is off. */
export type RevokeAutoPay = CommandFor<"RevokeAutoPay", typeof AutoPayRevoked.Type, Ids>

/** The customer's ids, which the state supplies to the events. */
type Ids = "registrationId" | "partnerId"

export const unusableCode = "BANK_ACCOUNT_UNUSABLE"

/**
 * An account already unusable changes nothing, nor does one the customer never had (the return is
 * recorded on its transfer whatever the customer stream knows).
 */
export const markBankAccountUnusable = (
  command: MarkBankAccountUnusable,
  state: RegisteredCustomer,
): Decision<CustomerEvent> => {
  if (!state.bankAccounts.some((a) => a.bankAccountId === command.bankAccountId)) return nothing
  if (state.unusableBankAccounts?.[command.bankAccountId] !== undefined) return nothing
  const { bankAccountId, returnCode, reason, at } = command
  return accept<CustomerEvent>(
    BankAccountUnusable.make({ ...identityOf(state), bankAccountId, returnCode, reason, at }),
  )
}

/** Autopay already off for the company changes nothing. */
export const revokeAutoPay = (command: RevokeAutoPay, state: RegisteredCustomer): Decision<CustomerEvent> => {
  if (state.autoPayRevokedFor?.includes(command.companyId) === true) return nothing
  const { companyId, returnCode, at } = command
  return accept<CustomerEvent>(AutoPayRevoked.make({ ...identityOf(state), companyId, returnCode, at }))
}

/** The return code that made the account unusable, undefined while it is usable. */
export const unusableReturnCode = (state: State, bankAccountId: BankAccountId): string | undefined =>
  state._tag === "Registered" ? state.unusableBankAccounts?.[bankAccountId] : undefined

/**
 * The refusal of an authorization (Accept, consent, debit authorization) naming an unusable
 * account: 422 BANK_ACCOUNT_UNUSABLE; undefined when the account may be named.
 */
export const bankAccountRefusal = (state: State, bankAccountId: BankAccountId): RuleViolated | undefined => {
  const returnCode = unusableReturnCode(state, bankAccountId)
  return returnCode === undefined
    ? undefined
    : new RuleViolated({
        code: unusableCode,
        reason: `the bank account was returned by its bank (${returnCode}): the customer must link it again or use another account`,
      })
}

/** True when the service may collect autopay requests of the company from the payer. */
export const autoPayAllowedFor = (state: State, companyId: CompanyId): boolean =>
  state._tag === "Registered" && state.autoPayRevokedFor?.includes(companyId) !== true
