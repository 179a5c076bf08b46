/**
 * The PAYMENT_PLAN_INSTALMENT_STATUS_CHANGED webhook: one notification each
 * time an instalment collected through a transfer changes status: Pending
 * when it is collected (its transfer is initiated), then Settled or Failed,
 * and a settled one Returned. Data { PaymentPlanId, InstalmentNumber, DueDate,
 * TransferId, Status, ReturnCode and ReturnReason (Failed, Returned), Metadata (the plan's, from the
 * `payment_plans` read model: PlanMetadataInWebhooks.ts), Timestamp }.
 */
import { DateTime, Effect } from "effect"
import * as WebhookRule from "../infrastructure/WebhookRule.ts"
import type { InstalmentStatus, PaymentPlanEvent } from "./PaymentPlanEvents.ts"
import type { PaymentPlanEnvelope } from "./PaymentPlansProjection.ts"
import { withPlanMetadata } from "./PlanMetadataInWebhooks.ts"

export const eventType = "PAYMENT_PLAN_INSTALMENT_STATUS_CHANGED"

/** The instalment status an event announces, with the transfer; undefined for other events. */
const statusOf = (event: PaymentPlanEvent) => {
  switch (event._tag) {
    case "InstalmentCollected":
      return event.transferId === undefined
        ? undefined
        : { status: "Pending" as InstalmentStatus, transferId: event.transferId }
    case "InstalmentSettled":
      return { status: "Settled" as InstalmentStatus, transferId: event.transferId }
    case "InstalmentFailed":
    case "InstalmentReturned":
      return {
        status: (event._tag === "InstalmentFailed" ? "Failed" : "Returned") as InstalmentStatus,
        transferId: event.transferId,
        returnCode: event.returnCode,
        returnReason: event.reason,
      }
    default:
      return undefined
  }
}

const webhooks = (envelope: PaymentPlanEnvelope) => {
  const event = envelope.event
  const change = statusOf(event)
  if (change === undefined || !("instalmentNumber" in event)) return Effect.succeed([])
  return Effect.succeed([
    {
      id: envelope.eventId,
      partnerId: event.partnerId,
      eventType,
      data: {
        PaymentPlanId: event.paymentPlanId,
        InstalmentNumber: event.instalmentNumber,
        DueDate: event.dueDate,
        TransferId: change.transferId,
        Status: change.status,
        ...("returnCode" in change
          ? change.returnCode === undefined
            ? { ReturnCode: null, FailureReason: change.returnReason }
            : { ReturnCode: change.returnCode, ReturnReason: change.returnReason }
          : {}),
        Timestamp: DateTime.formatIso(event.at),
      },
      position: envelope.globalPosition,
    },
  ])
}

export const rule = withPlanMetadata(WebhookRule.make<PaymentPlanEnvelope>({ streamTypes: ["PaymentPlan"], webhooks }))
