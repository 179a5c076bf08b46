/**
 * Recurring payment plans (spec 2.16, changelog v0.4 and v0.4.1), for partners.
 *
 * POST /PaymentPlan/Create creates a Draft plan for one of the partner's
 * companies and, in the same operation, the payer's Pending consent.
 * GET /PaymentPlan/{paymentPlanId} reads it; PUT .../Activate, .../Pause,
 * .../Resume and .../Cancel move it. Activation (and resumption) need the
 * payer's Accepted consent: otherwise 409 with code CONSENT_NOT_ACCEPTED.
 * Another partner's plan is 404.
 */
import { CalendarDate, Ids, Metadata, Money, PaymentPlanSchedule, PaymentPlansProjection } from "@partnerpay/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Authentication } from "../cross-cutting/Authentication.ts"
import { AmountResponse } from "../cross-cutting/MoneyResponse.ts"
import * as Problem from "../cross-cutting/Problem.ts"
import { MetadataRequest, MetadataResponse } from "../payments/PaymentApi.ts"

export const CreatePaymentPlanRequest = Schema.Struct({
  companyId: Schema.optionalKey(
    Ids.CompanyId.annotate({ description: "The company collecting; or companyReferenceId" }),
  ),
  companyReferenceId: Schema.optionalKey(
    Ids.CompanyReferenceId.annotate({ description: "The partner's own reference of the company; or companyId" }),
  ),
  payerRegistrationId: Ids.RegistrationId.annotate({ description: "The payer: a customer's registration id" }),
  amount: Money.MoneyFromWire.annotate({ description: "The amount of every instalment, greater than zero" }),
  frequency: PaymentPlanSchedule.Frequency,
  recurrenceInterval: Schema.Finite.annotate({
    description: "Every how many weeks or months: 1..52 (Weekly) or 1..12 (Monthly)",
  }),
  startDate: CalendarDate.CalendarDate.annotate({ description: "First due date (YYYY-MM-DD), not in the past (UTC)" }),
  numberOfPayments: Schema.optionalKey(
    Schema.Finite.annotate({ description: "How many instalments, 1..1000; or endDate; neither: until cancelled" }),
  ),
  endDate: Schema.optionalKey(
    CalendarDate.CalendarDate.annotate({ description: "Last possible due date; not with numberOfPayments" }),
  ),
  description: Schema.optionalKey(
    Schema.String.check(Schema.isMaxLength(500, { message: "must be at most 500 characters" })).annotate({
      description: "Free text about the plan for the partner's records (at most 500 characters)",
    }),
  ),
  metadata: Schema.optionalKey(Metadata.Metadata),
})

/** The plan's read model, as the domain declares it: the responses derive from it. */
const document = PaymentPlansProjection.PaymentPlanDocument.fields

export const CreatePaymentPlanResponse = Schema.Struct({
  paymentPlanId: document.paymentPlanId,
  consentId: document.consentId,
  status: document.status,
})

/** One collected instalment: the read model's view as is (its transfer and the transfer's status). */
export const InstalmentResponse = PaymentPlansProjection.InstalmentView.annotate({
  identifier: "Instalment",
  description:
    "A collected instalment: its number and due date, the transfer collecting it (GET /Transaction/{transferId}) and that transfer's status: Pending, then Settled or Failed (returnCode). A failed instalment is not collected again; the plan goes on with the next due date.",
})

/** Read-model bookkeeping a partner does not read: the owner, the schedule index, the last change. */
const { partnerId: _partnerId, nextIndex: _nextIndex, updatedAt: _updatedAt, ...readFields } = document

/**
 * A plan as a partner reads it: the read model's document without its bookkeeping, with the amount in wire
 * form, counts as integers and the instalments described.
 */
export const PaymentPlanResponse = Schema.Struct({
  ...readFields,
  amount: AmountResponse,
  recurrenceInterval: Schema.Int,
  numberOfPayments: Schema.optionalKey(Schema.Int),
  nextDueDate: Schema.optionalKey(
    CalendarDate.CalendarDate.annotate({ description: "Absent when the plan is Cancelled or Completed" }),
  ),
  collectedCount: Schema.Int,
  settledCount: Schema.Int.annotate({ description: "Collected instalments whose transfer settled" }),
  failedCount: Schema.Int.annotate({ description: "Collected instalments whose transfer failed" }),
  instalments: Schema.Array(InstalmentResponse),
  metadata: Metadata.Metadata,
}).annotate({ identifier: "PaymentPlan" })

const params = { paymentPlanId: Ids.PaymentPlanId }

const move = <const Name extends string, const Path extends `/PaymentPlan/:paymentPlanId/${string}`>(
  name: Name,
  path: Path,
  summary: string,
  description: string,
) =>
  HttpApiEndpoint.put(name, path, {
    params,
    success: PaymentPlanResponse,
    error: Problem.DomainProblems,
  }).annotateMerge(OpenApi.annotations({ summary, description }))

export class PaymentPlanApi extends HttpApiGroup.make("paymentPlans")
  .add(
    HttpApiEndpoint.post("create", "/PaymentPlan/Create", {
      payload: CreatePaymentPlanRequest,
      success: CreatePaymentPlanResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Create a payment plan and request the payer's consent",
        description:
          "For partners. Exactly one of companyId and companyReferenceId (a company of the caller; another partner's is 404). The plan starts Draft and the payer's consent Pending; both are created together. Bad terms are 422 with every field named.",
      }),
    ),
    HttpApiEndpoint.get("get", "/PaymentPlan/:paymentPlanId", {
      params,
      success: PaymentPlanResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Read a payment plan",
        description:
          "For partners: status, consent status, schedule, next due date and collected instalments, each with the transfer collecting it and that transfer's status (Pending, Settled, Failed); settledCount and failedCount count them. A failed instalment is not collected again: the plan goes on with the next due date.",
      }),
    ),
    HttpApiEndpoint.put("setMetadata", "/PaymentPlan/:paymentPlanId/Metadata", {
      params,
      payload: MetadataRequest,
      success: MetadataResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Replace a payment plan's metadata",
        description:
          "For partners, in any status: the plan's metadata becomes the one sent (`{}` removes every key). A bad key or value is 400 naming metadata.<key>. Another partner's plan is 404.",
      }),
    ),
    move(
      "activate",
      "/PaymentPlan/:paymentPlanId/Activate",
      "Activate a Draft plan",
      "Needs the payer's Accepted consent (else 409 CONSENT_NOT_ACCEPTED). Due dates already passed are skipped. Active: no change; Paused (resume instead), Cancelled, Completed: 409.",
    ),
    move(
      "pause",
      "/PaymentPlan/:paymentPlanId/Pause",
      "Pause an Active plan",
      "Paused: no change; Draft, Cancelled, Completed: 409.",
    ),
    move(
      "resume",
      "/PaymentPlan/:paymentPlanId/Resume",
      "Resume a Paused plan",
      "Due dates passed while paused are skipped, never collected. Active: no change; Draft, Cancelled, Completed: 409.",
    ),
    move(
      "cancel",
      "/PaymentPlan/:paymentPlanId/Cancel",
      "Cancel a plan for good",
      "Draft, Active or Paused become Cancelled; Cancelled: no change; Completed: 409.",
    ),
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Payment plans", description: "Recurring collections from a payer" })) {}
