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
 *
 * `payment_requests_autocollect` (`dueForAutoCollection`): the autopay
 * scheduler's work list, one document per Pending request offering autopay or
 * a debit authorization that the service has not tried to collect yet, sorted
 * by due date. It spans every partner, so it is owned by the system tenant
 * (the nil UUID, which no partner can have). The rule deciding whether a
 * listed request may be collected is the aggregate's (`TryAutoCollection`).
 */

import { DateTime, Schema } from "effect"
import type * as Envelope from "../infrastructure/Envelope.ts"
import { type Projection, perAggregate } from "../infrastructure/ReadModel.ts"
import * as Tenancy from "../infrastructure/Tenancy.ts"
import { PaymentRequestId } from "../kernel/Ids.ts"
import { Metadata } from "../kernel/Metadata.ts"
import { Money } from "../kernel/Money.ts"
import * as Payload from "../kernel/Payload.ts"
import { AuthorizationEvidence } from "./AuthorizationEvidence.ts"
import {
  AutoCollectionMethod,
  AutoCollectionSkipReason,
  type PaymentRequestEvent,
  PaymentRequestStatus,
} from "./PaymentRequestEvents.ts"
import { statusOf } from "./PaymentRequestState.ts"
import { failureViewFields, returnReason } from "./ReturnCodes.ts"
import { InvoiceLineItem } from "./TransferEvents.ts"

/** The events this read model reads. */
export type PaymentRequestEnvelope = Envelope.Of<"PaymentRequest", PaymentRequestEvent>

export const collection = "payment_requests"

export const StatusChange = Schema.Struct({
  status: PaymentRequestStatus,
  timestamp: Schema.String.annotate({ description: "ISO 8601 instant (UTC)" }),
})
export type StatusChange = typeof StatusChange.Type

/** The saved card a payer paid a request with in the app. */
export const CardPaymentSummary = Schema.Struct({
  cardPaymentId: Schema.String,
  paymentMethodId: Schema.String,
  brand: Schema.String,
  last4: Schema.String,
})

/**
 * A payment request as clients read it, in the order it is answered: the one
 * declaration of its shape (the document adds the service's own fields, the
 * HTTP response replaces the amounts with their wire form).
 */
export const PaymentRequestView = Schema.Struct({
  paymentRequestId: Schema.String,
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
  transferId: Schema.optionalKey(Schema.String),
  accountNumberMasked: Schema.optionalKey(Schema.String),
  invoiceNumber: Schema.optionalKey(Schema.String),
  lineItems: Schema.optionalKey(Schema.Array(InvoiceLineItem)),
  metadata: Schema.optionalKey(Metadata),
  collectedBy: Schema.optionalKey(
    AutoCollectionMethod.annotate({
      description:
        "Set when the service collected the request by itself on its due date (autopay or debit authorization)",
    }),
  ),
  autoCollectionSkipped: Schema.optionalKey(
    AutoCollectionSkipReason.annotate({
      description:
        "Set when the service could not collect the request by itself on its due date; it stays Pending for the payer to accept",
    }),
  ),
  cardPayment: Schema.optionalKey(
    CardPaymentSummary.annotate({ description: "Set when the payer paid the request in the app with a saved card" }),
  ),
  refundedAmount: Money,
  authorization: Schema.optionalKey(
    AuthorizationEvidence.annotate({
      description:
        "The evidence of the payer's authorization, kept two years (docs/api/authorization-evidence.md): from a payer's Accept (payment-acceptance text), a collection by autopay (the autopay designation's evidence) or an in-app card payment (card-payment text)",
    }),
  ),
  ...failureViewFields({
    returnCode:
      "Failed or Returned: the ACH return code of the transfer (e.g. R01, R10); null when the rail refused the transfer (see failureReason); absent otherwise",
    failureReason:
      "Failed or Returned: why (the rail's words when it refused the transfer, the return code's description otherwise)",
  }),
  statusHistory: Schema.Array(StatusChange),
  /** ISO 8601 instant. */
  createdAt: Schema.String,
})
export type PaymentRequestView = typeof PaymentRequestView.Type

/** The read model document: the view and what only the service reads. */
export const PaymentRequestDocument = Schema.Struct({
  ...PaymentRequestView.fields,
  partnerId: Schema.String,
  bankAccountId: Schema.optionalKey(Schema.String),
  transferDescription: Schema.optionalKey(Schema.String),
  /** ISO 8601 instant. */
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

export const apply = (current: PaymentRequestDocument | undefined, envelope: PaymentRequestEnvelope) => {
  if (envelope.streamType !== "PaymentRequest") return current
  const event = envelope.event
  if (event._tag === "PaymentRequestCreated") {
    // The request as created (each field the document shares with the event), Pending, nothing refunded.
    return {
      ...Payload.pick(PaymentRequestDocument, event),
      status: "Pending",
      enableAutoPay: event.autoPayLimit !== undefined,
      enableDebitAuth: event.debitAuthLimit !== undefined,
      refundedAmount: { minorUnits: 0, currency: event.amount.currency },
      statusHistory: [{ status: "Pending", timestamp: iso(event.at) }],
      createdAt: iso(event.at),
      updatedAt: iso(event.at),
    } satisfies PaymentRequestDocument
  }
  if (current === undefined) return undefined
  const changed = changesOf(current, event)
  // The status comes from the event's tag (`statusOf`, one table): an event that keeps it only touches updatedAt.
  const status = statusOf(event)
  return status === undefined ? { ...changed, updatedAt: iso(event.at) } : withStatus(changed, status, event.at)
}

/** What an event after the creation changes in the document, its status aside. */
const changesOf = (current: PaymentRequestDocument, event: PaymentRequestEvent): PaymentRequestDocument => {
  switch (event._tag) {
    case "PaymentRequestAccepted":
      // The acceptance, the transfer that pays the request, and how it was collected and authorized.
      return { ...current, ...Payload.pick(PaymentRequestDocument, event) }
    case "PaymentRequestFailed":
    case "PaymentRequestReturned":
      return {
        ...current,
        ...(event.returnCode === undefined
          ? { returnCode: null }
          : { returnCode: event.returnCode, returnReason: returnReason(event.returnCode, event.reason) }),
        failureReason: event.reason,
      }
    case "PaymentRequestPartiallyRefunded":
    case "PaymentRequestRefunded":
      return { ...current, refundedAmount: event.totalRefunded }
    case "PaymentRequestMetadataSet":
      return { ...current, metadata: event.metadata }
    case "PaymentRequestAutoCollectionSkipped":
      return { ...current, autoCollectionSkipped: event.reason }
    case "PaymentRequestPaidByCard":
      return {
        ...current,
        cardPayment: Payload.pick(CardPaymentSummary, event),
        ...(event.authorization === undefined ? {} : { authorization: event.authorization }),
      }
    case "PaymentRequestCreated":
    case "PaymentRequestCancelled":
    case "PaymentRequestPaid":
      return current
  }
}

export const projection: Projection<PaymentRequestDocument, PaymentRequestEnvelope> = {
  collection,
  document: PaymentRequestDocument,
  ...perAggregate<PaymentRequestEnvelope>("PaymentRequest", (event) => event.paymentRequestId),
  creates: ["PaymentRequestCreated"],
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

// ---------------------------------------------------------------------------
// The auto-collection scheduler's work list

/** The owner of system-wide documents: the nil UUID, which no partner can have. */
export const systemTenant: string = Tenancy.systemTenant

export const DueCollectionDocument = Schema.Struct({
  paymentRequestId: PaymentRequestId,
  partnerId: Schema.String,
  collection: AutoCollectionMethod,
  /** YYYY-MM-DD. */
  dueDate: Schema.String,
})
export type DueCollectionDocument = typeof DueCollectionDocument.Type

/**
 * Pending requests offering autopay or a debit authorization, not tried yet,
 * by due date. Any later event of the request (accepted, cancelled, paid by
 * card, skipped) takes it off the list.
 */
export const dueForAutoCollection: Projection<DueCollectionDocument, PaymentRequestEnvelope> = {
  collection: "payment_requests_autocollect",
  document: DueCollectionDocument,
  ...perAggregate<PaymentRequestEnvelope>("PaymentRequest", (event) => event.paymentRequestId),
  creates: ["PaymentRequestCreated"],
  apply: (_current, envelope) => {
    if (envelope.streamType !== "PaymentRequest") return undefined
    const event = envelope.event
    if (event._tag !== "PaymentRequestCreated") return undefined
    const collection =
      event.autoPayLimit !== undefined ? "AutoPay" : event.debitAuthLimit !== undefined ? "DebitAuth" : undefined
    if (collection === undefined) return undefined
    return { paymentRequestId: event.paymentRequestId, partnerId: event.partnerId, collection, dueDate: event.dueDate }
  },
  index: (doc) => ({ partnerId: systemTenant, keys: {}, sortKey: doc.dueDate }),
}
