/**
 * The COMPANY_VERIFICATION_STATUS_CHANGED webhook (spec 6.1): when KYB
 * completes, CompanyVerified / CompanyRejected become one notification to the
 * company's partner with `Data = { CompanyId, Status, Timestamp }`; and
 * (issue 35) CompanySuspended (Status Suspended) and CompanyReactivated
 * (Status Verified again) when the KYB provider suspends or reactivates a
 * Verified company (PascalCase
 * as the spec writes it; `Timestamp` is the ISO instant of the event). `Live`
 * and `Event` wrap it at delivery. The notification id is the event id, so a
 * receiver can de-duplicate retried deliveries.
 *
 * COMPANY_VERIFICATION_ACTION_REQUIRED (`actionRule`, not in the interface: docs/decisions.md): the KYB
 * provider asks for documents or the company's data again before deciding (CompanyKybActionRequired),
 * `Data = { CompanyId, Status: "Unverified", Requirement, Timestamp }`; once per requirement.
 */
import { DateTime, Effect } from "effect"
import * as NotificationRule from "../infrastructure/NotificationRule.ts"
import type { Notification } from "../infrastructure/Outbox.ts"
import type { CompanyEnvelope } from "./CompaniesProjection.ts"

export const eventType = "COMPANY_VERIFICATION_STATUS_CHANGED"

const notifications = (envelope: CompanyEnvelope) => {
  const event = envelope.event
  if (
    event._tag !== "CompanyVerified" &&
    event._tag !== "CompanyRejected" &&
    event._tag !== "CompanySuspended" &&
    event._tag !== "CompanyReactivated"
  )
    return Effect.succeed([])
  const notification: Notification = {
    id: envelope.eventId,
    partnerId: event.partnerId,
    eventType,
    data: { CompanyId: event.companyId, Status: event.status, Timestamp: DateTime.formatIso(event.at) },
    position: envelope.globalPosition,
  }
  return Effect.succeed([notification])
}

export const rule = NotificationRule.make<CompanyEnvelope>({ streamTypes: ["Company"], notifications })

export const actionEventType = "COMPANY_VERIFICATION_ACTION_REQUIRED"

const actionNotifications = (envelope: CompanyEnvelope) => {
  const event = envelope.event
  if (event._tag !== "CompanyKybActionRequired") return Effect.succeed([])
  const notification: Notification = {
    id: envelope.eventId,
    partnerId: event.partnerId,
    eventType: actionEventType,
    data: {
      CompanyId: event.companyId,
      Status: "Unverified",
      Requirement: event.requirement,
      Timestamp: DateTime.formatIso(event.at),
    },
    position: envelope.globalPosition,
  }
  return Effect.succeed([notification])
}

export const actionRule = NotificationRule.make<CompanyEnvelope>({
  streamTypes: ["Company"],
  notifications: actionNotifications,
})
