/**
 * The `ledger_entries` read model: one document per ledger entry of any
 * company (a settled payment or instalment, a card payment, a refund, a
 * return, a fee), dated when it reached the company's balance, kept from the
 * CompanyBalance streams alone (pure). It gives the transaction report its
 * lines (`TransactionReport.ts`): the same entries the payouts carry as their
 * items, so the report of a period reconciles with the payouts of that period.
 * Index keys: `companyId`; sort key: the instant the entry was recorded.
 */
import { DateTime, Schema } from "effect"
import type { Projection } from "../infrastructure/ReadModel.ts"
import type { BalanceEnvelope } from "./BalancesProjection.ts"
import * as Ledger from "./Ledger.ts"

export const collection = "ledger_entries"

export const LedgerEntryDocument = Schema.Struct({
  ...Ledger.LedgerEntry.fields,
  companyId: Schema.String,
  partnerId: Schema.String,
  /** When the entry reached the company's balance (ISO 8601). */
  recordedAt: Schema.String,
})
export type LedgerEntryDocument = typeof LedgerEntryDocument.Type

export const projection: Projection<LedgerEntryDocument, BalanceEnvelope> = {
  collection,
  document: LedgerEntryDocument,
  streamTypes: ["CompanyBalance"],
  creates: ["LedgerEntryRecorded"],
  key: (envelope) =>
    envelope.streamType === "CompanyBalance" && envelope.event._tag === "LedgerEntryRecorded"
      ? envelope.event.entry.entryId
      : undefined,
  apply: (current, envelope) => {
    if (envelope.streamType !== "CompanyBalance" || envelope.event._tag !== "LedgerEntryRecorded") return current
    const event = envelope.event
    return {
      ...event.entry,
      companyId: event.companyId,
      partnerId: event.partnerId,
      recordedAt: DateTime.formatIso(event.at),
    }
  },
  index: (doc) => ({ partnerId: doc.partnerId, keys: { companyId: doc.companyId }, sortKey: doc.recordedAt }),
}
