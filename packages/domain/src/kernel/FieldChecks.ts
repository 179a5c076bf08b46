/**
 * Small pure input checks shared by the PaymentRequest and Transfer deciders.
 * Each check appends a `FieldIssue` (dotted field path and a human message) to
 * a list, so one command reports every bad field at once. Internal helper: not
 * exported from the package index.
 */
import type { Result } from "effect"
import { refuse } from "./Decider.ts"
import { type FieldIssue, ValidationFailed } from "./DomainError.ts"
import * as Money from "./Money.ts"

export type Issues = Array<FieldIssue>

/** Longest free text (descriptions, reasons) accepted. */
export const maxTextLength = 500
/** Longest name (person, company, address line, file name) accepted. */
export const maxNameLength = 200
/** Longest URL accepted. */
export const maxUrlLength = 2048

/** A masked account number: four asterisks then at most the last four digits ("****6789"). */
export const maskedAccountNumberPattern = /^\*{4}[0-9]{1,4}$/

/** An absolute https URL with a DNS host name, an optional port and an optional path, query or fragment. */
export const httpsUrlPattern =
  /^https:\/\/(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}(?::[0-9]{1,5})?(?:[/?#][^\s]*)?$/i

/**
 * A sandbox attachment URL: http or https, and the host may also be
 * `localhost`, an IPv4 address, a bracketed IPv6 address or a single label
 * (a partner's local server).
 */
export const sandboxUrlPattern =
  /^https?:\/\/(?:localhost|[0-9]{1,3}(?:\.[0-9]{1,3}){3}|\[[0-9a-f:.]+\]|(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?::[0-9]{1,5})?(?:[/?#][^\s]*)?$/i

/** A return or failure code of the payment rail, e.g. the ACH code "R01" (insufficient funds). */
export const returnCodePattern = /^[A-Z0-9]{2,8}$/

/** Non-blank text of at most `maxLength` characters. */
export const requiredText = (issues: Issues, field: string, value: string, maxLength: number): void => {
  if (value.trim() === "") issues.push({ field, message: "must not be empty" })
  else if (value.length > maxLength) issues.push({ field, message: `must be at most ${maxLength} characters` })
}

/** Text that may be empty, of at most `maxLength` characters. */
export const optionalText = (issues: Issues, field: string, value: string, maxLength: number): void => {
  if (value.length > maxLength) issues.push({ field, message: `must be at most ${maxLength} characters` })
}

/** A well-formed amount (whole minor units within bounds) greater than zero. */
export const positiveMoney = (issues: Issues, field: string, money: Money.Money): void => {
  if (!Number.isInteger(money.minorUnits) || money.minorUnits < 0 || money.minorUnits > Money.maxMinorUnits)
    issues.push({ field, message: "must be a whole number of minor units within bounds" })
  else if (money.minorUnits === 0) issues.push({ field, message: "must be greater than zero" })
}

/** An amount in the same currency as `reference`. */
export const sameCurrency = (issues: Issues, field: string, money: Money.Money, reference: Money.Money): void => {
  if (money.currency !== reference.currency)
    issues.push({ field, message: `must be in ${reference.currency}, the currency of the amount` })
}

export const maskedAccountNumber = (issues: Issues, field: string, value: string): void => {
  if (!maskedAccountNumberPattern.test(value))
    issues.push({ field, message: 'must be a masked account number such as "****6789" (never the full number)' })
}

export const httpsUrl = (issues: Issues, field: string, value: string): void => {
  if (value.length > maxUrlLength) issues.push({ field, message: `must be at most ${maxUrlLength} characters` })
  else if (!httpsUrlPattern.test(value))
    issues.push({ field, message: "must be an absolute https URL such as https://example.com/file.pdf" })
}

/** An attachment URL: an https URL in production; in the sandbox also http and local hosts. */
export const attachmentUrl = (issues: Issues, field: string, value: string, sandbox: boolean): void => {
  if (!sandbox) httpsUrl(issues, field, value)
  else if (value.length > maxUrlLength) issues.push({ field, message: `must be at most ${maxUrlLength} characters` })
  else if (!sandboxUrlPattern.test(value))
    issues.push({ field, message: "must be an absolute http or https URL such as http://localhost:8080/file.pdf" })
}

export const returnCode = (issues: Issues, field: string, value: string): void => {
  if (!returnCodePattern.test(value))
    issues.push({ field, message: 'must be 2 to 8 upper-case letters or digits, such as "R01"' })
}

/** `undefined` when no issue was found, else the refusal listing them all. */
export const refusal = (issues: Issues): Result.Result<never, ValidationFailed> | undefined =>
  issues.length === 0 ? undefined : refuse(new ValidationFailed({ issues }))
