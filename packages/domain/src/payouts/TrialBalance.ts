/**
 * The trial balance of the platform's books (`Postings.ts`): every account's
 * debits and credits up to an instant, per currency, and the check an operator
 * runs (`GET /admin/ledger/trial-balance`, `partnerpay ledger check`):
 *
 * - the books balance: in each currency the debits of all accounts equal the
 *   credits (the sum of the balances is zero);
 * - each company's payable (minus its receivable) equals its balance figure
 *   (the `balances` read model: what `Balance.availableOf` says).
 *
 * A company's payable with a debit balance (a deficit: refunds or returns
 * after payout) is shown as its receivable (`receivable:company:<id>`), as
 * an accountant reclassifies a liability account in debit.
 */
import { Schema, type Types } from "effect"
import * as Money from "../kernel/Money.ts"
import type * as Ledger from "./Ledger.ts"
import * as Postings from "./Postings.ts"

/** The debits and credits in one currency (minor units, each non-negative): what every total here says. */
export const Totals = Schema.Struct({ currency: Money.CurrencyCode, debits: Schema.Number, credits: Schema.Number })
export type Totals = typeof Totals.Type

/** The debits and credits of one account in one currency. */
export const AccountTotal = Schema.Struct({ account: Schema.String, ...Totals.fields })
export type AccountTotal = typeof AccountTotal.Type

/** One line of the trial balance: an account's balance, on the side it falls (debit positive). */
export const TrialBalanceLine = Schema.Struct({
  account: Schema.String,
  currency: Money.CurrencyCode,
  debit: Schema.Number,
  credit: Schema.Number,
})
export type TrialBalanceLine = typeof TrialBalanceLine.Type

/** A currency's totals: balanced when debits equal credits. */
export const CurrencyTotal = Schema.Struct({ ...Totals.fields, balanced: Schema.Boolean })
export type CurrencyTotal = typeof CurrencyTotal.Type

/** What the check found wrong. */
export const Discrepancy = Schema.Union([
  Schema.TaggedStruct("Unbalanced", Totals.fields),
  Schema.TaggedStruct("PayableDisagrees", {
    companyId: Schema.String,
    currency: Money.CurrencyCode,
    /** Payable minus receivable, from the books (minor units, signed). */
    payable: Schema.Number,
    /** The company's balance figure (minor units, signed). */
    balance: Schema.Number,
  }),
])
export type Discrepancy = typeof Discrepancy.Type

export const TrialBalance = Schema.Struct({
  lines: Schema.Array(TrialBalanceLine),
  currencies: Schema.Array(CurrencyTotal),
  balanced: Schema.Boolean,
})
export type TrialBalance = typeof TrialBalance.Type

/** Every account's debits and credits over the postings, sorted by account then currency. */
export const totalsOf = (postings: ReadonlyArray<Postings.Posting>): ReadonlyArray<AccountTotal> => {
  const totals = new Map<string, Types.Mutable<AccountTotal>>()
  for (const line of postings.flatMap((posting) => posting.lines)) {
    const key = `${line.account}\n${line.amount.currency}`
    const total = totals.get(key) ?? { account: line.account, currency: line.amount.currency, debits: 0, credits: 0 }
    if (line.side === "Debit") total.debits += line.amount.minorUnits
    else total.credits += line.amount.minorUnits
    totals.set(key, total)
  }
  return sortLines([...totals.values()])
}

const sortLines = <A extends { readonly account: string; readonly currency: string }>(lines: Array<A>): Array<A> =>
  lines.sort((a, b) =>
    a.account < b.account
      ? -1
      : a.account > b.account
        ? 1
        : a.currency < b.currency
          ? -1
          : a.currency > b.currency
            ? 1
            : 0,
  )

/** The display name of an account's balance: a company's payable in debit is its receivable. */
const shownAs = (total: AccountTotal): string => {
  const companyId = Postings.companyOfPayable(total.account)
  return companyId !== undefined && total.debits > total.credits
    ? Postings.Account.receivable(companyId)
    : total.account
}

/** The trial balance of the accounts' totals: one line per account and currency (zero balances left out). */
export const of = (totals: ReadonlyArray<AccountTotal>): TrialBalance => {
  const lines = sortLines(
    totals
      .filter((total) => total.debits !== total.credits)
      .map((total) => {
        const net = total.debits - total.credits
        return { account: shownAs(total), currency: total.currency, debit: Math.max(net, 0), credit: Math.max(-net, 0) }
      }),
  )
  const currencies = [...new Set(totals.map((total) => total.currency))].sort().map((currency) => {
    const debits = lines.reduce((sum, line) => (line.currency === currency ? sum + line.debit : sum), 0)
    const credits = lines.reduce((sum, line) => (line.currency === currency ? sum + line.credit : sum), 0)
    return { currency, debits, credits, balanced: debits === credits }
  })
  return { lines, currencies, balanced: currencies.every((currency) => currency.balanced) }
}

/** A company's balance figure in one currency (a `balances` document's `available` amounts). */
export interface CompanyBalance {
  readonly companyId: string
  readonly available: ReadonlyArray<Ledger.SignedAmount>
}

/** Each company's payable minus receivable per currency (credit positive), from the accounts' totals. */
export const payablesOf = (
  totals: ReadonlyArray<AccountTotal>,
): ReadonlyMap<string, ReadonlyMap<Money.CurrencyCode, number>> => {
  const payables = new Map<string, Map<Money.CurrencyCode, number>>()
  for (const total of totals) {
    const companyId = Postings.companyOfPayable(total.account)
    if (companyId === undefined) continue
    const company = payables.get(companyId) ?? new Map<Money.CurrencyCode, number>()
    company.set(total.currency, (company.get(total.currency) ?? 0) + total.credits - total.debits)
    payables.set(companyId, company)
  }
  return payables
}

/**
 * What is wrong with the books: each currency whose debits and credits differ, and each company
 * whose payable (minus receivable) is not its balance figure (a company the books or the balances
 * do not know counts as zero). Empty: the books are right.
 */
export const check = (
  totals: ReadonlyArray<AccountTotal>,
  balances: ReadonlyArray<CompanyBalance> | undefined,
): ReadonlyArray<Discrepancy> => {
  const unbalanced: Array<Discrepancy> = of(totals)
    .currencies.filter((currency) => !currency.balanced)
    .map(({ currency, debits, credits }) => ({ _tag: "Unbalanced", currency, debits, credits }))
  if (balances === undefined) return unbalanced
  const payables = payablesOf(totals)
  const figures = new Map(balances.map((balance) => [balance.companyId, balance.available]))
  const companies = [...new Set([...payables.keys(), ...figures.keys()])].sort()
  const disagreements = companies.flatMap((companyId): Array<Discrepancy> => {
    const payable = payables.get(companyId) ?? new Map<Money.CurrencyCode, number>()
    const available = figures.get(companyId) ?? []
    const currencies = [...new Set([...payable.keys(), ...available.map((amount) => amount.currency)])].sort()
    return currencies.flatMap((currency): Array<Discrepancy> => {
      const books = payable.get(currency) ?? 0
      const balance = available.find((amount) => amount.currency === currency)?.minorUnits ?? 0
      return books === balance ? [] : [{ _tag: "PayableDisagrees", companyId, currency, payable: books, balance }]
    })
  })
  return [...unbalanced, ...disagreements]
}

/** One sentence per discrepancy, for an operator. */
export const describe = (discrepancy: Discrepancy): string =>
  discrepancy._tag === "Unbalanced"
    ? `${discrepancy.currency}: debits ${discrepancy.debits} and credits ${discrepancy.credits} minor units differ`
    : `company ${discrepancy.companyId}: payable ${discrepancy.payable} ${discrepancy.currency} minor units but balance ${discrepancy.balance}`
