/**
 * The `transfers` read model: one document per transfer, kept from the
 * Transfer stream alone (pure). It answers GET /Transaction/{transferId}
 * (spec 2.9) and the transaction report. Account numbers are stored masked
 * only (the events never carry anything else). The sender's name is the
 * payer's personal data, sealed at rest under the payer's key.
 *
 * Refunds are part of the transfer (`refunds`, each as its credit moves).
 *
 * Index keys: `companyId`, `status`, `refundPending` (while a refund is Pending: the outcome
 * poller's key), `refundToOriginate` (while a Pending refund is not originated: the originator's) and, when the transfer pays one,
 * `paymentRequestId` (or, when it collects a plan's instalment, `paymentPlanId`). Sort key: the initiation instant (ISO 8601), which is
 * the transfer's `date`; the report selects a date range of it.
 */
import { DateTime, Schema } from "effect"
import type * as Envelope from "../infrastructure/Envelope.ts"
import { type Projection, perAggregate } from "../infrastructure/ReadModel.ts"
import { Money } from "../kernel/Money.ts"
import * as Payload from "../kernel/Payload.ts"
import {
  Attachment,
  type Of,
  RecipientAddress,
  RefundStatus,
  type TransferEvent,
  TransferInvoice,
  TransferStatus,
} from "./TransferEvents.ts"
import { statusOf } from "./TransferState.ts"

/** The events this read model reads. */
export type TransferEnvelope = Envelope.Of<"Transfer", TransferEvent>

export const collection = "transfers"

/** One refund of the transfer, as its credit moves (Pending, then Completed or Failed). */
export const RefundDocument = Schema.Struct({
  refundId: Schema.String,
  amount: Money,
  status: RefundStatus,
  providerReference: Schema.optionalKey(Schema.String),
  returnCode: Schema.optionalKey(Schema.String),
  failureReason: Schema.optionalKey(Schema.String),
  /** While the rail is unavailable: when its credit is tried again (ISO 8601; `MovementAttempts.ts`). */
  retryAt: Schema.optionalKey(Schema.String),
  /** While the rail is unavailable: when its credit's status is asked again (ISO 8601; `MovementAttempts.ts`). */
  statusRetryAt: Schema.optionalKey(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String,
})
export type RefundDocument = typeof RefundDocument.Type

export const TransferDocument = Schema.Struct({
  transferId: Schema.String,
  partnerId: Schema.String,
  companyId: Schema.String,
  paymentRequestId: Schema.optionalKey(Schema.String),
  /** The plan (and its instalment) the transfer collects. */
  paymentPlanId: Schema.optionalKey(Schema.String),
  instalmentNumber: Schema.optionalKey(Schema.Number),
  /** The charity gift (donation) the transfer collects. */
  charityTransactionId: Schema.optionalKey(Schema.String),
  /** The payer (every transfer initiated since sender names are sealed; before, plan instalments only). */
  payerRegistrationId: Schema.optionalKey(Schema.String),
  /** The payer's bank account debited (the movement's funding source), when the transfer names it. */
  bankAccountId: Schema.optionalKey(Schema.String),
  status: TransferStatus,
  amount: Money,
  /** The platform's fee kept from the amount (`TransferInitiated.platformFee`); absent: none. */
  platformFee: Schema.optionalKey(Money),
  /** Personal data of the payer (sealed at rest, `PaymentPersonalData.ts`); "[erased]" once the payer is erased. */
  senderName: Schema.String,
  recipientName: Schema.String,
  senderAccountMasked: Schema.String,
  /** Absent when the company had no payout account at initiation. */
  recipientAccountMasked: Schema.optionalKey(Schema.String),
  recipientAddress: RecipientAddress,
  attachments: Schema.Array(Attachment),
  description: Schema.String,
  /** The paid request's invoice, recorded at initiation (absent on transfers initiated before it was). */
  invoice: Schema.optionalKey(TransferInvoice),
  refundedAmount: Money,
  isRefunded: Schema.Boolean,
  appliedForReimbursement: Schema.Boolean,
  isReimbursed: Schema.Boolean,
  reimbursementProviderId: Schema.optionalKey(Schema.String),
  signingUrl: Schema.optionalKey(Schema.String),
  /** The ACH return code of a Failed or Returned transfer, and its reason (the code's description). */
  returnCode: Schema.optionalKey(Schema.String),
  failureReason: Schema.optionalKey(Schema.String),
  /** The money-movement provider's reference, once originated. */
  providerReference: Schema.optionalKey(Schema.String),
  /** While the rail is unavailable: when the debit is tried again (ISO 8601; `MovementAttempts.ts`). */
  originationRetryAt: Schema.optionalKey(Schema.String),
  /** While the rail is unavailable: when its debit's status is asked again (ISO 8601; `MovementAttempts.ts`). */
  statusRetryAt: Schema.optionalKey(Schema.String),
  /** The refunds, oldest first (absent before the first). */
  refunds: Schema.optionalKey(Schema.Array(RefundDocument)),
  returnedAt: Schema.optionalKey(Schema.String),
  /** ISO 8601 instants; `createdAt` is the initiation, the transfer's `date`. */
  createdAt: Schema.String,
  settledAt: Schema.optionalKey(Schema.String),
  failedAt: Schema.optionalKey(Schema.String),
  updatedAt: Schema.String,
})
export type TransferDocument = typeof TransferDocument.Type

const iso = DateTime.formatIso

export const apply = (
  current: TransferDocument | undefined,
  envelope: TransferEnvelope,
): TransferDocument | undefined => {
  if (envelope.streamType !== "Transfer") return current
  const event = envelope.event
  if (event._tag === "TransferInitiated") {
    // The transfer as initiated (each field the document shares with the event), Pending, nothing refunded.
    return {
      ...Payload.pick(TransferDocument, event),
      status: "Pending",
      refundedAmount: { minorUnits: 0, currency: event.amount.currency },
      isRefunded: false,
      appliedForReimbursement: false,
      isReimbursed: false,
      createdAt: iso(event.at),
      updatedAt: iso(event.at),
    }
  }
  if (current === undefined) return undefined
  const changed = changesOf(current, event)
  // The status comes from the event's tag (`TransferState.statusOf`, one table).
  const status = statusOf(event)
  return status === undefined ? changed : { ...changed, status }
}

/** What an event after the initiation changes in the document, its status aside. */
const changesOf = (current: TransferDocument, event: TransferEvent): TransferDocument => {
  const updatedAt = iso(event.at)
  switch (event._tag) {
    case "TransferInitiated":
      return current
    case "TransferSettled":
      return { ...current, settledAt: updatedAt, updatedAt }
    case "TransferFailed":
      return { ...current, ...failureOf(event), failedAt: updatedAt, updatedAt }
    case "TransferOriginated":
      return { ...current, providerReference: event.providerReference, updatedAt }
    case "TransferReturned":
      return { ...current, ...failureOf(event), returnedAt: updatedAt, updatedAt }
    case "TransferRefunded":
      return { ...withRefund(current, event, "Completed"), ...refundedTotal(event), updatedAt }
    case "TransferRefundRequested":
      return { ...withRefund(current, event, "Pending"), updatedAt }
    case "TransferRefundOriginated":
      return { ...changeRefund(current, event.refundId, { providerReference: event.providerReference }), updatedAt }
    case "TransferRefundCompleted":
      return {
        ...changeRefund(current, event.refundId, { status: "Completed", updatedAt }),
        ...refundedTotal(event),
        updatedAt,
      }
    case "TransferRefundFailed":
      return {
        ...changeRefund(current, event.refundId, { status: "Failed", ...failureOf(event), updatedAt }),
        updatedAt,
      }
    case "TransferReimbursementApplied":
      return {
        ...current,
        appliedForReimbursement: true,
        reimbursementProviderId: event.providerId,
        signingUrl: event.signingUrl,
        updatedAt,
      }
    case "TransferReimbursed":
      return { ...current, isReimbursed: true, updatedAt }
    case "TransferOriginationDeferred":
      return event.refundId === undefined
        ? { ...current, originationRetryAt: iso(event.retryAt), updatedAt }
        : { ...changeRefund(current, event.refundId, { retryAt: iso(event.retryAt), updatedAt }), updatedAt }
    case "TransferStatusDeferred":
      return event.refundId === undefined
        ? { ...current, statusRetryAt: iso(event.retryAt), updatedAt }
        : { ...changeRefund(current, event.refundId, { statusRetryAt: iso(event.retryAt), updatedAt }), updatedAt }
    case "TransferStatusResumed": {
      if (event.refundId === undefined) {
        const { statusRetryAt: _, ...rest } = current
        return { ...rest, updatedAt }
      }
      return {
        ...current,
        refunds: (current.refunds ?? []).map((refund) => {
          if (refund.refundId !== event.refundId) return refund
          const { statusRetryAt: _, ...rest } = refund
          return { ...rest, updatedAt }
        }),
        updatedAt,
      }
    }
  }
}

/** The return code (when the bank gave one) and the reason of a failed or returned movement. */
const failureOf = (event: { readonly returnCode?: string; readonly reason: string }) => ({
  ...(event.returnCode === undefined ? {} : { returnCode: event.returnCode }),
  failureReason: event.reason,
})

/** The refunded total a completed refund brings the transfer to, and whether it is all of it. */
const refundedTotal = (event: Pick<Of<"TransferRefundCompleted">, "totalRefunded" | "isRefunded">) => ({
  refundedAmount: event.totalRefunded,
  isRefunded: event.isRefunded,
})

/** The document with one more refund, in `status` from the event's instant. */
const withRefund = (
  doc: TransferDocument,
  event: Pick<Of<"TransferRefundRequested">, "refundId" | "amount" | "at">,
  status: RefundStatus,
): TransferDocument => {
  const at = iso(event.at)
  const refund: RefundDocument = {
    refundId: event.refundId,
    amount: event.amount,
    status,
    createdAt: at,
    updatedAt: at,
  }
  return { ...doc, refunds: [...(doc.refunds ?? []), refund] }
}

/** The document with one refund changed. */
const changeRefund = (doc: TransferDocument, refundId: string, change: Partial<RefundDocument>): TransferDocument =>
  doc.refunds === undefined
    ? doc
    : {
        ...doc,
        refunds: doc.refunds.map((refund) => (refund.refundId === refundId ? { ...refund, ...change } : refund)),
      }

/** True while a refund of the transfer is Pending (the index key `refundPending` the outcome poller reads). */
export const hasPendingRefund = (doc: TransferDocument): boolean =>
  doc.refunds?.some((refund) => refund.status === "Pending") ?? false

/** True while a Pending refund is not originated yet (the index key `refundToOriginate` the originator reads). */
export const hasRefundToOriginate = (doc: TransferDocument): boolean =>
  doc.refunds?.some((refund) => refund.status === "Pending" && refund.providerReference === undefined) ?? false

export const projection: Projection<TransferDocument, TransferEnvelope> = {
  collection,
  document: TransferDocument,
  ...perAggregate<TransferEnvelope>("Transfer", (event) => event.transferId),
  creates: ["TransferInitiated"],
  apply,
  index: (doc) => ({
    partnerId: doc.partnerId,
    keys: {
      companyId: doc.companyId,
      status: doc.status,
      // The payer's debits, for the rail's payer limit (`RailRules.checkPayerLimit`).
      ...(doc.payerRegistrationId === undefined ? {} : { payerRegistrationId: doc.payerRegistrationId }),
      ...(doc.paymentRequestId === undefined ? {} : { paymentRequestId: doc.paymentRequestId }),
      ...(doc.paymentPlanId === undefined ? {} : { paymentPlanId: doc.paymentPlanId }),
      ...(hasPendingRefund(doc) ? { refundPending: "true" } : {}),
      ...(hasRefundToOriginate(doc) ? { refundToOriginate: "true" } : {}),
      ...(doc.appliedForReimbursement && !doc.isReimbursed ? { reimbursementPending: "true" } : {}),
    },
    sortKey: doc.createdAt,
  }),
}
