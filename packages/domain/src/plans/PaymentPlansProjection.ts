/**
 * Read models of payment plans (spec 2.16, changelog v0.4.1):
 *
 * - `payment_plans`: one document per plan, the answer to GET /PaymentPlan/{id}:
 *   terms, status, the plan's view of its consent, the next due date and the
 *   collected instalments with their transfers' status (and how many settled
 *   or failed). Indexed by partner, company and status.
 * - `payment_plans_due`: the scheduler's work list, one document per plan that
 *   is collecting (Active with an Accepted consent and a due date left), sorted
 *   by its next due date. It spans every partner, so it is owned by the system
 *   tenant `schedulerTenant` (the nil UUID, never a partner's id): no partner
 *   query can ever see it.
 *
 * Both are pure functions of the PaymentPlan events.
 */
import { DateTime, Schema } from "effect"
import type * as Envelope from "../infrastructure/Envelope.ts"
import { type Projection, perAggregate } from "../infrastructure/ReadModel.ts"
import * as Tenancy from "../infrastructure/Tenancy.ts"
import { CalendarDate } from "../kernel/CalendarDate.ts"
import * as Ids from "../kernel/Ids.ts"
import { ReturnCodes } from "../payments/index.ts"
import { ConsentStatus } from "./Consent.ts"
import * as PaymentPlan from "./PaymentPlan.ts"
import type { PaymentPlanEvent } from "./PaymentPlanEvents.ts"
import { CancellationReason, InstalmentStatus } from "./PaymentPlanEvents.ts"
import * as PaymentPlanSchedule from "./PaymentPlanSchedule.ts"
import { PlanTerms } from "./PaymentPlanTerms.ts"

/** The events this read model reads. */
export type PaymentPlanEnvelope = Envelope.Of<"PaymentPlan", PaymentPlanEvent>

/** The plan's status as clients see it. */
export const PlanStatus = PaymentPlan.PlanStatus
export type PlanStatus = PaymentPlan.PlanStatus

/** The status of the plan's consent as the plan learned it (the consent's own status names). */
export const PlanConsentStatus = ConsentStatus
export type PlanConsentStatus = typeof PlanConsentStatus.Type

/**
 * One collected instalment: its number (1-based) and due date, the payment
 * collecting it, when it was recorded, and what became of its transfer
 * (`status`; a failed or returned one names the bank's return code and its description).
 */
export const InstalmentView = Schema.Struct({
  instalmentNumber: Schema.Int,
  dueDate: CalendarDate,
  paymentRequestId: Schema.optionalKey(Ids.PaymentRequestId),
  transferId: Schema.optionalKey(Ids.TransferId),
  status: InstalmentStatus,
  ...ReturnCodes.failureViewFields({
    returnCode: "Failed or Returned: the ACH return code; null when the rail refused the collection",
    failureReason: "Failed without a return code: why the rail refused the collection",
  }),
  collectedAt: Schema.DateTimeUtcFromString,
  settledAt: Schema.optionalKey(Schema.DateTimeUtcFromString),
  failedAt: Schema.optionalKey(Schema.DateTimeUtcFromString),
  returnedAt: Schema.optionalKey(Schema.DateTimeUtcFromString),
})
export type InstalmentView = typeof InstalmentView.Type

export const PaymentPlanDocument = Schema.Struct({
  ...PlanTerms.fields,
  status: PlanStatus,
  consentStatus: PlanConsentStatus,
  /** Index in the schedule of the next due date (every earlier one was collected or skipped). */
  nextIndex: Schema.Number,
  /** The next due date while the plan is Draft, Active or Paused and one is left. */
  nextDueDate: Schema.optionalKey(CalendarDate),
  collectedCount: Schema.Number,
  /** How many collected instalments settled, and how many failed (the plan went on after each). */
  settledCount: Schema.Number,
  failedCount: Schema.Number,
  instalments: Schema.Array(InstalmentView),
  cancellationReason: Schema.optionalKey(CancellationReason),
  createdAt: Schema.DateTimeUtcFromString,
  updatedAt: Schema.DateTimeUtcFromString,
})
export type PaymentPlanDocument = typeof PaymentPlanDocument.Type

const planEvent = (envelope: PaymentPlanEnvelope): PaymentPlanEvent | undefined =>
  envelope.streamType === "PaymentPlan" ? envelope.event : undefined

/** What both plan projections are: owned by the plan's stream, one document per plan. */
const perPlan = perAggregate<PaymentPlanEnvelope>("PaymentPlan", (event) => event.paymentPlanId)

const isFinished = (status: PlanStatus): boolean => status === "Cancelled" || status === "Completed"

/** Recomputes the derived next due date after a change. */
const withNextDueDate = (doc: PaymentPlanDocument): PaymentPlanDocument => {
  const { nextDueDate: _previous, ...rest } = doc
  const next = isFinished(doc.status) ? undefined : PaymentPlanSchedule.dueDateAt(doc, doc.nextIndex)
  return next === undefined ? rest : { ...rest, nextDueDate: next }
}

/** The plan document after one plan event (pure). */
export const applyPlanEvent = (
  current: PaymentPlanDocument | undefined,
  event: PaymentPlanEvent,
): PaymentPlanDocument | undefined => {
  if (event._tag === "PaymentPlanCreated") {
    if (current !== undefined) return current
    const { _tag, at, ...terms } = event
    return withNextDueDate({
      ...terms,
      status: "Draft",
      consentStatus: "Pending",
      nextIndex: 0,
      collectedCount: 0,
      settledCount: 0,
      failedCount: 0,
      instalments: [],
      createdAt: at,
      updatedAt: at,
    })
  }
  if (current === undefined) return undefined
  const touched = { ...current, updatedAt: event.at }
  switch (event._tag) {
    case "PaymentPlanConsentAccepted":
      return { ...touched, consentStatus: "Accepted" }
    case "PaymentPlanConsentWithdrawn":
      return { ...touched, consentStatus: event.withdrawal }
    case "PaymentPlanActivated":
    case "PaymentPlanResumed":
      return withNextDueDate({
        ...touched,
        status: "Active",
        nextIndex: current.nextIndex + event.skippedDueDates.length,
      })
    case "PaymentPlanPaused":
      return { ...touched, status: "Paused" }
    case "PaymentPlanCancelled":
      return withNextDueDate({ ...touched, status: "Cancelled", cancellationReason: event.reason })
    case "InstalmentCollected":
      return withNextDueDate({
        ...touched,
        nextIndex: event.instalmentNumber,
        collectedCount: current.collectedCount + 1,
        instalments: [
          ...current.instalments,
          {
            instalmentNumber: event.instalmentNumber,
            dueDate: event.dueDate,
            ...(event.paymentRequestId !== undefined ? { paymentRequestId: event.paymentRequestId } : {}),
            ...(event.transferId !== undefined ? { transferId: event.transferId } : {}),
            status: "Pending",
            collectedAt: event.at,
          },
        ],
      })
    case "PaymentPlanCompleted":
      return withNextDueDate({ ...touched, status: "Completed" })
    case "PaymentPlanMetadataSet":
      return { ...touched, metadata: event.metadata }
    case "InstalmentSettled":
      return {
        ...touched,
        settledCount: current.settledCount + 1,
        instalments: withOutcome(current.instalments, event.transferId, { status: "Settled", settledAt: event.at }),
      }
    case "InstalmentFailed":
      return {
        ...touched,
        failedCount: current.failedCount + 1,
        instalments: withOutcome(current.instalments, event.transferId, {
          status: "Failed",
          ...(event.returnCode === undefined
            ? { returnCode: null, failureReason: event.reason }
            : { returnCode: event.returnCode, returnReason: event.reason }),
          failedAt: event.at,
        }),
      }
    case "InstalmentReturned":
      return {
        ...touched,
        instalments: withOutcome(current.instalments, event.transferId, {
          status: "Returned",
          returnCode: event.returnCode,
          returnReason: event.reason,
          returnedAt: event.at,
        }),
      }
  }
}

/** The instalments, the one collected by `transferId` with what became of its transfer (`outcome`). */
const withOutcome = (
  instalments: ReadonlyArray<InstalmentView>,
  transferId: InstalmentView["transferId"],
  outcome: Partial<InstalmentView>,
): ReadonlyArray<InstalmentView> =>
  instalments.map((instalment) => (instalment.transferId === transferId ? { ...instalment, ...outcome } : instalment))

export const paymentPlans: Projection<PaymentPlanDocument, PaymentPlanEnvelope> = {
  collection: "payment_plans",
  document: PaymentPlanDocument,
  ...perPlan,
  apply: (current, envelope) => {
    const event = planEvent(envelope)
    return event === undefined ? current : applyPlanEvent(current, event)
  },
  index: (doc) => ({
    partnerId: doc.partnerId,
    keys: { companyId: doc.companyId, status: doc.status, payerRegistrationId: doc.payerRegistrationId },
    sortKey: DateTime.formatIso(doc.createdAt),
  }),
}

// ---------------------------------------------------------------------------
// The scheduler's work list

/** The owner of system-wide documents: the nil UUID, which no partner can have. */
export const schedulerTenant: string = Tenancy.systemTenant

export const DuePlanDocument = Schema.Struct({
  paymentPlanId: Ids.PaymentPlanId,
  partnerId: Ids.PartnerId,
  nextDueDate: CalendarDate,
  /** The plan document, kept here so the work list is a pure function of the plan's events. */
  plan: PaymentPlanDocument,
})
export type DuePlanDocument = typeof DuePlanDocument.Type

/** A plan collects when it is Active, its consent is Accepted and a due date is left. */
export const isCollecting = (doc: PaymentPlanDocument): boolean =>
  doc.status === "Active" && doc.consentStatus === "Accepted" && doc.nextDueDate !== undefined

export const duePlans: Projection<DuePlanDocument, PaymentPlanEnvelope> = {
  collection: "payment_plans_due",
  document: DuePlanDocument,
  ...perPlan,
  apply: (current, envelope) => {
    const event = planEvent(envelope)
    if (event === undefined) return current
    // The plan is kept while it is not collecting only if it may collect again (Draft or Paused).
    const plan = applyPlanEvent(current?.plan, event)
    if (plan === undefined || isFinished(plan.status)) return undefined
    return {
      paymentPlanId: plan.paymentPlanId,
      partnerId: plan.partnerId,
      nextDueDate: plan.nextDueDate ?? plan.startDate,
      plan,
    }
  },
  index: (doc) => ({
    partnerId: schedulerTenant,
    keys: { collecting: isCollecting(doc.plan) ? "true" : "false" },
    sortKey: doc.nextDueDate,
  }),
}
