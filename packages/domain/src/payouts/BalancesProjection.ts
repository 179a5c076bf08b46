/**
 * The `balances` read model: one document per company with a ledger or a
 * payout account, kept from its CompanyBalance stream and its company's
 * payout account events (pure): the money not paid out per currency (signed: a
 * balance may be negative), the entries among it that wait for an
 * availability date (card money, `maturing`: a read at time t counts those
 * not yet available as pending, `availableAt`), when it was last paid out, and whether the company
 * has a payout account. It answers the `available` part of
 * GET /Company/{companyId}/Balance and tells the payout worker which companies
 * may be paid out (index key `payable`: "true" when the company has a payout
 * account and some currency is not zero: above it to pay out, below it to
 * recover the deficit), so that companies that cannot be paid out never hold
 * up those that can. `deficitSince`: when a payout run first found a currency
 * negative (operators read deficits and their age: /metrics, `partnerpay
 * balances --negative`).
 */
import { DateTime, Schema } from "effect"
import type { Company } from "../companies/index.ts"
import type * as Envelope from "../infrastructure/Envelope.ts"
import type { Projection } from "../infrastructure/ReadModel.ts"
import { inCurrencyOrder } from "../kernel/CurrencyOrder.ts"
import type * as Money from "../kernel/Money.ts"
import type { BalanceEvent } from "./BalanceEvents.ts"
import * as Ledger from "./Ledger.ts"

/** The events this read model reads. */
export type BalanceEnvelope = Envelope.Of<"CompanyBalance", BalanceEvent> | Envelope.Of<"Company", Company.CompanyEvent>

export const collection = "balances"

export const BalanceDocument = Schema.Struct({
  companyId: Schema.String,
  partnerId: Schema.String,
  /** One signed amount per currency the company has entries in, sorted by currency. */
  available: Schema.Array(Ledger.SignedAmount),
  /** The entries with an availability date that were not paid out yet (card money), oldest first. */
  maturing: Schema.optionalKey(
    Schema.Array(Schema.Struct({ entryId: Schema.String, availableAt: Schema.String, amount: Ledger.SignedAmount })),
  ),
  lastPayoutAt: Schema.optionalKey(Schema.String),
  /** Whether the company has a payout account (set by PUT /Company/{companyId}/PayoutAccount). */
  hasPayoutAccount: Schema.optionalKey(Schema.Boolean),
  /** While some currency is negative: when a payout run first found it so (ISO 8601). */
  deficitSince: Schema.optionalKey(Schema.String),
  updatedAt: Schema.String,
})
export type BalanceDocument = typeof BalanceDocument.Type

/** The minor units of `currency` not paid out, available or not yet (0 when none). */
export const availableIn = (doc: BalanceDocument | undefined, currency: Money.CurrencyCode): number =>
  doc?.available.find((amount) => amount.currency === currency)?.minorUnits ?? 0

/** The minor units of `currency` waiting for their availability date at `at` (card money not available yet). */
export const notYetAvailableIn = (
  doc: BalanceDocument | undefined,
  currency: Money.CurrencyCode,
  at: DateTime.Utc,
): number =>
  (doc?.maturing ?? []).reduce(
    (sum, entry) =>
      entry.amount.currency === currency && Date.parse(entry.availableAt) > DateTime.toEpochMillis(at)
        ? sum + entry.amount.minorUnits
        : sum,
    0,
  )

type Maturing = NonNullable<BalanceDocument["maturing"]>

const maturingAfter = (
  maturing: Maturing | undefined,
  added: ReadonlyArray<Ledger.LedgerEntry>,
  removed: ReadonlyArray<Ledger.LedgerEntry>,
): { readonly maturing?: Maturing } => {
  const gone = new Set(removed.map((entry) => entry.entryId))
  const kept = (maturing ?? []).filter((entry) => !gone.has(entry.entryId))
  const more = added.flatMap((entry) =>
    entry.availableAt === undefined
      ? []
      : [{ entryId: entry.entryId, availableAt: DateTime.formatIso(entry.availableAt), amount: entry.amount }],
  )
  const next = [...kept, ...more]
  return next.length === 0 ? {} : { maturing: next }
}

const withMaturing = (
  doc: BalanceDocument,
  added: ReadonlyArray<Ledger.LedgerEntry>,
  removed: ReadonlyArray<Ledger.LedgerEntry>,
): BalanceDocument => {
  const { maturing: _maturing, ...rest } = doc
  return { ...rest, ...maturingAfter(doc.maturing, added, removed) }
}

const adding = (
  available: ReadonlyArray<Ledger.SignedAmount>,
  entries: ReadonlyArray<Ledger.LedgerEntry>,
  sign: 1 | -1,
): ReadonlyArray<Ledger.SignedAmount> => {
  const totals = new Map<Money.CurrencyCode, number>(available.map((amount) => [amount.currency, amount.minorUnits]))
  for (const entry of entries)
    totals.set(entry.amount.currency, (totals.get(entry.amount.currency) ?? 0) + sign * entry.amount.minorUnits)
  return inCurrencyOrder(totals).map(([currency, minorUnits]) => ({ currency, minorUnits }))
}

export const apply = (current: BalanceDocument | undefined, envelope: BalanceEnvelope): BalanceDocument | undefined => {
  if (envelope.streamType === "Company") {
    const event = envelope.event
    if (event._tag !== "PayoutAccountSet") return current
    const at = DateTime.formatIso(event.at)
    return current === undefined
      ? { companyId: event.companyId, partnerId: event.partnerId, available: [], hasPayoutAccount: true, updatedAt: at }
      : { ...current, hasPayoutAccount: true }
  }
  const event = envelope.event
  const updatedAt = DateTime.formatIso(event.at)
  const base: BalanceDocument = current ?? {
    companyId: event.companyId,
    partnerId: event.partnerId,
    available: [],
    updatedAt,
  }
  switch (event._tag) {
    case "LedgerEntryRecorded":
      return settled(
        withMaturing({ ...base, available: adding(base.available, [event.entry], 1), updatedAt }, [event.entry], []),
      )
    case "BalancePaidOut":
      return settled(
        withMaturing(
          {
            ...base,
            available: adding(base.available, event.items, -1),
            ...(event.direction === "Debit" ? {} : { lastPayoutAt: updatedAt }),
            updatedAt,
          },
          [],
          event.items,
        ),
      )
    case "PayoutItemsRestored":
      return settled({ ...base, available: adding(base.available, event.items, 1), updatedAt })
    case "BalanceDeficitObserved":
      return { ...base, deficitSince: base.deficitSince ?? updatedAt, updatedAt }
  }
}

/** Forgets `deficitSince` once no currency is negative. */
const settled = (doc: BalanceDocument): BalanceDocument => {
  if (doc.deficitSince === undefined || doc.available.some((amount) => amount.minorUnits < 0)) return doc
  const { deficitSince: _since, ...rest } = doc
  return rest
}

export const projection: Projection<BalanceDocument, BalanceEnvelope> = {
  collection,
  document: BalanceDocument,
  streamTypes: ["CompanyBalance", "Company"],
  ownedBy: "CompanyBalance",
  key: (envelope) =>
    envelope.streamType === "CompanyBalance" ||
    (envelope.streamType === "Company" && envelope.event._tag === "PayoutAccountSet")
      ? envelope.event.companyId
      : undefined,
  apply,
  index: (doc) => ({
    partnerId: doc.partnerId,
    keys: {
      payable:
        doc.hasPayoutAccount === true && doc.available.some((amount) => amount.minorUnits !== 0) ? "true" : "false",
    },
    sortKey: doc.updatedAt,
  }),
}
