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
 * - `revenue:fees`: the platform's fees kept (the charity fee, the partners'
 *   fee schedules' fees).
 * - `expense:provider-costs`: what providers charge the platform and it does
 *   not pass on: each transfer's provider cost (Dwolla's per-transfer fee),
 *   each company card payment's processor cost, and a return fee the platform
 *   keeps (not passed on to the company).
 *
 * **When money is recognised**: when it reaches or leaves the company's
 * balance, the same instant and the same event (`Ledger.ts`): a collection at
 * settlement (an initiated transfer is pending money, not in the books), a
 * refund or a return when asked for or received, a card payment when
 * registered (the processor owes it from then; its availability date only
 * delays the payout), a payout (Credit or Debit) when created, given back when
 * it fails. So a company's payable equals its balance at every event, and the
 * provider's statement differs from `cash:*` only by movements in flight.
 * A provider's cost is the platform's expense when the provider bills it:
 * a transfer's when it is **initiated** (a provider bills each transfer it is
 * asked to move, settled or not), a card payment's when it is registered or
 * (paid in the app) when the payment request is paid, a
 * return fee the platform keeps when the bank's return is **received**
 * (`TransferFailed`/`TransferReturned` with a code).
 *
 * **One table keyed by event type** (`rules`): each posted event type maps to
 * a pure function event -> posting; every posting balances per currency
 * (`isBalanced`). A new money event is one more row (and, for a new ledger
 * entry type, one more row of `counterAccount`). An event that does not name
 * its partner and company (a transfer's failure or return) is posted with
 * what the books kept of its transfer's initiation (`TransferOfPosting`, the
 * read model's state keyed by transfer: `PostingsProjection.returnFees`);
 * without it (an old stream) it posts nothing.
 */
import { DateTime, Schema } from "effect"
import type { CardPayment } from "../cards-and-charity/index.ts"
import * as Money from "../kernel/Money.ts"
import type { PaymentRequestEvents, TransferEvents } from "../payments/index.ts"
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

/**
 * The events the books read: the CompanyBalance streams' (what reaches or leaves a company's balance)
 * and the providers' costs the platform bears (a transfer's initiation, failure and return; a
 * company's card payment registered).
 */
export type PostedEvent =
  | BalanceEvent
  | TransferEvents.Of<"TransferInitiated">
  | TransferEvents.Of<"TransferFailed">
  | TransferEvents.Of<"TransferReturned">
  | CardPayment.Event
  | PaymentRequestEvents.Of<"PaymentRequestPaidByCard">

/** What the books kept of a transfer's initiation, for its later events that do not name them. */
export interface TransferOfPosting {
  readonly partnerId: string
  readonly companyId: string
}

type Rules = {
  readonly [Tag in PostedEvent["_tag"]]: (
    event: Extract<PostedEvent, { readonly _tag: Tag }>,
    transfer: TransferOfPosting | undefined,
  ) => Posting | undefined
}

const posting = (
  event: { readonly _tag: string; readonly at: DateTime.Utc },
  owner: { readonly partnerId: string; readonly companyId?: string | undefined },
  reference: string,
  lines: ReadonlyArray<PostingLine>,
): Posting | undefined =>
  lines.length === 0
    ? undefined
    : {
        eventType: event._tag,
        partnerId: owner.partnerId,
        ...(owner.companyId === undefined ? {} : { companyId: owner.companyId }),
        reference,
        postedAt: event.at,
        lines,
      }

/** A provider's charge the platform bears: its expense, out of the cash the provider holds (none when absent). */
const expenseLines = (rail: Rail, cost: Money.Money | undefined): ReadonlyArray<PostingLine> =>
  cost === undefined ? [] : transfer(Account.providerCost, Account.cash(rail), cost.minorUnits, cost.currency)

/** The return fee of a transfer's failure or return the platform keeps (not passed on to the company). */
const keptReturnFee = (
  event: TransferEvents.Of<"TransferFailed"> | TransferEvents.Of<"TransferReturned">,
  transfer: TransferOfPosting | undefined,
): Posting | undefined =>
  transfer === undefined || event.returnFee === undefined || event.returnFee.passedOn
    ? undefined
    : posting(event, transfer, returnFeeReference(event.transferId), expenseLines("ach", event.returnFee.amount))

/** The reference of a transfer's provider cost and of its kept return fee. */
export const providerCostReference = (transferId: string): string => `${transferId}:providerCost`
export const returnFeeReference = (transferId: string): string => `${transferId}:returnFee`

/** Every money event's posting, by event type (undefined: the event moves no money). */
export const rules: Rules = {
  // An entry reaches the company's balance: payable against the entry type's counter account.
  LedgerEntryRecorded: (event) =>
    posting(event, event, event.entry.entryId, entryLines(event.companyId, [event.entry], 1)),
  // A payout (Credit or Debit) takes its items off the payable, against the ACH cash.
  BalancePaidOut: (event) => posting(event, event, event.payoutId, payoutLines(event.companyId, event.items, -1)),
  // A failed payout gives its items back.
  PayoutItemsRestored: (event) => posting(event, event, event.payoutId, payoutLines(event.companyId, event.items, 1)),
  // A deficit observed moves no money: it already shows as the company's receivable.
  BalanceDeficitObserved: () => undefined,
  // A transfer initiated with a provider cost: the provider bills each transfer it is asked to move
  // (Dwolla's per-transfer fee), settled or not; the platform's expense, out of its ACH cash.
  TransferInitiated: (event) =>
    posting(event, event, providerCostReference(event.transferId), expenseLines("ach", event.providerCost)),
  // A debit the bank brought back with a code, its return fee kept by the platform (passed on: the
  // company's "returnFee" entry posts it, payable against the ACH cash).
  TransferFailed: keptReturnFee,
  TransferReturned: keptReturnFee,
  // A company's card payment registered with the processor's cost: the platform's expense, out of
  // its cash at the processor.
  CardPaymentRegistered: (event) =>
    event.companyId === undefined
      ? undefined
      : posting(
          event,
          event,
          `${event.cardPaymentId}:providerCost`,
          expenseLines("card-processor", event.providerCost),
        ),
  // A payment request paid in the app by card with the processor's cost: the platform's expense, out
  // of its cash at the processor (an older event without its company posts nothing).
  PaymentRequestPaidByCard: (event) =>
    event.partnerId === undefined || event.companyId === undefined
      ? undefined
      : posting(
          event,
          { partnerId: event.partnerId, companyId: event.companyId },
          `${event.cardPaymentId}:providerCost`,
          expenseLines("card-processor", event.providerCost),
        ),
}

/**
 * The posting of a money event (undefined when it moves no money); `transfer`: what the books kept of
 * its transfer's initiation, for a failure or return (without it, they post nothing).
 */
export const postingOf = (event: PostedEvent, transfer?: TransferOfPosting): Posting | undefined =>
  (rules[event._tag] as (event: PostedEvent, transfer: TransferOfPosting | undefined) => Posting | undefined)(
    event,
    transfer,
  )

/** The posting's instant as the books sort it (ISO 8601). */
export const postedAtIso = (posting: Posting): string => DateTime.formatIso(posting.postedAt)
