/**
 * The ACH return codes (NACHA Operating Rules, Appendix Four): why a bank sent
 * a debit back, in one table for the whole domain. A transfer that fails
 * before settlement or is returned after it carries one of these codes, and
 * every place that shows it (the payment request, the transfer, the webhook)
 * shows the code with the description written here, so partners read the
 * same words everywhere.
 *
 * `unauthorized` marks the returns a payer may claim long after settlement
 * (the payer says the debit was not authorised: 60 calendar days for consumer
 * accounts, instead of two banking days), which is why a settled transfer can
 * still be returned.
 */
import { Schema } from "effect"

export interface ReturnCodeEntry {
  readonly description: string
  /** The payer disputes the authorisation: such a return may come up to 60 days after settlement. */
  readonly unauthorized: boolean
}

const entry = (description: string, unauthorized = false): ReturnCodeEntry => ({ description, unauthorized })

/** Every return code with its description. */
export const table = {
  R01: entry("Insufficient funds"),
  R02: entry("Account closed"),
  R03: entry("No account / unable to locate account"),
  R04: entry("Invalid account number structure"),
  R05: entry("Unauthorized debit to consumer account using corporate SEC code", true),
  R06: entry("Returned per ODFI's request"),
  R07: entry("Authorization revoked by customer", true),
  R08: entry("Payment stopped"),
  R09: entry("Uncollected funds"),
  R10: entry("Customer advises originator is not known and/or not authorized to debit the account", true),
  R11: entry("Customer advises entry not in accordance with the terms of the authorization", true),
  R12: entry("Account sold to another DFI"),
  R13: entry("Invalid ACH routing number"),
  R14: entry("Representative payee deceased or unable to continue in that capacity"),
  R15: entry("Beneficiary or account holder (other than a representative payee) deceased"),
  R16: entry("Account frozen / entry returned per OFAC instruction"),
  R17: entry(
    "File record edit criteria / entry with invalid account number initiated under questionable circumstances",
  ),
  R18: entry("Improper effective entry date"),
  R19: entry("Amount field error"),
  R20: entry("Non-transaction account"),
  R21: entry("Invalid company identification"),
  R22: entry("Invalid individual ID number"),
  R23: entry("Credit entry refused by receiver"),
  R24: entry("Duplicate entry"),
  R25: entry("Addenda error"),
  R26: entry("Mandatory field error"),
  R27: entry("Trace number error"),
  R28: entry("Routing number check digit error"),
  R29: entry("Corporate customer advises not authorized", true),
  R30: entry("RDFI not participant in check truncation program"),
  R31: entry("Permissible return entry (CCD and CTX only)"),
  R32: entry("RDFI non-settlement"),
  R33: entry("Return of XCK entry"),
  R34: entry("Limited participation DFI"),
  R35: entry("Return of improper debit entry"),
  R36: entry("Return of improper credit entry"),
  R37: entry("Source document presented for payment"),
  R38: entry("Stop payment on source document"),
  R39: entry("Improper source document / source document presented for payment"),
  R40: entry("Return of ENR entry by federal government agency"),
  R41: entry("Invalid transaction code"),
  R42: entry("Routing number / check digit error"),
  R43: entry("Invalid DFI account number"),
  R44: entry("Invalid individual ID number / identification number"),
  R45: entry("Invalid individual name / company name"),
  R46: entry("Invalid representative payee indicator"),
  R47: entry("Duplicate enrollment"),
  R50: entry("State law affecting RCK acceptance"),
  R51: entry("Item related to RCK entry is ineligible or RCK entry is improper", true),
  R52: entry("Stop payment on item related to RCK entry"),
  R53: entry("Item and RCK entry presented for payment"),
  R61: entry("Misrouted return"),
  R62: entry("Return of erroneous or reversing debit"),
  R67: entry("Duplicate return"),
  R68: entry("Untimely return"),
  R69: entry("Field error(s)"),
  R70: entry("Permissible return entry not accepted / return not requested by ODFI"),
  R71: entry("Misrouted dishonored return"),
  R72: entry("Untimely dishonored return"),
  R73: entry("Timely original return"),
  R74: entry("Corrected return"),
  R75: entry("Return not a duplicate"),
  R76: entry("No errors found"),
  R77: entry("Non-acceptance of R62 dishonored return"),
  R80: entry("IAT entry coding error"),
  R81: entry("Non-participant in IAT program"),
  R82: entry("Invalid foreign receiving DFI identification"),
  R83: entry("Foreign receiving DFI unable to settle"),
  R84: entry("Entry not processed by gateway"),
  R85: entry("Incorrectly coded outbound international payment"),
} as const satisfies Record<string, ReturnCodeEntry>

export type ReturnCode = keyof typeof table

/** Every code, in the table's order. */
export const codes = Object.keys(table) as ReadonlyArray<ReturnCode>

/** A return code of the table (anything else is refused when decoded). */
export const ReturnCode = Schema.Literals(codes).annotate({
  description: "ACH return code (NACHA), e.g. R01 (insufficient funds)",
})

/** True for a code of the table. */
export const isReturnCode = (code: string): code is ReturnCode => Object.hasOwn(table, code)

/** The description of a code: the `returnReason` partners read next to `returnCode`. */
export const describe = (code: ReturnCode): string => table[code].description

/** The reason partners read next to a return code: the table's description (else the recorded reason). */
export const returnReason = (returnCode: string, recorded: string): string =>
  isReturnCode(returnCode) ? describe(returnCode) : recorded

/**
 * A failed money movement as a view shows it: `returnCode` (null when the rail refused it without one),
 * the code's description `returnReason`, and `failureReason`; optional, each view describing the
 * code and the failure in its own words.
 */
export const failureViewFields = (descriptions: { readonly returnCode: string; readonly failureReason: string }) => ({
  returnCode: Schema.optionalKey(Schema.NullOr(Schema.String).annotate({ description: descriptions.returnCode })),
  returnReason: Schema.optionalKey(
    Schema.String.annotate({ description: "The return code's description (NACHA), next to returnCode" }),
  ),
  failureReason: Schema.optionalKey(Schema.String.annotate({ description: descriptions.failureReason })),
})
