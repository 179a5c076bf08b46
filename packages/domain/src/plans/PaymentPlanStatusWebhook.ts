/**
 * The PAYMENT_PLAN_STATUS_CHANGED webhook: a plan became Active (activated,
 * or resumed), Paused, Cancelled (with its reason: by the company, or its
 * consent declined or revoked) or Completed (no due date left). Data
 * { PaymentPlanId, CompanyId, Status, Reason (Cancelled only), Metadata, Timestamp }.
 * Instalments have their own webhook (PAYMENT_PLAN_INSTALMENT_STATUS_CHANGED).
 */
import type * as Envelope from "../infrastructure/Envelope.ts"
import * as WebhookRule from "../infrastructure/WebhookRule.ts"
import type { PaymentPlanEvent } from "./PaymentPlanEvents.ts"
import { withPlanMetadata } from "./PlanMetadataInWebhooks.ts"

export const eventType = "PAYMENT_PLAN_STATUS_CHANGED"

/** The statuses this webhook announces. */
export const statuses = ["Active", "Paused", "Cancelled", "Completed"] as const

/** The status a plan's event announces, with the reason of a cancellation. */
interface Change {
  readonly status: (typeof statuses)[number]
  readonly reason?: string
}

const changeOf = (event: PaymentPlanEvent): Change | undefined => {
  switch (event._tag) {
    case "PaymentPlanActivated":
    case "PaymentPlanResumed":
      return { status: "Active" }
    case "PaymentPlanPaused":
      return { status: "Paused" }
    case "PaymentPlanCancelled":
      return { status: "Cancelled", reason: event.reason }
    case "PaymentPlanCompleted":
      return { status: "Completed" }
    default:
      return undefined
  }
}

export const rule = withPlanMetadata(
  WebhookRule.perChange<Envelope.Of<"PaymentPlan", PaymentPlanEvent>, Change>({
    streamTypes: ["PaymentPlan"],
    eventType,
    changeOf,
    data: (event, change) => ({
      PaymentPlanId: event.paymentPlanId,
      CompanyId: event.companyId,
      Status: change.status,
      ...(change.reason === undefined ? {} : { Reason: change.reason }),
    }),
  }),
)
