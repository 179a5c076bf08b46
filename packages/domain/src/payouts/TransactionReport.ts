/**
 * The transaction report (GET /Transaction/Report) with the movements of the
 * company balances: the settled transfers of the window as before
 * (`Transfers.report`: `currencyTotals`, `items`), plus `lines`, every ledger
 * entry that reached a balance in the window (payments, instalments and card
 * payments collected: positive; refunds, returns and fees: negative), and
 * `lineTotals` per currency. The lines are the entries the payouts carry as
 * their items, dated when they reached the balance, so the lines of a period
 * reconcile with the payouts of that period: their net is what was paid out,
 * plus what stayed available (a test). `csvOf` gives the lines as CSV
 * (`Accept: text/csv`).
 */

import { DateTime, Schema } from "effect"
import { decodeDocument, ReadModelStore } from "../infrastructure/ReadModel.ts"
import { inCurrencyOrder } from "../kernel/CurrencyOrder.ts"
import { ValidationFailed } from "../kernel/DomainError.ts"
import * as Money from "../kernel/Money.ts"
import * as Traced from "../kernel/Traced.ts"
import { Transfers } from "../payments/index.ts"
import * as Ledger from "./Ledger.ts"
import * as LedgerEntriesProjection from "./LedgerEntriesProjection.ts"

export interface ReportQuery extends Transfers.ReportQuery {
  /** The `entryId` of the last line of the previous page. */
  readonly linesStartingAfter?: string | undefined
}

/** One line of the report: a movement of a company's balance (the view clients read; amounts signed). */
export const ReportLine = Schema.Struct({
  lineId: Schema.String.annotate({ description: "The ledger entry's id (a page's cursor: linesStartingAfter)" }),
  date: Schema.String.annotate({ description: "When the money reached the company's balance (ISO 8601)" }),
  companyId: Schema.String,
  type: Ledger.EntryType.annotate({
    description:
      "payment, instalment, charity, card (collected: positive) or refund, return, dispute, fee, returnFee (taken back: negative; a returned transfer gives its fee back, a won dispute its amount and fee: positive)",
  }),
  transferId: Schema.optionalKey(Schema.String),
  refundId: Schema.optionalKey(Schema.String),
  cardPaymentId: Schema.optionalKey(Schema.String),
  availableAt: Schema.optionalKey(
    Schema.String.annotate({
      description:
        "Card money: when the processor makes it available to the company (ISO 8601); until then it is pending and no payout takes it",
    }),
  ),
  amount: Ledger.SignedAmount,
})
export type ReportLine = typeof ReportLine.Type

/** A ledger entry's document as a report line: its id as `lineId`, when it was recorded as `date`. */
export const lineOf = ({
  entryId,
  recordedAt,
  partnerId: _partnerId,
  availableAt,
  ...entry
}: LedgerEntriesProjection.LedgerEntryDocument): ReportLine => ({
  lineId: entryId,
  date: recordedAt,
  ...entry,
  ...(availableAt === undefined ? {} : { availableAt: DateTime.formatIso(availableAt) }),
})

/**
 * The lines of one currency, summed. Amounts in minor units; refunds, returns and fees as positive sums
 * (`fees`: the platform's fees and the return fees passed on to the company, less fees given back).
 */
export interface LineTotal {
  readonly currencyCode: Money.CurrencyCode
  readonly count: number
  readonly collected: Money.Money
  readonly refunded: Money.Money
  readonly returned: Money.Money
  readonly fees: Money.Money
  /** Card disputes taken back, less those won (given back): may be negative in a window holding only the win. */
  readonly disputed: { readonly minorUnits: number; readonly currency: Money.CurrencyCode }
  /** collected - refunded - returned - disputed - fees (may be negative). */
  readonly net: { readonly minorUnits: number; readonly currency: Money.CurrencyCode }
}

const windowOf = (query: Transfers.ReportQuery) => ({
  partnerId: query.partnerId,
  keys: query.companyId === undefined ? {} : { companyId: query.companyId },
  sortKeyFrom: `${query.from}T00:00:00.000Z`,
  sortKeyTo: `${query.to}T23:59:59.999Z`,
})

/** Every line of the window, oldest first. */
export const allLines = Traced.fn("TransactionReport.allLines")(function* (query: Transfers.ReportQuery) {
  const store = yield* ReadModelStore
  const lines: Array<LedgerEntriesProjection.LedgerEntryDocument> = []
  let cursor: string | undefined
  while (true) {
    const page = yield* store.find(LedgerEntriesProjection.collection, {
      ...windowOf(query),
      limit: 500,
      order: "asc",
      ...(cursor === undefined ? {} : { startingAfter: cursor }),
    })
    for (const item of page.items) lines.push(decodeDocument(LedgerEntriesProjection.projection, item))
    if (!page.hasMore || page.items.length === 0) break
    cursor = page.items[page.items.length - 1]!.id
  }
  return lines as ReadonlyArray<LedgerEntriesProjection.LedgerEntryDocument>
})

/** The totals of lines, per currency (sorted by currency code). */
export const totalsOf = (
  lines: ReadonlyArray<LedgerEntriesProjection.LedgerEntryDocument>,
): ReadonlyArray<LineTotal> => {
  const totals = new Map<
    Money.CurrencyCode,
    { count: number; collected: number; refund: number; return: number; fee: number; dispute: number }
  >()
  for (const line of lines) {
    const total = totals.get(line.amount.currency) ?? {
      count: 0,
      collected: 0,
      refund: 0,
      return: 0,
      fee: 0,
      dispute: 0,
    }
    total.count += 1
    // A return fee passed on to the company is a fee it pays: counted in `fees` (its line says which).
    if (line.type === "returnFee") total.fee -= line.amount.minorUnits
    else if (line.type === "refund" || line.type === "return" || line.type === "fee" || line.type === "dispute")
      total[line.type] -= line.amount.minorUnits
    else total.collected += line.amount.minorUnits
    totals.set(line.amount.currency, total)
  }
  return inCurrencyOrder(totals).map(([currency, total]) => ({
    currencyCode: currency,
    count: total.count,
    collected: Money.make(total.collected, currency),
    refunded: Money.make(total.refund, currency),
    returned: Money.make(total.return, currency),
    fees: Money.make(total.fee, currency),
    disputed: { minorUnits: total.dispute, currency },
    net: { minorUnits: total.collected - total.refund - total.return - total.dispute - total.fee, currency },
  }))
}

/**
 * The report of the window: the settled transfers (`Transfers.report`) and the balance lines, their totals
 * over the whole window and one page of lines, newest first (`limit`, `linesStartingAfter`).
 */
export const report = Traced.fn("TransactionReport.report")(function* (query: ReportQuery) {
  const transfers = yield* Transfers.report(query)
  const lines = yield* allLines(query)
  const store = yield* ReadModelStore
  const page = yield* store.find(LedgerEntriesProjection.collection, {
    ...windowOf(query),
    limit: query.limit,
    order: "desc",
    ...(query.linesStartingAfter === undefined ? {} : { startingAfter: query.linesStartingAfter }),
  })
  return {
    ...transfers,
    lineTotals: totalsOf(lines),
    lines: page.items.map((item) => lineOf(decodeDocument(LedgerEntriesProjection.projection, item))),
    linesHaveMore: page.hasMore,
  }
})

/** The CSV columns of the report's lines. */
export const csvColumns = [
  "date",
  "companyId",
  "type",
  "transferId",
  "refundId",
  "cardPaymentId",
  "currencyCode",
  "amount",
] as const

/** A signed amount as a decimal with the currency's decimals ("-12.50"). */
export const decimalOf = (amount: { readonly minorUnits: number; readonly currency: Money.CurrencyCode }): string => {
  const magnitude = Money.toDecimalString({ minorUnits: Math.abs(amount.minorUnits), currency: amount.currency })
  return amount.minorUnits < 0 ? `-${magnitude}` : magnitude
}

/** Every line of the window as CSV (RFC 4180: a header, CRLF line ends; no field needs quoting), oldest first. */
export const csvOf = (lines: ReadonlyArray<LedgerEntriesProjection.LedgerEntryDocument>): string =>
  [
    csvColumns.join(","),
    ...lines.map((line) =>
      [
        line.recordedAt,
        line.companyId,
        line.type,
        line.transferId ?? "",
        line.refundId ?? "",
        line.cardPaymentId ?? "",
        line.amount.currency,
        decimalOf(line.amount),
      ].join(","),
    ),
  ]
    .map((row) => `${row}\r\n`)
    .join("")

/** The report's lines of the window as CSV. */
export const csv = Traced.fn("TransactionReport.csv")(function* (query: Transfers.ReportQuery) {
  if (query.from > query.to) return yield* ValidationFailed.of("from", "must not be after to")
  if ((Date.parse(query.to) - Date.parse(query.from)) / 86_400_000 + 1 > Transfers.maxReportDays)
    return yield* ValidationFailed.of("to", `the window must be at most ${Transfers.maxReportDays} days`)
  return csvOf(yield* allLines(query))
})
