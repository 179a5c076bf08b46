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

const webhooks = (envelope: CompanyEnvelope) => {
  const event = envelope.event
  if (event._tag === "PayoutAccountErrored") {
    const notification: Webhook = {
      id: envelope.eventId,
      partnerId: event.partnerId,
      eventType,
      data: {
        CompanyId: event.companyId,
        Status: "Errored",
        ReturnCode: event.returnCode ?? null,
        ReturnReason: event.reason,
        Timestamp: DateTime.formatIso(event.at),
      },
      position: envelope.globalPosition,
    }
    return Effect.succeed([notification])
  }
  if (event._tag === "PayoutAccountSet" && event.replacedErrored === true) {
    const notification: Webhook = {
      id: envelope.eventId,
      partnerId: event.partnerId,
      eventType,
      data: {
        CompanyId: event.companyId,
        Status: "Active",
        ReturnCode: null,
        ReturnReason: null,
        Timestamp: DateTime.formatIso(event.at),
      },
      position: envelope.globalPosition,
    }
    return Effect.succeed([notification])
  }
  return Effect.succeed([])
}

export const rule = WebhookRule.make<CompanyEnvelope>({ streamTypes: ["Company"], webhooks })
