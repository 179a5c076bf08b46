/**
 * Totals kept per currency (a `Map` keyed by currency code while they add up) are answered in
 * currency-code order: every list of per-currency totals (balances, transaction totals, the
 * transaction report) reads them back through `inCurrencyOrder`.
 */

/** The entries of per-currency totals, in currency-code order. */
export const inCurrencyOrder = <Currency extends string, Total>(
  totals: ReadonlyMap<Currency, Total>,
): Array<[Currency, Total]> => [...totals.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
