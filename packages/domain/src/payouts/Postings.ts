/**
 * Double entry: the platform's books, as balanced postings derived from the
 * domain's money events (pure). Decision table: packages/domain/docs/DoubleEntry.md.
 *
 * **The chart of accounts** (`Account`):
 * - `cash:ach`: the platform's money at the money-movement provider (the one
 *   rail of a deployment: Dwolla in production, the sandbox's otherwise);
 *   `cash:card-processor`: at the card processor (card payments, card
 *   refunds, disputes and their fees).
 * - `payable:company:<companyId>`: what the platform owes the company, which
 *   is the company's balance figure (`Balance.availableOf`: entries recorded
 *   and not paid out). A debit balance on it is a **receivable** from a
 *   company in deficit: the trial balance shows it as
 *   `receivable:company:<companyId>` (`TrialBalance.ts`).
 * - `revenue:fees`: the platform's fees kept (the charity fee today).
 * - `expense:provider-costs`: what providers charge the platform and it does
 *   not pass on (nothing today: see the FEES mark below).
 *
 * **When money is recognised**: when it reaches or leaves the company's
 * balance, the same instant and the same event (`Ledger.ts`): a collection at
 * settlement (an initiated transfer is pending money, not in the books), a
 * refund or a return when asked for or received, a card payment when
 * registered (the processor owes it from then; its availability date only
 * delays the payout), a payout (Credit or Debit) when created, given back when
 * it fails. So a company's payable equals its balance at every event, and the
 * provider's statement differs from `cash:*` only by movements in flight.
 *
 * **One table keyed by event type** (`rules`): each posted event type maps to
 * a pure function event -> posting; every posting balances per currency
 * (`isBalanced`). A new money event is one more row (and, for a new ledger
 * entry type, one more row of `counterAccount`).
 */
import { DateTime, Schema } from "effect"
import * as Money from "../kernel/Money.ts"
import type { BalanceEvent } from "./BalanceEvents.ts"
import * as Ledger from "./Ledger.ts"

// ---------------------------------------------------------------------------
// The chart of accounts

/** The platform's cash accounts, one per provider holding its money. */
export const rails = ["ach", "card-processor"] as const
export type Rail = (typeof rails)[number]

export const Account = {
  cash: (rail: Rail): string => `cash:${rail}`,
  payable: (companyId: string): string => `${payablePrefix}${companyId}`,
  receivable: (companyId: string): string => `${receivablePrefix}${companyId}`,
  feeRevenue: "revenue:fees",
  providerCost: "expense:provider-costs",
} as const

export const payablePrefix = "payable:company:"
export const receivablePrefix = "receivable:company:"

/** The company whose payable `account` is, if it is one. */
export const companyOfPayable = (account: string): string | undefined =>
  account.startsWith(payablePrefix) ? account.slice(payablePrefix.length) : undefined

// ---------------------------------------------------------------------------
// Postings

export const Side = Schema.Literals(["Debit", "Credit"])
export type Side = typeof Side.Type

/** One line of a posting: an account debited or credited a positive amount in one currency. */
export const PostingLine = Schema.Struct({
  account: Schema.String,
  side: Side,
  amount: Money.Money,
})
export type PostingLine = typeof PostingLine.Type

/** A posting: the lines one money event writes to the books (balanced per currency). */
export const Posting = Schema.Struct({
  /** The event's type (`LedgerEntryRecorded`, `BalancePaidOut`...): the row of `rules` that made it. */
  eventType: Schema.String,
  partnerId: Schema.String,
  companyId: Schema.optionalKey(Schema.String),
  /** What caused it: a ledger entry's id, a payout's id. */
  reference: Schema.String,
  postedAt: Schema.DateTimeUtcFromString,
  lines: Schema.Array(PostingLine),
})
export type Posting = typeof Posting.Type

/** The debit and the credit of `minorUnits` (signed: negative swaps the sides); none when zero. */
export const transfer = (
  debit: string,
  credit: string,
  minorUnits: number,
  currency: Money.CurrencyCode,
): ReadonlyArray<PostingLine> => {
  if (minorUnits === 0) return []
  const [to, from] = minorUnits > 0 ? [debit, credit] : [credit, debit]
  const amount = Money.make(Math.abs(minorUnits), currency)
  return [
    { account: to, side: "Debit", amount },
    { account: from, side: "Credit", amount },
  ]
}

/** Debits minus credits of the lines in `currency` (0 for a balanced posting). */
export const differenceOf = (lines: ReadonlyArray<PostingLine>, currency: Money.CurrencyCode): number =>
  lines.reduce(
    (sum, line) =>
      line.amount.currency !== currency
        ? sum
        : sum + (line.side === "Debit" ? line.amount.minorUnits : -line.amount.minorUnits),
    0,
  )

/** Whether the posting's debits equal its credits in every currency it names. */
export const isBalanced = (posting: Posting): boolean =>
  [...new Set(posting.lines.map((line) => line.amount.currency))].every(
    (currency) => differenceOf(posting.lines, currency) === 0,
  )

// ---------------------------------------------------------------------------
// Ledger entries: the account on the other side of the company's payable

/** Whether a "fee" entry is a card dispute's fee (the processor's charge, passed to the company). */
const isDisputeFee = (entry: Ledger.LedgerEntry): boolean => entry.entryId.includes(":dispute:fee")

/**
 * The account a ledger entry moves money from or to, opposite the company's payable: a collection
 * credits the payable and debits the cash it arrived at; a refund, a return or a fee the reverse.
 * One row per entry type (a new entry type fails the type-check until it has its row).
 */
export const counterAccount: { readonly [Type in Ledger.EntryType]: (entry: Ledger.LedgerEntry) => string } = {
  payment: () => Account.cash("ach"),
  instalment: () => Account.cash("ach"),
  charity: () => Account.cash("ach"),
  return: () => Account.cash("ach"),
  refund: (entry) => Account.cash(entry.cardPaymentId === undefined ? "ach" : "card-processor"),
  card: () => Account.cash("card-processor"),
  dispute: () => Account.cash("card-processor"),
  // The platform's fee (a charity gift's) is its revenue; a dispute's fee is the processor's charge.
  fee: (entry) => (isDisputeFee(entry) ? Account.cash("card-processor") : Account.feeRevenue),
  // A return fee passed on to the company (branch `fees`): the provider took it from the platform's ACH
  // cash and the company bears it (its payable is reduced by as much; no expense is left to the platform).
  returnFee: () => Account.cash("ach"),
}

/** The lines of ledger entries reaching (`sign` 1) or leaving (`sign` -1) the company's payable. */
const entryLines = (
  companyId: string,
  entries: ReadonlyArray<Ledger.LedgerEntry>,
  sign: 1 | -1,
): ReadonlyArray<PostingLine> =>
  entries.flatMap((entry) =>
    transfer(
      counterAccount[entry.type](entry),
      Account.payable(companyId),
      sign * entry.amount.minorUnits,
      entry.amount.currency,
    ),
  )

/**
 * A payout's items leaving the company's payable (`sign` -1: created) or coming back (1: failed):
 * one pair per currency, against the ACH cash a payout moves (a Credit pays the payable out of it, a
 * Debit's negative items bring the deficit into it).
 */
const payoutLines = (
  companyId: string,
  items: ReadonlyArray<Ledger.LedgerEntry>,
  sign: 1 | -1,
): ReadonlyArray<PostingLine> =>
  Ledger.currenciesOf(items).flatMap((currency) =>
    transfer(Account.cash("ach"), Account.payable(companyId), sign * Ledger.sumOf(items, currency), currency),
  )

// ---------------------------------------------------------------------------
// The table: event type -> posting

/** The events the books read (a union: the FEES events join it). */
export type PostedEvent = BalanceEvent

type Rules = {
  readonly [Tag in PostedEvent["_tag"]]: (event: Extract<PostedEvent, { readonly _tag: Tag }>) => Posting | undefined
}

const posting = (
  event: { readonly _tag: string; readonly partnerId: string; readonly companyId: string; readonly at: DateTime.Utc },
  reference: string,
  lines: ReadonlyArray<PostingLine>,
): Posting | undefined =>
  lines.length === 0
    ? undefined
    : {
        eventType: event._tag,
        partnerId: event.partnerId,
        companyId: event.companyId,
        reference,
        postedAt: event.at,
        lines,
      }

/** Every money event's posting, by event type (undefined: the event moves no money). */
export const rules: Rules = {
  // An entry reaches the company's balance: payable against the entry type's counter account.
  LedgerEntryRecorded: (event) => posting(event, event.entry.entryId, entryLines(event.companyId, [event.entry], 1)),
  // A payout (Credit or Debit) takes its items off the payable, against the ACH cash.
  BalancePaidOut: (event) => posting(event, event.payoutId, payoutLines(event.companyId, event.items, -1)),
  // A failed payout gives its items back.
  PayoutItemsRestored: (event) => posting(event, event.payoutId, payoutLines(event.companyId, event.items, 1)),
  // A deficit observed moves no money: it already shows as the company's receivable.
  BalanceDeficitObserved: () => undefined,
  // FEES (issue 37 §4, branch `fees`): the rows of provider costs and return fees kept by the platform
  // (`expense:provider-costs` against `cash:ach`), and of any other new money event, go here.
}

/** The posting of a money event (undefined when it moves no money). */
export const postingOf = (event: PostedEvent): Posting | undefined =>
  (rules[event._tag] as (event: PostedEvent) => Posting | undefined)(event)

/** The posting's instant as the books sort it (ISO 8601). */
export const postedAtIso = (posting: Posting): string => DateTime.formatIso(posting.postedAt)
