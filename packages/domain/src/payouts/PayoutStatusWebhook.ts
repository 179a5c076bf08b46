/**
 * The PAYOUT_STATUS_CHANGED webhook: a payout created (Pending), paid (Paid)
 * or failed (Failed) becomes one notification to its partner with
 * `Data = { PayoutId, CompanyId, Direction, Amount, Status, Timestamp }` (PascalCase like
 * the other webhooks; `Amount` is `{ value, currencyCode }` as in
 * REFUND_STATUS_CHANGED, value in major units; a Failed payout adds `ReturnCode` and `ReturnReason`). The partner,
 * company and amount come from the `payouts` read model, already updated by
 * the same append. The notification id is the event id, so a receiver can
 * de-duplicate retried deliveries. No personal value: ids, the amount, the
 * status and the instant only.
 */
import { DateTime, type Effect, Option } from "effect"
import type { EventStoreUnavailable } from "../infrastructure/EventStore.ts"
import type { Webhook } from "../infrastructure/Outbox.ts"
import { decodeDocument, ReadModelStore } from "../infrastructure/ReadModel.ts"
import * as WebhookRule from "../infrastructure/WebhookRule.ts"
import * as Money from "../kernel/Money.ts"
import * as Traced from "../kernel/Traced.ts"
import * as PayoutEvents from "./PayoutEvents.ts"
import * as PayoutsProjection from "./PayoutsProjection.ts"

export const eventType = "PAYOUT_STATUS_CHANGED"

const webhooks = Traced.fn("PayoutStatusWebhook.rule")(function* (
  envelope: PayoutsProjection.PayoutEnvelope,
): Effect.fn.Return<ReadonlyArray<Webhook>, EventStoreUnavailable, ReadModelStore> {
  const event = envelope.event
  // Only the events that change the payout's status are announced.
  const status = PayoutEvents.statusOf(event)
  if (status === undefined) return []
  const store = yield* ReadModelStore
  const stored = yield* store.get(PayoutsProjection.collection, event.payoutId)
  if (Option.isNone(stored)) return []
  const doc = decodeDocument(PayoutsProjection.projection, stored.value)
  return [
    {
      id: envelope.eventId,
      partnerId: doc.partnerId,
      eventType,
      data: {
        PayoutId: doc.payoutId,
        CompanyId: doc.companyId,
        Direction: doc.direction ?? "Credit",
        Amount: { value: Money.toDecimal(doc.amount), currencyCode: doc.amount.currency },
        Status: status,
        ...(event._tag === "PayoutFailed" ? WebhookRule.failureData(event.returnCode, event.reason) : {}),
        Timestamp: DateTime.formatIso(event.at),
      },
      position: envelope.globalPosition,
    },
  ]
})

export const rule = WebhookRule.make<PayoutsProjection.PayoutEnvelope>({
  streamTypes: ["Payout"],
  webhooks,
})
