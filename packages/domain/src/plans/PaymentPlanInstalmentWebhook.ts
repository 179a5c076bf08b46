/**
 * The PAYMENT_PLAN_INSTALMENT_STATUS_CHANGED webhook: one notification each
 * time an instalment collected through a transfer changes status: Pending
 * when it is collected (its transfer is initiated), then Settled or Failed,
 * and a settled one Returned. Data { PaymentPlanId, InstalmentNumber, DueDate,
 * TransferId, Status, ReturnCode and ReturnReason (Failed, Returned), Metadata (the plan's, from the
 * `payment_plans` read model: PlanMetadataInWebhooks.ts), Timestamp }.
 */
import * as WebhookRule from "../infrastructure/WebhookRule.ts"
import type { InstalmentStatus, PaymentPlanEvent } from "./PaymentPlanEvents.ts"
import type { PaymentPlanEnvelope } from "./PaymentPlansProjection.ts"
import { withPlanMetadata } from "./PlanMetadataInWebhooks.ts"

export const eventType = "PAYMENT_PLAN_INSTALMENT_STATUS_CHANGED"

/** The instalment status an event announces, with the instalment and its transfer; undefined for other events. */
const statusOf = (event: PaymentPlanEvent) => {
  switch (event._tag) {
    case "InstalmentCollected":
      return event.transferId === undefined
        ? undefined
        : { instalment: event, status: "Pending" as InstalmentStatus, transferId: event.transferId }
    case "InstalmentSettled":
      return { instalment: event, status: "Settled" as InstalmentStatus, transferId: event.transferId }
    case "InstalmentFailed":
    case "InstalmentReturned":
      return {
        instalment: event,
        status: (event._tag === "InstalmentFailed" ? "Failed" : "Returned") as InstalmentStatus,
        transferId: event.transferId,
        failure: { returnCode: event.returnCode, reason: event.reason },
      }
    default:
      return undefined
  }
}

export const rule = withPlanMetadata(
  WebhookRule.perChange<PaymentPlanEnvelope, NonNullable<ReturnType<typeof statusOf>>>({
    streamTypes: ["PaymentPlan"],
    eventType,
    changeOf: statusOf,
    data: (event, change) => ({
      PaymentPlanId: event.paymentPlanId,
      InstalmentNumber: change.instalment.instalmentNumber,
      DueDate: change.instalment.dueDate,
      TransferId: change.transferId,
      Status: change.status,
      ...(change.failure === undefined
        ? {}
        : WebhookRule.failureData(change.failure.returnCode, change.failure.reason)),
    }),
  }),
)
