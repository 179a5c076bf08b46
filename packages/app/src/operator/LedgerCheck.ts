/**
 * The operator's view of the platform's books (issue 37 §4), shared by
 * `GET /admin/ledger/trial-balance?asOf=<date-time>` (Admin.ts) and
 * `partnerpay ledger check [--as-of <date-time>]` (LedgerCommands.ts): the
 * trial balance per account and currency (minor units), the totals per
 * currency, and what is wrong (`PgLedger.check`): a currency whose debits and
 * credits differ, or, for the books of now, a company whose payable minus
 * receivable is not its balance. The API answers the report (200, `balanced`
 * false when wrong); the CLI prints it and exits 1 when it is wrong.
 */
import type { PgLedger } from "@partnerpay/adapters-pg"
import { Money, TrialBalance } from "@partnerpay/domain"
import { DateTime, Schema } from "effect"

/** The books are wrong: what the check found, one sentence each. */
export class LedgerDoesNotBalance extends Schema.TaggedError<LedgerDoesNotBalance>()("LedgerDoesNotBalance", {
  problems: Schema.Array(Schema.String),
}) {}

/** An `asOf` instant as given (ISO 8601 date-time with an offset or Z); undefined when it is not one. */
export const parseAsOf = (raw: string): DateTime.Utc | undefined => {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(raw)) return undefined
  const millis = Date.parse(raw)
  return Number.isNaN(millis) ? undefined : DateTime.makeUnsafe(millis)
}

/** Whether the books are right: they balance and (for now) every payable equals its balance. */
export const isRight = (check: PgLedger.LedgerCheck): boolean =>
  check.trialBalance.balanced && check.discrepancies.length === 0

/** The JSON answer (amounts in minor units of each line's currency). */
export const encode = (check: PgLedger.LedgerCheck) => ({
  asOf: check.asOf === undefined ? null : DateTime.formatIso(check.asOf),
  balanced: isRight(check),
  accounts: check.trialBalance.lines,
  totals: check.trialBalance.currencies,
  discrepancies: check.discrepancies.map((discrepancy) => ({
    ...discrepancy,
    message: TrialBalance.describe(discrepancy),
  })),
})

const decimal = (minorUnits: number, currency: Money.CurrencyCode): string =>
  minorUnits === 0 ? "" : Money.toDecimalString(Money.make(minorUnits, currency))

/** The trial balance as text: one line per account, the totals per currency, then the verdict. */
export const text = (check: PgLedger.LedgerCheck): string => {
  const rows = [
    ["account", "currency", "debit", "credit"],
    ...check.trialBalance.lines.map((line) => [
      line.account,
      line.currency,
      decimal(line.debit, line.currency),
      decimal(line.credit, line.currency),
    ]),
    ...check.trialBalance.currencies.map((total) => [
      "total",
      total.currency,
      decimal(total.debits, total.currency) || "0",
      decimal(total.credits, total.currency) || "0",
    ]),
  ]
  const widths = [0, 1, 2, 3].map((column) => Math.max(...rows.map((row) => row[column]!.length)))
  const table = rows.map((row) =>
    row
      .map((cell, column) => (column < 2 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join("  ")
      .trimEnd(),
  )
  const when = check.asOf === undefined ? "now" : `as of ${DateTime.formatIso(check.asOf)}`
  const verdict = isRight(check)
    ? `The books balance (${when})${check.asOf === undefined ? " and every company's payable equals its balance" : ""}.`
    : `The books are wrong (${when}):\n${check.discrepancies.map((d) => `  ${TrialBalance.describe(d)}`).join("\n")}`
  return [...table, verdict].join("\n")
}
