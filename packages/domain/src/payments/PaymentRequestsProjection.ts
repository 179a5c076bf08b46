/**
 * The `payment_requests` read model: one document per payment request, kept
 * from the PaymentRequest stream alone (pure). It answers GET
 * /Payment/{paymentRequestId} and GET /Payment/History, and gives the
 * PAYMENT_REQUEST_STATUS_CHANGED rule the partner owning a request.
 *
 * Index keys: `companyId`, `payerRegistrationId`, `status` and, once accepted,
 * `transferId` (to find the request a transfer pays). Sort key: the creation
 * instant (ISO 8601), so history pages are newest first and date filters are
 * sort-key ranges.
 */
import { DateTime, Schema } from "effect"
import type { Envelope } from "../DomainEvents.ts"
import type { Projection } from "../infrastructure/ReadModel.ts"
import { Money } from "../kernel/Money.ts"
import { PaymentRequestStatus } from "./PaymentRequestEvents.ts"

export const collection = "payment_requests"

export const StatusChange = Schema.Struct({
  status: PaymentRequestStatus,
  /** ISO 8601 instant. */
  timestamp: Schema.String,
})
export type StatusChange = typeof StatusChange.Type

export const PaymentRequestDocument = Schema.Struct({
  paymentRequestId: Schema.String,
  partnerId: Schema.String,
  companyId: Schema.String,
  payerRegistrationId: Schema.String,
  status: PaymentRequestStatus,
  amount: Money,
  description: Schema.String,
  /** YYYY-MM-DD. */
  dueDate: Schema.String,
  attachmentUrl: Schema.optionalKey(Schema.String),
  enableAutoPay: Schema.Boolean,
  autoPayLimit: Schema.optionalKey(Money),
  enableDebitAuth: Schema.Boolean,
  debitAuthLimit: Schema.optionalKey(Money),
  /** From acceptance on. */
  debitAuthAccepted: Schema.optionalKey(Schema.Boolean),
  bankAccountId: Schema.optionalKey(Schema.String),
  accountNumberMasked: Schema.optionalKey(Schema.String),
  transferId: Schema.optionalKey(Schema.String),
  transferDescription: Schema.optionalKey(Schema.String),
  /** Once Failed. */
  returnCode: Schema.optionalKey(Schema.String),
  failureReason: Schema.optionalKey(Schema.String),
  refundedAmount: Money,
  statusHistory: Schema.Array(StatusChange),
  /** ISO 8601 instants. */
  createdAt: Schema.String,
  updatedAt: Schema.String,
})
export type PaymentRequestDocument = typeof PaymentRequestDocument.Type

const iso = DateTime.formatIso

const withStatus = (
  doc: PaymentRequestDocument,
  status: PaymentRequestStatus,
  at: DateTime.Utc,
): PaymentRequestDocument => ({
  ...doc,
  status,
  statusHistory: [...doc.statusHistory, { status, timestamp: iso(at) }],
  updatedAt: iso(at),
})

export const apply = (current: PaymentRequestDocument | undefined, envelope: Envelope) => {
  if (envelope.streamType !== "PaymentRequest") return current
  const event = envelope.event
  if (event._tag === "PaymentRequestCreated") {
    return {
      paymentRequestId: event.paymentRequestId,
      partnerId: event.partnerId,
      companyId: event.companyId,
      payerRegistrationId: event.payerRegistrationId,
      status: "Pending",
      amount: event.amount,
      description: event.description,
      dueDate: event.dueDate,
      ...(event.attachmentUrl === undefined ? {} : { attachmentUrl: event.attachmentUrl }),
      enableAutoPay: event.autoPayLimit !== undefined,
      ...(event.autoPayLimit === undefined ? {} : { autoPayLimit: event.autoPayLimit }),
      enableDebitAuth: event.debitAuthLimit !== undefined,
      ...(event.debitAuthLimit === undefined ? {} : { debitAuthLimit: event.debitAuthLimit }),
      refundedAmount: { minorUnits: 0, currency: event.amount.currency },
      statusHistory: [{ status: "Pending", timestamp: iso(event.at) }],
      createdAt: iso(event.at),
      updatedAt: iso(event.at),
    } satisfies PaymentRequestDocument
  }
  if (current === undefined) return undefined
  switch (event._tag) {
    case "PaymentRequestAccepted":
      return withStatus(
        {
          ...current,
          debitAuthAccepted: event.debitAuthAccepted,
          bankAccountId: event.bankAccountId,
          accountNumberMasked: event.accountNumberMasked,
          transferId: event.transferId,
          transferDescription: event.transferDescription,
        },
        "Accepted",
        event.at,
      )
    case "PaymentRequestCancelled":
      return withStatus(current, "Cancelled", event.at)
    case "PaymentRequestPaid":
      return withStatus(current, "Paid", event.at)
    case "PaymentRequestFailed":
      return withStatus({ ...current, returnCode: event.returnCode, failureReason: event.reason }, "Failed", event.at)
    case "PaymentRequestPartiallyRefunded":
      return { ...current, refundedAmount: event.totalRefunded, updatedAt: iso(event.at) }
    case "PaymentRequestRefunded":
      return withStatus({ ...current, refundedAmount: event.totalRefunded }, "Refunded", event.at)
  }
}

export const projection: Projection<PaymentRequestDocument> = {
  collection,
  document: PaymentRequestDocument,
  streamTypes: ["PaymentRequest"],
  ownedBy: "PaymentRequest",
  creates: ["PaymentRequestCreated"],
  key: (envelope) => (envelope.streamType === "PaymentRequest" ? envelope.event.paymentRequestId : undefined),
  apply,
  index: (doc) => ({
    partnerId: doc.partnerId,
    keys: {
      companyId: doc.companyId,
      payerRegistrationId: doc.payerRegistrationId,
      status: doc.status,
      ...(doc.transferId === undefined ? {} : { transferId: doc.transferId }),
    },
    sortKey: doc.createdAt,
  }),
}
