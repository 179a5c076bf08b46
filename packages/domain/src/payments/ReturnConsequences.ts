/**
 * What an ACH return of a payer's debit does beyond the transfer (decision table:
 * packages/domain/docs/ReturnConsequences.md). Two groups of codes act:
 *
 * - **Unauthorized** (R05, R07, R10, R11, R29, R51): the payer told their bank the company was not
 *   authorized to debit them. NACHA forbids debiting again without a new authorization, so every
 *   authorization that payer gave that company ends: the debit authorization is Revoked, every
 *   Accepted consent is Revoked (its plan Cancelled, reason UnauthorizedReturn), the recurring gift
 *   whose collection came back stops, and autopay for that company is off. A new authorization
 *   (POST /DebitAuth/Set, an Accept with acceptDebitAuth, a new consent, PUT /Account/Default)
 *   may be given afterwards.
 * - **Account-level** (R02, R03, R04, R12, R13, R14, R15, R16, R17, R20): the account itself cannot
 *   be debited (closed, not found, invalid, frozen, holder deceased...): it becomes Unusable for
 *   the payer, whatever the company, until linked again.
 *
 * Every other code (R01 insufficient funds, R08 payment stopped...) concerns that debit alone.
 * Pure: the use case (`Returns.actOn`) gathers the payer's authorizations and applies the reactions.
 */
import type { DateTime } from "effect"
import { CompanyPayoutAccount } from "../companies/index.ts"
import type { Customer } from "../customers/index.ts"
import type * as Ids from "../kernel/Ids.ts"
import * as ReturnCodes from "./ReturnCodes.ts"

/** The codes whose payer disputes the authorization: every authorization of the payer for the company ends. */
export const unauthorizedCodes: ReadonlyArray<ReturnCodes.ReturnCode> = ["R05", "R07", "R10", "R11", "R29", "R51"]

/**
 * The codes that say the account itself cannot be debited: the account becomes unusable. The same
 * codes make a company's payout account unusable: one list (`CompanyPayoutAccount.accountLevelReturnCodes`).
 */
export const accountLevelCodes = [
  ...CompanyPayoutAccount.accountLevelReturnCodes,
] as ReadonlyArray<ReturnCodes.ReturnCode>

export type Group = "Unauthorized" | "AccountLevel" | "DebitOnly"

/** The group of a return code (a code outside the table concerns the debit alone). */
export const groupOf = (returnCode: string): Group =>
  (unauthorizedCodes as ReadonlyArray<string>).includes(returnCode)
    ? "Unauthorized"
    : (accountLevelCodes as ReadonlyArray<string>).includes(returnCode)
      ? "AccountLevel"
      : "DebitOnly"

/** The debit that came back (failed before settlement or returned after it), as its transfer recorded it. */
export interface ReturnedDebit {
  readonly returnCode: string
  readonly companyId: Ids.CompanyId
  readonly payerRegistrationId?: Ids.RegistrationId
  readonly bankAccountId?: Ids.BankAccountId
  /** The recurring gift the debit collected, when it was a gift's collection. */
  readonly charityTransactionId?: string
}

/** The payer's authorizations for the company, as found when the return is recorded. */
export interface PayerAuthorizations {
  /** The payer's debit authorization for the company, when one exists (any state). */
  readonly debitAuthId?: Ids.DebitAuthId
  /** The payer's consents to the company's plans that are Accepted. */
  readonly acceptedConsentIds: ReadonlyArray<Ids.ConsentId>
}

/** One command the return issues, for the stream it names. */
export type Reaction =
  | {
      readonly _tag: "DebitAuth"
      readonly id: Ids.DebitAuthId
      readonly command: {
        readonly _tag: "RevokeDebitAuth"
        readonly returnCode: string
        readonly reason: string
        readonly at: DateTime.Utc
      }
    }
  | {
      readonly _tag: "Consent"
      readonly id: Ids.ConsentId
      readonly command: {
        readonly _tag: "RevokeConsentOnReturn"
        readonly consentId: Ids.ConsentId
        readonly registrationId: Ids.RegistrationId
        readonly returnCode: string
        readonly at: DateTime.Utc
      }
    }
  | {
      readonly _tag: "CharityTransaction"
      readonly id: string
      readonly command: {
        readonly _tag: "CancelRecurringGift"
        readonly charityTransactionId: string
        readonly by: "UnauthorizedReturn"
        readonly at: DateTime.Utc
      }
    }
  | {
      readonly _tag: "Customer"
      readonly id: Ids.RegistrationId
      readonly command: Customer.RevokeAutoPay | Customer.MarkBankAccountUnusable
    }

/** The description of a code (the table's, else the code itself). */
const reasonOf = (returnCode: string): string =>
  ReturnCodes.isReturnCode(returnCode) ? ReturnCodes.describe(returnCode) : returnCode

/**
 * The commands a returned debit issues (in this order: debit authorization, consents, gift,
 * autopay; or the account), none for a debit-only code or a debit that names no payer.
 */
export const reactionsTo = (
  debit: ReturnedDebit,
  found: PayerAuthorizations,
  at: DateTime.Utc,
): ReadonlyArray<Reaction> => {
  const payer = debit.payerRegistrationId
  if (payer === undefined) return []
  const { returnCode } = debit
  switch (groupOf(returnCode)) {
    case "DebitOnly":
      return []
    case "AccountLevel":
      return debit.bankAccountId === undefined
        ? []
        : [
            {
              _tag: "Customer",
              id: payer,
              command: {
                _tag: "MarkBankAccountUnusable",
                bankAccountId: debit.bankAccountId,
                returnCode,
                reason: reasonOf(returnCode),
                at,
              },
            },
          ]
    case "Unauthorized": {
      const issued: Array<Reaction> = []
      if (found.debitAuthId !== undefined)
        issued.push({
          _tag: "DebitAuth",
          id: found.debitAuthId,
          command: { _tag: "RevokeDebitAuth", returnCode, reason: reasonOf(returnCode), at },
        })
      for (const consentId of found.acceptedConsentIds)
        issued.push({
          _tag: "Consent",
          id: consentId,
          command: { _tag: "RevokeConsentOnReturn", consentId, registrationId: payer, returnCode, at },
        })
      if (debit.charityTransactionId !== undefined)
        issued.push({
          _tag: "CharityTransaction",
          id: debit.charityTransactionId,
          command: {
            _tag: "CancelRecurringGift",
            charityTransactionId: debit.charityTransactionId,
            by: "UnauthorizedReturn",
            at,
          },
        })
      issued.push({
        _tag: "Customer",
        id: payer,
        command: { _tag: "RevokeAutoPay", companyId: debit.companyId, returnCode, at },
      })
      return issued
    }
  }
}
