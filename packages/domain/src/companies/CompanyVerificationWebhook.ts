/**
 * The COMPANY_VERIFICATION_STATUS_CHANGED webhook (spec 6.1): when KYB
 * completes, CompanyVerified / CompanyRejected become one notification to the
 * company's partner with `Data = { CompanyId, Status, Metadata, Timestamp }`; and
 * (issue 35) CompanySuspended (Status Suspended) and CompanyReactivated
 * (Status Verified again) when the KYB provider suspends or reactivates a
 * Verified company (PascalCase
 * as the spec writes it; `Timestamp` is the ISO instant of the event). `Live`
 * and `Event` wrap it at delivery. The notification id is the event id, so a
 * receiver can de-duplicate retried deliveries.
 *
 * COMPANY_VERIFICATION_ACTION_REQUIRED (`actionRule`, not in the interface: docs/decisions.md): the KYB
 * provider asks for documents or the company's data again before deciding (CompanyKybActionRequired),
 * `Data = { CompanyId, Status: "Unverified", Requirement, Metadata, Timestamp }`; once per requirement.
 * `Metadata` is the partner's metadata of the company (`{}` when none), read from the `companies` read
 * model (already updated by the same append).
 */
import { DateTime, Effect, Option } from "effect"
import type { Webhook } from "../infrastructure/Outbox.ts"
import { decodeDocument, ReadModelStore } from "../infrastructure/ReadModel.ts"
import * as WebhookRule from "../infrastructure/WebhookRule.ts"
import * as Traced from "../kernel/Traced.ts"
import type { CompanyEnvelope } from "./CompaniesProjection.ts"
import * as CompaniesProjection from "./CompaniesProjection.ts"
import { statusOf } from "./CompanyEvents.ts"

/** The company's metadata, from its read model (`{}` when none or not found). */
const metadataOf = Traced.fn("CompanyVerificationWebhook.metadataOf")(function* (companyId: string) {
  const store = yield* ReadModelStore
  const stored = yield* store.get(CompaniesProjection.collection, companyId)
  if (Option.isNone(stored)) return {}
  return decodeDocument(CompaniesProjection.projection, stored.value).metadata ?? {}
})

export const eventType = "COMPANY_VERIFICATION_STATUS_CHANGED"

export const actionEventType = "COMPANY_VERIFICATION_ACTION_REQUIRED"

/**
 * The one notification of `type` about the event's company: `data` between the company's id and its
 * metadata, then the event's instant.
 */
const notification = (
  envelope: CompanyEnvelope,
  event: { readonly companyId: string; readonly partnerId: string; readonly at: DateTime.Utc },
  type: string,
  data: Readonly<Record<string, unknown>>,
) =>
  Effect.map(
    metadataOf(event.companyId),
    (metadata): ReadonlyArray<Webhook> => [
      {
        id: envelope.eventId,
        partnerId: event.partnerId,
        eventType: type,
        data: { CompanyId: event.companyId, ...data, Metadata: metadata, Timestamp: DateTime.formatIso(event.at) },
        position: envelope.globalPosition,
      },
    ],
  )

const webhooks = (envelope: CompanyEnvelope) => {
  const event = envelope.event
  // The status comes from the event's tag (`CompanyEvents.statusOf`); a registration has no webhook.
  const status = statusOf(event)
  return status === undefined || event._tag === "CompanyRegistered"
    ? Effect.succeed([])
    : notification(envelope, event, eventType, { Status: status })
}

export const rule = WebhookRule.make<CompanyEnvelope>({ streamTypes: ["Company"], webhooks })

const actionNotifications = (envelope: CompanyEnvelope) => {
  const event = envelope.event
  return event._tag === "CompanyKybActionRequired"
    ? notification(envelope, event, actionEventType, { Status: "Unverified", Requirement: event.requirement })
    : Effect.succeed([])
}

export const actionRule = WebhookRule.make<CompanyEnvelope>({
  streamTypes: ["Company"],
  webhooks: actionNotifications,
})
