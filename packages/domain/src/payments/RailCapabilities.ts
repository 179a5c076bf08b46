/**
 * What the money-movement rail can do, as its provider declares it
 * (`MoneyMovement.capabilities`), checked when a collection is asked for
 * rather than discovered when it is originated (issue 35 §3):
 *
 * - currencies: the ones the rail moves (Dwolla: USD; the sandbox simulates
 *   the same USD rail, configurable for tests). A payment request, plan,
 *   debit authorization, charity gift or refund in another currency is
 *   refused: 422 CURRENCY_NOT_SUPPORTED naming `amount.currencyCode`. The
 *   domain keeps its currency types: this is the rail's limit, not money's.
 * - the payer limit: the most the rail debits one payer over a rolling window
 *   (Dwolla: 5,000.00 USD over 7 days for an unverified customer, which our
 *   payers are), counting the payer's debits still Pending or Settled
 *   (Failed and Returned ones moved nothing) initiated within the window. A
 *   debit that would take the payer past it is refused: 422
 *   PAYER_LIMIT_EXCEEDED.
 *
 * A provider that declares nothing (a test's fake) moves any currency with no
 * payer limit. Decision table: packages/domain/docs/RailCapabilities.md.
 */
import { Context, DateTime } from "effect"
import { RuleViolated } from "../kernel/DomainError.ts"
import * as Money from "../kernel/Money.ts"

/** The payer limit: at most `amount` debited from one payer over `windowMillis`. */
export interface PayerLimit {
  readonly amount: Money.Money
  readonly windowMillis: number
}

/** What a rail declares (`MoneyMovement.capabilities`). */
export interface Capabilities {
  readonly currencies: ReadonlyArray<string>
}

/** Dwolla's rail: USD only. */
export const dwolla: Capabilities = { currencies: ["USD"] }

/** Dwolla's limit for an unverified customer: 5,000.00 USD over a rolling 7 days. */
export const dwollaUnverifiedPayerLimit: PayerLimit = {
  amount: Money.make(500_000, "USD"),
  windowMillis: 7 * 86_400_000,
}

/**
 * The payer limit of this deployment (PARTNERPAY_PAYER_LIMIT_MINOR_UNITS and _DAYS: by default
 * Dwolla's for unverified customers); none unless the application sets it (a test's domain).
 */
export const CurrentPayerLimit = Context.Reference<PayerLimit | undefined>(
  "partnerpay/domain/RailCapabilities/CurrentPayerLimit",
  { defaultValue: () => undefined },
)

/** 422 CURRENCY_NOT_SUPPORTED naming `field` (e.g. `amount.currencyCode`), or undefined when the rail moves it. */
export const currencyRefusal = (
  capabilities: Capabilities | undefined,
  currency: string,
  field = "amount.currencyCode",
): RuleViolated | undefined =>
  capabilities === undefined || capabilities.currencies.includes(currency)
    ? undefined
    : new RuleViolated({
        code: "CURRENCY_NOT_SUPPORTED",
        reason: `${field}: the money-movement rail does not move ${currency} (it moves ${capabilities.currencies.join(", ")})`,
        field,
      })

/** One debit of the payer the limit counts: its amount, status and initiation. */
export interface CountedDebit {
  readonly amount: Money.Money
  readonly status: string
  /** ISO 8601 instant of its initiation. */
  readonly createdAt: string
}

/** The start of the window ending at `at` (ISO 8601): debits initiated after it count. */
export const windowStart = (limit: PayerLimit, at: DateTime.Utc): string =>
  DateTime.formatIso(DateTime.makeUnsafe(DateTime.toEpochMillis(at) - limit.windowMillis))

/** What the limit counts of `debits` at `at`: Pending and Settled debits in its currency initiated within the window. */
export const countedMinorUnits = (limit: PayerLimit, debits: ReadonlyArray<CountedDebit>, at: DateTime.Utc): number => {
  const from = windowStart(limit, at)
  return debits
    .filter(
      (debit) =>
        (debit.status === "Pending" || debit.status === "Settled") &&
        debit.amount.currency === limit.amount.currency &&
        debit.createdAt > from,
    )
    .reduce((sum, debit) => sum + debit.amount.minorUnits, 0)
}

/**
 * 422 PAYER_LIMIT_EXCEEDED when a debit of `amount` on top of `debits` would take the payer past the
 * limit at `at`; undefined when within it (or the rail has none, or the debit is in another currency:
 * refused by `currencyRefusal` instead).
 */
export const payerLimitRefusal = (
  limit: PayerLimit | undefined,
  amount: Money.Money,
  debits: ReadonlyArray<CountedDebit>,
  at: DateTime.Utc,
): RuleViolated | undefined => {
  if (limit === undefined || amount.currency !== limit.amount.currency) return undefined
  const counted = countedMinorUnits(limit, debits, at)
  if (counted + amount.minorUnits <= limit.amount.minorUnits) return undefined
  const days = Math.round(limit.windowMillis / 86_400_000)
  return new RuleViolated({
    code: "PAYER_LIMIT_EXCEEDED",
    reason: `the payer may be debited at most ${Money.toDecimalString(limit.amount)} ${limit.amount.currency} over ${days} days: ${Money.toDecimalString(Money.make(counted, limit.amount.currency))} already counted, ${Money.toDecimalString(amount)} more would exceed it`,
  })
}
