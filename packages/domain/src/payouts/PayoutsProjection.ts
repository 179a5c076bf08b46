/**
 * The `payouts` read model: one document per payout, kept from its Payout
 * stream alone (pure). It answers GET /Payouts (by company and status, newest
 * first), GET /Payouts/{payoutId} and its items, and tells the payout workers
 * which payouts are still Pending (index key `status`). Index keys:
 * `companyId`, `status`; sort key: the creation instant (ISO 8601).
 */
import { DateTime, Schema } from "effect"
import type * as Envelope from "../infrastructure/Envelope.ts"
import { type Projection, perAggregate } from "../infrastructure/ReadModel.ts"
import { CalendarDate } from "../kernel/CalendarDate.ts"
import { Money } from "../kernel/Money.ts"
import * as Ledger from "./Ledger.ts"
import { PayoutDirection, type PayoutEvent, PayoutStatus, statusOf } from "./PayoutEvents.ts"

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

/** The document after one event, its status aside. */
const applyEvent = (
  current: PayoutDocument | undefined,
  event: PayoutEvent,
): Omit<PayoutDocument, "status"> | undefined => {
  const updatedAt = DateTime.formatIso(event.at)
  if (event._tag === "PayoutCreated") {
    const { _tag, at, ...details } = event
    return { ...details, createdAt: updatedAt, updatedAt }
  }
  if (current === undefined) return undefined
  switch (event._tag) {
    case "PayoutOriginated":
      return { ...current, providerReference: event.providerReference, updatedAt }
    case "PayoutPaid":
      return { ...current, paidAt: updatedAt, updatedAt }
    case "PayoutOriginationDeferred":
      return { ...current, originationRetryAt: DateTime.formatIso(event.retryAt), updatedAt }
    case "PayoutStatusDeferred":
    case "PayoutStatusResumed":
      return current
    case "PayoutFailed":
      return {
        ...current,
        ...(event.returnCode === undefined ? {} : { returnCode: event.returnCode }),
        failureReason: event.reason,
        failedAt: updatedAt,
        updatedAt,
      }
  }
}

/** The document after one event: its status is the one the event's tag moves the payout to (`statusOf`). */
export const apply = (current: PayoutDocument | undefined, envelope: PayoutEnvelope): PayoutDocument | undefined => {
  if (envelope.streamType !== "Payout") return current
  const next = applyEvent(current, envelope.event)
  // Only a creation finds no document, and it names its status.
  const status = statusOf(envelope.event) ?? current?.status
  return next === undefined || status === undefined ? undefined : { ...next, status }
}

export const projection: Projection<PayoutDocument, PayoutEnvelope> = {
  collection,
  document: PayoutDocument,
  ...perAggregate<PayoutEnvelope>("Payout", (event) => event.payoutId),
  creates: ["PayoutCreated"],
  apply,
  index: (doc) => ({
    partnerId: doc.partnerId,
    keys: { companyId: doc.companyId, status: doc.status },
    sortKey: doc.createdAt,
  }),
}
