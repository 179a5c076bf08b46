/**
 * The `payouts` read model: one document per payout, kept from its Payout
 * stream alone (pure). It answers GET /Payouts (by company and status, newest
 * first), GET /Payouts/{payoutId} and its items, and tells the payout workers
 * which payouts are still Pending (index key `status`). Index keys:
 * `companyId`, `status`; sort key: the creation instant (ISO 8601).
 */
import { DateTime, Schema } from "effect"
import type * as Envelope from "../infrastructure/Envelope.ts"
import type { Projection } from "../infrastructure/ReadModel.ts"
import { CalendarDate } from "../kernel/CalendarDate.ts"
import { Money } from "../kernel/Money.ts"
import * as Ledger from "./Ledger.ts"
import { PayoutDirection, type PayoutEvent, PayoutStatus } from "./PayoutEvents.ts"

/** The events this read model reads. */
export type PayoutEnvelope = Envelope.Of<"Payout", PayoutEvent>

export const collection = "payouts"

export const PayoutDocument = Schema.Struct({
  payoutId: Schema.String,
  companyId: Schema.String,
  partnerId: Schema.String,
  /** Absent on payouts recorded before deficits were recovered: Credit. */
  direction: Schema.optionalKey(PayoutDirection),
  amount: Money,
  status: PayoutStatus,
  items: Schema.Array(Ledger.LedgerEntry),
  payoutAccountId: Schema.String,
  accountNumberMasked: Schema.String,
  arrivalDate: CalendarDate,
  providerReference: Schema.optionalKey(Schema.String),
  /** While the rail is unavailable: when the payout is originated again (ISO 8601; `MovementAttempts.ts`). */
  originationRetryAt: Schema.optionalKey(Schema.String),
  returnCode: Schema.optionalKey(Schema.String),
  failureReason: Schema.optionalKey(Schema.String),
  /** ISO 8601 instants. */
  createdAt: Schema.String,
  paidAt: Schema.optionalKey(Schema.String),
  failedAt: Schema.optionalKey(Schema.String),
  updatedAt: Schema.String,
})
export type PayoutDocument = typeof PayoutDocument.Type

export const apply = (current: PayoutDocument | undefined, envelope: PayoutEnvelope): PayoutDocument | undefined => {
  if (envelope.streamType !== "Payout") return current
  const event = envelope.event
  const updatedAt = DateTime.formatIso(event.at)
  if (event._tag === "PayoutCreated") {
    return {
      payoutId: event.payoutId,
      companyId: event.companyId,
      partnerId: event.partnerId,
      ...(event.direction === undefined ? {} : { direction: event.direction }),
      amount: event.amount,
      status: "Pending",
      items: event.items,
      payoutAccountId: event.payoutAccountId,
      accountNumberMasked: event.accountNumberMasked,
      arrivalDate: event.arrivalDate,
      createdAt: updatedAt,
      updatedAt,
    }
  }
  if (current === undefined) return undefined
  switch (event._tag) {
    case "PayoutOriginated":
      return { ...current, providerReference: event.providerReference, updatedAt }
    case "PayoutPaid":
      return { ...current, status: "Paid", paidAt: updatedAt, updatedAt }
    case "PayoutOriginationDeferred":
      return { ...current, originationRetryAt: DateTime.formatIso(event.retryAt), updatedAt }
    case "PayoutStatusDeferred":
    case "PayoutStatusResumed":
      return current
    case "PayoutFailed":
      return {
        ...current,
        status: "Failed",
        ...(event.returnCode === undefined ? {} : { returnCode: event.returnCode }),
        failureReason: event.reason,
        failedAt: updatedAt,
        updatedAt,
      }
  }
}

export const projection: Projection<PayoutDocument, PayoutEnvelope> = {
  collection,
  document: PayoutDocument,
  streamTypes: ["Payout"],
  ownedBy: "Payout",
  creates: ["PayoutCreated"],
  key: (envelope) => (envelope.streamType === "Payout" ? envelope.event.payoutId : undefined),
  apply,
  index: (doc) => ({
    partnerId: doc.partnerId,
    keys: { companyId: doc.companyId, status: doc.status },
    sortKey: doc.createdAt,
  }),
}
