/**
 * The outgoing webhooks, as the OpenAPI 3.1 `webhooks` section documents them:
 * every event, with what it announces and its `Data` (the Schemas are in
 * `WebhookData.ts`, each the shape its webhook rule in the domain builds:
 * `<area>/XWebhook.ts`, registered in `Webhooks.ts`), sent as one delivery
 * (`WebhookDelivery.ts`: the envelope `{ Live, Event, Data }` and the headers
 * the webhook worker sends, `app/src/workers/WebhookDispatcher.ts`).
 *
 * `openApiTransform` adds them to the document, after the reference transform
 * (Api.ts), with examples built as the operations' are (`OpenApiReference.exampleOf`).
 *
 * To document a new event: add its `Data` Schema to `WebhookData.ts` and the
 * event to `events`.
 */
import { Schema } from "effect"
import { exampleOf } from "../cross-cutting/OpenApiReference.ts"
import * as WebhookData from "./WebhookData.ts"
import { deliveryHeaders, envelope } from "./WebhookDelivery.ts"

/** Every outgoing event: its name (the envelope's `Event`), what it announces, and its `Data`. */
export const events = [
  {
    name: "COMPANY_VERIFICATION_STATUS_CHANGED",
    summary: "A company's business verification completed",
    description: "Sent when KYB of a company completes: Status Verified or Rejected (interface 6.1).",
    data: WebhookData.CompanyVerificationData,
  },
  {
    name: "COMPANY_VERIFICATION_ACTION_REQUIRED",
    summary: "The business verification of a company needs something more",
    description:
      "Sent when the KYB provider asks for documents (DocumentRequired) or the company's data again (RetryRequired) before deciding; the company stays Unverified, GET /company/status shows the Requirement. Once per requirement.",
    data: WebhookData.CompanyVerificationActionData,
  },
  {
    name: "PAYMENT_REQUEST_STATUS_CHANGED",
    summary: "A payment request changed status",
    description:
      "Sent on every status change of a payment request (interface 6.3); Failed and Returned carry ReturnCode and ReturnReason.",
    data: WebhookData.PaymentRequestStatusData,
  },
  {
    name: "PAYMENT_PLAN_INSTALMENT_STATUS_CHANGED",
    summary: "A payment plan instalment changed status",
    description:
      "Sent when an instalment is collected through a transfer (Pending), then when its transfer Settled or Failed, and when a settled one is Returned (with ReturnCode and ReturnReason).",
    data: WebhookData.PaymentPlanInstalmentData,
  },
  {
    name: "REFUND_STATUS_CHANGED",
    summary: "A refund changed status",
    description:
      "Sent when a refund is asked for (Pending), then when its credit to the payer Completed or Failed (a failed refund frees its amount).",
    data: WebhookData.RefundStatusData,
  },
  {
    name: "PAYOUT_STATUS_CHANGED",
    summary: "A payout changed status",
    description:
      "Sent when a payout of a company's available balance is created (Pending), then when it is Paid or Failed (its money back in the balance; ReturnCode and ReturnReason say why).",
    data: WebhookData.PayoutStatusData,
  },
  {
    name: "PAYOUT_ACCOUNT_STATUS_CHANGED",
    summary: "A company's payout account changed status",
    description:
      "Sent when a payout to the company's account is refused or returned for an account-level reason (R02, R03, R04, R12-R17, R20, or the rail refusing the destination): the account is Errored (GET /Company/{companyId}/PayoutAccount) and the company's payouts pause; and when the partner sets another account in its place: Active, payouts resume.",
    data: WebhookData.PayoutAccountStatusData,
  },
  {
    name: "CONSENT_STATUS_CHANGED",
    summary: "A payer answered a consent request",
    description:
      "Sent when the payer accepts, declines (Pending) or revokes (Accepted) a consent; a declined or revoked consent also cancels its plan (PAYMENT_PLAN_STATUS_CHANGED).",
    data: WebhookData.ConsentStatusData,
  },
  {
    name: "PAYMENT_PLAN_STATUS_CHANGED",
    summary: "A payment plan changed status",
    description:
      "Sent when a plan becomes Active (activated or resumed), Paused, Cancelled (Reason) or Completed. Instalments have their own webhook.",
    data: WebhookData.PaymentPlanStatusData,
  },
  {
    name: "CUSTOMER_VERIFICATION_STATUS_CHANGED",
    summary: "A customer's identity verification completed",
    description: "Sent when a customer's KYC completes: Verified (the customer may pay) or Rejected.",
    data: WebhookData.CustomerVerificationData,
  },
  {
    name: "BANK_ACCOUNT_LINKED",
    summary: "A customer linked bank accounts",
    description: "Sent when a customer links (or re-links) bank accounts through a bank-link session.",
    data: WebhookData.BankAccountLinkedData,
  },
  {
    name: "BANK_ACCOUNT_REMOVED",
    summary: "A customer removed a bank account",
    description: "Sent when a customer removes a linked bank account.",
    data: WebhookData.BankAccountRemovedData,
  },
  {
    name: "BANK_ACCOUNT_RELINK_REQUIRED",
    summary: "A customer must link their bank again",
    description:
      "Sent when the bank-link provider says the customer must link again (their bank asks them to log in again, or their consent expires), or when a debit of the account came back with an account-level return code (R02, R03, R04, R12-R17, R20; Reason is the code): the accounts named cannot be debited until the customer links through a new bank-link session.",
    data: WebhookData.BankAccountRelinkData,
  },
  {
    name: "DEBIT_AUTHORIZATION_CHANGED",
    summary: "A debit authorization changed",
    description:
      "Sent when a payer sets a debit authorization for a company, changes its limit, enables or disables it, and when an unauthorized return of one of its debits revokes it (Revoked).",
    data: WebhookData.DebitAuthorizationData,
  },
  {
    name: "CARD_PAYMENT_RECORDED",
    summary: "A card payment was recorded",
    description: "Sent when a card payment made on an external terminal is registered (POST /cardpayment).",
    data: WebhookData.CardPaymentData,
  },
  {
    name: "CARD_DISPUTE_STATUS_CHANGED",
    summary: "A card payment's dispute changed status",
    description:
      "Sent when the cardholder disputes a card payment (NeedsResponse or UnderReview: the amount and the processor's dispute fee are taken from the company's balance at once), when the open dispute changes status, and when it is decided: Won (both given back) or Lost. Names the card payment (CardPaymentId) or the payment request it paid (PaymentRequestId).",
    data: WebhookData.CardDisputeStatusData,
  },
  {
    name: "ATTACHMENT_STATUS_CHANGED",
    summary: "A payment request's document was stored or rejected",
    description:
      "Sent when the document of a payment request's attachmentUrl is downloaded and kept (Stored), or refused or given up (Failed, with Reason).",
    data: WebhookData.AttachmentStatusData,
  },
] as const

export { deliveryHeaders, envelope } from "./WebhookDelivery.ts"

/** The names of every outgoing event. */
export const eventNames: ReadonlyArray<string> = events.map((event) => event.name)

/** The documented example `Data` of event `name` (a sample to test a receiver with), or undefined. */
export const sampleData = (name: string): Readonly<Record<string, unknown>> | undefined => {
  const event = events.find((candidate) => candidate.name === name)
  const examples = (event?.data.ast.annotations as { readonly examples?: ReadonlyArray<unknown> } | undefined)?.examples
  return examples?.[0] as Readonly<Record<string, unknown>> | undefined
}

type Json = { [key: string]: unknown }

const toJsonSchema = (schema: Schema.Top): Json => {
  const document = Schema.toJsonSchemaDocument(schema as Schema.Codec<unknown, unknown>)
  return document.schema as Json
}

/** The `webhooks` section: one POST per event, with its envelope, an example and the delivery headers. */
const webhooks = (): Json => {
  const out: Json = {}
  for (const event of events) {
    const body = toJsonSchema(envelope(event.name, event.data))
    const example = { Live: true, Event: event.name, Data: exampleOf({}, toJsonSchema(event.data)) }
    out[event.name] = {
      post: {
        summary: event.summary,
        description: `${event.description} partnerpay POSTs the envelope { Live, Event, Data } to the partner's webhook URL; a 2xx answer within 10 seconds acknowledges it, anything else is retried with exponential backoff for up to 72 hours.`,
        operationId: `webhook.${event.name}`,
        tags: ["Outgoing webhooks"],
        parameters: deliveryHeaders.map((header) => ({
          name: header.name,
          in: "header",
          required: header.required,
          description: header.description,
          schema: header.schema,
          example: header.example,
        })),
        requestBody: { required: true, content: { "application/json": { schema: body, example } } },
        responses: { "200": { description: "Any 2xx acknowledges the delivery" } },
      },
    }
  }
  return out
}

/** Adds the outgoing webhooks to the OpenAPI document (the last transform of Api.ts). */
export const openApiTransform = (spec: Json): Json => {
  const existing = spec.webhooks
  spec.webhooks = {
    ...(typeof existing === "object" && existing !== null && !Array.isArray(existing) ? existing : {}),
    ...webhooks(),
  }
  return spec
}
