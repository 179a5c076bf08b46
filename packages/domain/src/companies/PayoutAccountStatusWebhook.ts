/**
 * The PAYOUT_ACCOUNT_STATUS_CHANGED webhook: a company's payout account
 * became Errored (a payout refused or returned for an account-level reason:
 * its payouts pause) or Active again (the partner set another account in
 * place of an Errored one: its payouts resume). One notification to the
 * company's partner with `Data = { CompanyId, Status, ReturnCode,
 * ReturnReason, Timestamp }` (`ReturnCode` null when the rail refused the
 * account without an ACH return code, and on Active; `ReturnReason` null on
 * Active). The notification id is the event id. No personal value: ids, the
 * status, the code and its description.
 */
import { DateTime, Effect } from "effect"
import type { Webhook } from "../infrastructure/Outbox.ts"
import * as WebhookRule from "../infrastructure/WebhookRule.ts"
import type { CompanyEnvelope } from "./CompaniesProjection.ts"

export const eventType = "PAYOUT_ACCOUNT_STATUS_CHANGED"

/** The partner's webhook that the company's payout account is `status` now. */
const statusChanged = (
  envelope: CompanyEnvelope,
  event: { readonly partnerId: string; readonly companyId: string; readonly at: DateTime.Utc },
  status: "Errored" | "Active",
  returned: { readonly ReturnCode: string | null; readonly ReturnReason: string | null },
): Webhook => ({
  id: envelope.eventId,
  partnerId: event.partnerId,
  eventType,
  data: {
    CompanyId: event.companyId,
    Status: status,
    ...returned,
    Timestamp: DateTime.formatIso(event.at),
  },
  position: envelope.globalPosition,
})

const webhooks = (envelope: CompanyEnvelope) => {
  const event = envelope.event
  if (event._tag === "PayoutAccountErrored") {
    return Effect.succeed([
      statusChanged(envelope, event, "Errored", { ReturnCode: event.returnCode ?? null, ReturnReason: event.reason }),
    ])
  }
  if (event._tag === "PayoutAccountSet" && event.replacedErrored === true) {
    return Effect.succeed([statusChanged(envelope, event, "Active", { ReturnCode: null, ReturnReason: null })])
  }
  return Effect.succeed([])
}

export const rule = WebhookRule.make<CompanyEnvelope>({ streamTypes: ["Company"], webhooks })
