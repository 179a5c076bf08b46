/**
 * Payment requests (spec 2.16, 3.3, 4, changelog v0.1, v0.4.6, v0.4.7): the
 * partner creates a request for one of its companies (named by companyId or
 * by the partner's companyReferenceId, exactly one), reads it, lists its
 * history and cancels it while Pending. The payer accepts it through
 * POST /Transaction/PaymentRequest/{paymentRequestId}/Accept (TransactionApi).
 */
import {
  Attachments,
  CalendarDate,
  Ids,
  Metadata,
  Money,
  PaymentRequestEvents,
  Payments,
  TransferEvents,
} from "@partnerpay/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication } from "../cross-cutting/Authentication.ts"
import { AmountResponse } from "../cross-cutting/MoneyResponse.ts"
import * as Problem from "../cross-cutting/Problem.ts"

/** One invoice line on the wire: quantity x unitAmount (in the request's currency). */
export const LineItemRequest = Schema.Struct({
  description: Schema.String.annotate({ description: "1 to 200 characters" }),
  quantity: Schema.Int.annotate({ description: "A whole number from 1 to 1,000,000" }),
  unitAmount: Money.WireAmount,
})

export const CreatePaymentRequest = Schema.Struct({
  companyId: Schema.optionalKey(
    Ids.CompanyId.annotate({ description: "Our id of the company; or companyReferenceId" }),
  ),
  companyReferenceId: Schema.optionalKey(
    Schema.String.annotate({ description: "The partner's own reference of the company; or companyId" }),
  ),
  payerRegistrationId: Ids.RegistrationId,
  amount: Money.WireAmount,
  description: Schema.String,
  dueDate: CalendarDate.CalendarDate.annotate({ description: "YYYY-MM-DD, not before today (UTC)" }),
  enableAutoPay: Schema.optionalKey(Schema.Boolean),
  autoPayLimit: Schema.optionalKey(Money.WireAmount),
  enableDebitAuth: Schema.optionalKey(Schema.Boolean),
  debitAuthLimit: Schema.optionalKey(Money.WireAmount),
  attachmentUrl: Schema.optionalKey(
    Schema.String.annotate({
      description:
        "https URL of a PDF, PNG or JPEG document (at most 10 MiB) that the service downloads and keeps; in the sandbox also http and local hosts",
    }),
  ),
  invoiceNumber: Schema.optionalKey(
    Schema.String.annotate({ description: "The partner's invoice number, 1 to 64 characters" }),
  ),
  lineItems: Schema.optionalKey(
    Schema.Array(LineItemRequest).annotate({
      description: "1 to 100 invoice lines; quantity x unitAmount summed over the lines must equal amount exactly",
    }),
  ),
  metadata: Schema.optionalKey(Metadata.Metadata),
}).annotate({
  examples: [
    {
      companyId: Ids.CompanyId.make("5d1e7a3c-2b4f-4c8d-9e6a-7f0b1c2d3e4f"),
      payerRegistrationId: Ids.RegistrationId.make("7e57ab1e-4c2d-4e8f-9a0b-1c2d3e4f5a6b"),
      amount: { value: 42.5, currencyCode: "USD" },
      description: "Invoice INV-2026-118: November bread deliveries",
      dueDate: CalendarDate.CalendarDate.make("2026-12-01"),
      enableAutoPay: true,
      autoPayLimit: { value: 100, currencyCode: "USD" },
      invoiceNumber: "INV-2026-118",
      lineItems: [
        { description: "Sourdough loaf", quantity: 10, unitAmount: { value: 3.5, currencyCode: "USD" } },
        { description: "Croissant", quantity: 5, unitAmount: { value: 1.5, currencyCode: "USD" } },
      ],
    },
  ],
})

export const CreatePaymentResponse = Schema.Struct({
  paymentRequestId: Ids.PaymentRequestId,
  status: Schema.Literal("Pending"),
})

export const StatusChangeResponse = Schema.Struct({
  status: PaymentRequestEvents.PaymentRequestStatus,
  timestamp: Schema.String.annotate({ description: "ISO 8601 instant (UTC)" }),
})

/** One document of a payment request (downloaded from its attachmentUrl). */
export const AttachmentResponse = Schema.Struct({
  id: Schema.String.annotate({
    description: "Our id of the document; download it from GET /Payment/{paymentRequestId}/Attachments/{id}",
  }),
  name: Schema.String.annotate({ description: "The document's file name, from the URL's last path segment" }),
  contentType: Schema.String.annotate({
    description: "application/pdf, image/png or image/jpeg once Stored; guessed from the name before",
  }),
  sizeBytes: Schema.optionalKey(
    Schema.Int.annotate({ description: "Size of the stored document in bytes (Stored only)" }),
  ),
  sha256: Schema.optionalKey(
    Schema.String.annotate({ description: "SHA-256 of the stored bytes, lower-case hex (Stored only)" }),
  ),
  status: Attachments.AttachmentStatus,
  failureReason: Schema.optionalKey(
    Schema.String.annotate({ description: "Why the service gave up downloading the document (Failed only)" }),
  ),
}).annotate({
  identifier: "Attachment",
  examples: [
    {
      id: "3f6c1d2e-8a4b-4c5d-9e7f-0a1b2c3d4e5f",
      name: "invoice-INV-2026-118.pdf",
      contentType: "application/pdf",
      sizeBytes: 48213,
      sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
      status: "Stored",
    },
  ],
})

/** An invoice line as clients read it: the domain's line, its amounts in wire form, with its total. */
export const LineItemResponse = Schema.Struct({
  ...TransferEvents.InvoiceLineItem.fields,
  unitAmount: AmountResponse,
  amount: AmountResponse.annotate({ description: "quantity x unitAmount" }),
}).annotate({ identifier: "InvoiceLineItem" })

/** The domain's payment request view, its amounts in wire form (each invoice line with its total). */
export const PaymentRequestResponse = Schema.Struct({
  ...Payments.PaymentRequestView.fields,
  amount: AmountResponse,
  attachments: Schema.optionalKey(
    Schema.Array(AttachmentResponse).annotate({
      description:
        "The documents downloaded from attachmentUrl (on GET /Payment/{paymentRequestId}): Pending until the service has downloaded it, then Stored (or Failed with the reason)",
    }),
  ),
  autoPayLimit: Schema.optionalKey(AmountResponse),
  debitAuthLimit: Schema.optionalKey(AmountResponse),
  lineItems: Schema.optionalKey(Schema.Array(LineItemResponse)),
  metadata: Metadata.Metadata,
  refundedAmount: AmountResponse,
}).annotate({ identifier: "PaymentRequest" })
export type PaymentRequestResponse = typeof PaymentRequestResponse.Type

export const PaymentHistoryResponse = Schema.Struct({
  data: Schema.Array(PaymentRequestResponse),
  hasMore: Schema.Boolean,
})

/** PUT .../Metadata: the whole metadata, replacing the object's. */
export const MetadataRequest = Schema.Struct({ metadata: Metadata.Metadata })

/** The metadata the object holds after the change. */
export const MetadataResponse = Schema.Struct({ metadata: Metadata.Metadata })

/** `limit` query parameter: 1..100, default 20. */
export const Limit = Schema.FiniteFromString.check(
  Schema.isInt({ message: "must be a whole number" }),
  Schema.isBetween({ minimum: 1, maximum: 100 }, { message: "must be between 1 and 100" }),
).annotate({ description: "Page size, 1..100 (default 20)" })

export class PaymentApi extends HttpApiGroup.make("payments")
  .add(
    HttpApiEndpoint.post("create", "/Payment/Create", {
      payload: CreatePaymentRequest,
      success: CreatePaymentResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Create a payment request",
        description:
          "For partners. Name the company by exactly one of companyId and companyReferenceId (another partner's company is 404). Autopay (enableAutoPay + autoPayLimit) and a debit authorization (enableDebitAuth + debitAuthLimit) exclude each other (422 naming both flags). The request starts Pending. With autopay, the service collects it by itself on its due date (the same day when dueDate is today) from the payer's designated account when the amount is within autoPayLimit; with a debit authorization, when the payer holds an Active authorization for the company covering the amount and debitAuthLimit. An invoice: optional invoiceNumber and lineItems adding up to amount (else 422 on lineItems).",
      }),
    ),
    HttpApiEndpoint.get("history", "/Payment/History", {
      query: {
        companyId: Schema.optionalKey(Ids.CompanyId),
        status: Schema.optionalKey(PaymentRequestEvents.PaymentRequestStatus),
        payerRegistrationId: Schema.optionalKey(Ids.RegistrationId),
        from: Schema.optionalKey(CalendarDate.CalendarDate.annotate({ description: "Created on or after (UTC date)" })),
        to: Schema.optionalKey(CalendarDate.CalendarDate.annotate({ description: "Created on or before (UTC date)" })),
        limit: Schema.optionalKey(Limit),
        startingAfter: Schema.optionalKey(Ids.PaymentRequestId),
      },
      success: PaymentHistoryResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Payment history",
        description:
          "For partners: the partner's payment requests, newest first, filtered by company, status, payer and creation dates; cursor pagination with limit and startingAfter (the last paymentRequestId of the previous page).",
      }),
    ),
    HttpApiEndpoint.get("get", "/Payment/:paymentRequestId", {
      params: { paymentRequestId: Ids.PaymentRequestId },
      success: PaymentRequestResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Payment request details and status",
        description: "For partners. Another partner's request is 404.",
      }),
    ),
    HttpApiEndpoint.get("attachment", "/Payment/:paymentRequestId/Attachments/:attachmentId", {
      params: { paymentRequestId: Ids.PaymentRequestId, attachmentId: Schema.String },
      success: Schema.Uint8Array.pipe(HttpApiSchema.asUint8Array({ contentType: "application/pdf" })).annotate({
        description: "The stored bytes, with their content type (application/pdf, image/png or image/jpeg)",
      }),
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Download a payment request's attachment",
        description:
          "For the partner and for the payer (customer token). The document the service downloaded from the request's attachmentUrl, as stored (Content-Type application/pdf, image/png or image/jpeg; its SHA-256 is listed on GET /Payment/{paymentRequestId}). 404 while it is not Stored (Pending or Failed), and for another partner's request or a customer who is not its payer.",
      }),
    ),
    HttpApiEndpoint.put("setMetadata", "/Payment/:paymentRequestId/Metadata", {
      params: { paymentRequestId: Ids.PaymentRequestId },
      payload: MetadataRequest,
      success: MetadataResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Replace a payment request's metadata",
        description:
          "For partners, in any status: the request's metadata becomes the one sent (`{}` removes every key). A bad key or value is 400 naming metadata.<key>. Another partner's request is 404.",
      }),
    ),
    HttpApiEndpoint.put("cancel", "/Payment/:paymentRequestId/Cancel", {
      params: { paymentRequestId: Ids.PaymentRequestId },
      success: HttpApiSchema.Empty(200),
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Cancel a payment request",
        description:
          "For partners, while the request is Pending: it becomes Cancelled (200, no body). Cancelling a Cancelled request again is 200 and changes nothing; after the payer accepted it is 409. Another partner's request is 404.",
      }),
    ),
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Payments", description: "Payment requests" })) {}
