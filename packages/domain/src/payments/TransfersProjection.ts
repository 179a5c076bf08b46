/**
 * The `transfers` read model: one document per transfer, kept from the
 * Transfer stream alone (pure). It answers GET /Transaction/{transferId}
 * (spec 2.9) and the transaction report. Account numbers are stored masked
 * only (the events never carry anything else). The sender's name is the
 * payer's personal data, sealed at rest under the payer's key.
 *
 * Index keys: `companyId`, `status` and, when the transfer pays one,
 * `paymentRequestId` (or, when it collects a plan's instalment, `paymentPlanId`). Sort key: the initiation instant (ISO 8601), which is
 * the transfer's `date`; the report selects a date range of it.
 */
import { DateTime, Schema } from "effect"
import type * as Envelope from "../infrastructure/Envelope.ts"
import type { Projection } from "../infrastructure/ReadModel.ts"
import { Money } from "../kernel/Money.ts"
import { Attachment, RecipientAddress, type TransferEvent, TransferInvoice, TransferStatus } from "./TransferEvents.ts"

/** The events this read model reads. */
export type TransferEnvelope = Envelope.Of<"Transfer", TransferEvent>

export const collection = "transfers"

export const TransferDocument = Schema.Struct({
  transferId: Schema.String,
  partnerId: Schema.String,
  companyId: Schema.String,
  paymentRequestId: Schema.optionalKey(Schema.String),
  /** The plan (and its instalment) the transfer collects. */
  paymentPlanId: Schema.optionalKey(Schema.String),
  instalmentNumber: Schema.optionalKey(Schema.Number),
  /** The payer (every transfer initiated since sender names are sealed; before, plan instalments only). */
  payerRegistrationId: Schema.optionalKey(Schema.String),
  status: TransferStatus,
  amount: Money,
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
  returnCode: Schema.optionalKey(Schema.String),
  failureReason: Schema.optionalKey(Schema.String),
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
    return {
      transferId: event.transferId,
      partnerId: event.partnerId,
      companyId: event.companyId,
      ...(event.paymentRequestId === undefined ? {} : { paymentRequestId: event.paymentRequestId }),
      ...(event.paymentPlanId === undefined ? {} : { paymentPlanId: event.paymentPlanId }),
      ...(event.instalmentNumber === undefined ? {} : { instalmentNumber: event.instalmentNumber }),
      ...(event.payerRegistrationId === undefined ? {} : { payerRegistrationId: event.payerRegistrationId }),
      status: "Pending",
      amount: event.amount,
      senderName: event.senderName,
      recipientName: event.recipientName,
      senderAccountMasked: event.senderAccountMasked,
      ...(event.recipientAccountMasked === undefined ? {} : { recipientAccountMasked: event.recipientAccountMasked }),
      recipientAddress: event.recipientAddress,
      attachments: event.attachments,
      description: event.description,
      ...(event.invoice === undefined ? {} : { invoice: event.invoice }),
      refundedAmount: { minorUnits: 0, currency: event.amount.currency },
      isRefunded: false,
      appliedForReimbursement: false,
      isReimbursed: false,
      createdAt: iso(event.at),
      updatedAt: iso(event.at),
    }
  }
  if (current === undefined) return undefined
  const updatedAt = iso(event.at)
  switch (event._tag) {
    case "TransferSettled":
      return { ...current, status: "Settled", settledAt: updatedAt, updatedAt }
    case "TransferFailed":
      return {
        ...current,
        status: "Failed",
        returnCode: event.returnCode,
        failureReason: event.reason,
        failedAt: updatedAt,
        updatedAt,
      }
    case "TransferRefunded":
      return { ...current, refundedAmount: event.totalRefunded, isRefunded: event.isRefunded, updatedAt }
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
  }
}

export const projection: Projection<TransferDocument, TransferEnvelope> = {
  collection,
  document: TransferDocument,
  streamTypes: ["Transfer"],
  ownedBy: "Transfer",
  creates: ["TransferInitiated"],
  key: (envelope) => (envelope.streamType === "Transfer" ? envelope.event.transferId : undefined),
  apply,
  index: (doc) => ({
    partnerId: doc.partnerId,
    keys: {
      companyId: doc.companyId,
      status: doc.status,
      ...(doc.paymentRequestId === undefined ? {} : { paymentRequestId: doc.paymentRequestId }),
      ...(doc.paymentPlanId === undefined ? {} : { paymentPlanId: doc.paymentPlanId }),
    },
    sortKey: doc.createdAt,
  }),
}
