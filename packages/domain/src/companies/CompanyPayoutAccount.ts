/**
 * A company's payout account: the bank account its available balance is paid
 * out to (PUT /Company/{companyId}/PayoutAccount). A command of the Company
 * aggregate, kept in a module of its own like the Customer's responsibilities.
 *
 * Why on the Company aggregate and not an aggregate of its own: a transfer to
 * the company names the account it reaches (`recipientAccount`, its mask), and
 * accepting a payment request already loads the company's stream; the payout
 * account there costs no extra read on that hot path. The rule "only the
 * partner's own company, and not a Rejected one" is the company's. A payout
 * account changes rarely, so it adds no contention to the company's stream.
 *
 * Rules: the routing number is nine digits with the ABA check digit
 * (`kernel/RoutingNumber.ts`); the account number is 4 to 17 digits; the
 * holder's name is required text; a Rejected company takes no payout account
 * (409); setting the account it already has changes nothing; any other
 * account replaces it (a new payout account id; the history stays in the
 * events), Active again when the one it replaces was Errored (its payouts
 * resume). Another partner's company is NotFound.
 *
 * Errored (`MarkPayoutAccountErrored`): a payout refused or returned for an
 * account-level reason (`isAccountLevel`) errors the account it named; the
 * company's payouts pause (`Payouts.payOutDue`) until another account is set.
 */
import type { DateTime } from "effect"
import { accept, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import { IllegalTransition, NotFound } from "../kernel/DomainError.ts"
import * as FieldChecks from "../kernel/FieldChecks.ts"
import type * as Ids from "../kernel/Ids.ts"
import * as RoutingNumber from "../kernel/RoutingNumber.ts"
import type { CompanyEvent, PayoutAccount, PayoutAccountType } from "./CompanyEvents.ts"

/**
 * The bank or the rail refused a payout because of the account itself (not a transient outage, not the
 * amount): the account is Errored and the company's payouts pause. A command of the Company aggregate,
 * issued by `PayoutAccountPolicy` when such a payout fails; only the account the payout named, while
 * it is Active, becomes Errored (a repeat, or a payout to an account replaced since, changes nothing).
 */
export interface MarkPayoutAccountErrored {
  readonly _tag: "MarkPayoutAccountErrored"
  readonly companyId: Ids.CompanyId
  readonly payoutAccountId: Ids.PayoutAccountId
  readonly payoutId: string
  /** The ACH return code; absent when the rail refused the destination outright. */
  readonly returnCode?: string
  readonly reason: string
  readonly at: DateTime.Utc
}

/**
 * The ACH return codes that say the receiving account itself is unusable (NACHA): R02 account closed,
 * R03 no account / unable to locate, R04 invalid account number, R12 account sold to another DFI,
 * R13 invalid ACH routing number, R14 representative payee deceased, R15 beneficiary or account holder
 * deceased, R16 account frozen, R17 file record edit criteria, R20 non-transaction account. Paying
 * such an account again fails again.
 */
export const accountLevelReturnCodes: ReadonlySet<string> = new Set([
  "R02",
  "R03",
  "R04",
  "R12",
  "R13",
  "R14",
  "R15",
  "R16",
  "R17",
  "R20",
])

/** The refusal code a money-movement provider gives when the rail refuses the destination account. */
export const destinationRefusedCode = "DESTINATION_REFUSED"

/** Whether a payout failing with this return code (or refusal code) errors its account. */
export const isAccountLevel = (code: string | undefined): boolean =>
  code !== undefined && (accountLevelReturnCodes.has(code) || code === destinationRefusedCode)

/** The decision of `MarkPayoutAccountErrored` for the company `state`. */
export const markPayoutAccountErrored = (
  command: MarkPayoutAccountErrored,
  state: CompanyFacts,
): Decision<CompanyEvent> => {
  // A payout names a company that exists; none (a test world without it) leaves nothing to error.
  if (state._tag === "Initial" || state.partnerId === undefined) return nothing
  const current = state.payoutAccount
  if (current === undefined || current.payoutAccountId !== command.payoutAccountId || current.status === "Errored")
    return nothing
  return accept<CompanyEvent>({
    _tag: "PayoutAccountErrored",
    companyId: command.companyId,
    partnerId: state.partnerId,
    payoutAccountId: command.payoutAccountId,
    payoutId: command.payoutId,
    ...(command.returnCode === undefined ? {} : { returnCode: command.returnCode }),
    reason: command.reason,
    at: command.at,
  })
}

export interface SetPayoutAccount {
  readonly _tag: "SetPayoutAccount"
  readonly partnerId: Ids.PartnerId
  readonly companyId: Ids.CompanyId
  /** A new id from the edge, used when the account is new or replaces another. */
  readonly payoutAccountId: Ids.PayoutAccountId
  readonly accountHolderName: string
  readonly routingNumber: string
  readonly accountNumber: string
  readonly accountType: PayoutAccountType
  readonly at: DateTime.Utc
}

/** What the rule reads of the company: whose it is, its status and its current payout account. */
export interface CompanyFacts {
  readonly _tag: "Initial" | "Unverified" | "Verified" | "Rejected" | "Suspended"
  readonly partnerId?: Ids.PartnerId
  readonly payoutAccount?: PayoutAccount
}

/** Masks an account number for display: four asterisks and its last four digits. */
export const maskOf = (accountNumber: string): string => `****${accountNumber.slice(-4)}`

/** The account number rule: 4 to 17 digits (NACHA's DFI account number field holds 17). */
export const accountNumberPattern = /^\d{4,17}$/

const validate = (command: SetPayoutAccount) => {
  const issues: FieldChecks.Issues = []
  FieldChecks.requiredText(issues, "accountHolderName", command.accountHolderName, FieldChecks.maxNameLength)
  const routingProblem = RoutingNumber.problemOf(command.routingNumber)
  if (routingProblem !== undefined) issues.push({ field: "routingNumber", message: routingProblem })
  if (!accountNumberPattern.test(command.accountNumber))
    issues.push({ field: "accountNumber", message: "must be 4 to 17 digits" })
  if (command.accountType !== "Checking" && command.accountType !== "Savings")
    issues.push({ field: "accountType", message: 'must be "Checking" or "Savings"' })
  return FieldChecks.refusal(issues)
}

const sameAccount = (current: PayoutAccount, command: SetPayoutAccount): boolean =>
  current.accountHolderName === command.accountHolderName &&
  current.routingNumber === command.routingNumber &&
  current.accountNumber === command.accountNumber &&
  current.accountType === command.accountType

/** The decision of `SetPayoutAccount` for the company `state`. */
export const setPayoutAccount = (command: SetPayoutAccount, state: CompanyFacts): Decision<CompanyEvent> => {
  if (state._tag === "Initial" || state.partnerId !== command.partnerId)
    return refuse(new NotFound({ entity: "Company" }))
  const invalid = validate(command)
  if (invalid) return invalid
  if (state._tag === "Rejected")
    return refuse(
      new IllegalTransition({
        entity: "Company",
        state: state._tag,
        command: command._tag,
        reason: "a Rejected company takes no payout account",
      }),
    )
  const current = state.payoutAccount
  if (current !== undefined && sameAccount(current, command)) return nothing
  return accept<CompanyEvent>({
    _tag: "PayoutAccountSet",
    companyId: command.companyId,
    partnerId: command.partnerId,
    payoutAccountId: command.payoutAccountId,
    accountHolderName: command.accountHolderName,
    routingNumber: command.routingNumber,
    accountNumber: command.accountNumber,
    accountNumberMasked: maskOf(command.accountNumber),
    accountType: command.accountType,
    status: "Active",
    ...(current === undefined ? {} : { replacedPayoutAccountId: current.payoutAccountId }),
    ...(current?.status === "Errored" ? { replacedErrored: true } : {}),
    at: command.at,
  })
}
