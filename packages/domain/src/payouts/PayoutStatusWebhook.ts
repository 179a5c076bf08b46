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
import * as WebhookRule from "../infrastructure/WebhookRule.ts"
import * as Money from "../kernel/Money.ts"
import * as PayoutEvents from "./PayoutEvents.ts"
import * as PayoutsProjection from "./PayoutsProjection.ts"

export const eventType = "PAYOUT_STATUS_CHANGED"

export const rule = WebhookRule.perDocumentChange(PayoutsProjection.projection, {
  name: "PayoutStatusWebhook.rule",
  eventType,
  // Only the events that change the payout's status are announced.
  changeOf: PayoutEvents.statusOf,
  data: (event, status, doc) => ({
    PayoutId: doc.payoutId,
    CompanyId: doc.companyId,
    Direction: doc.direction ?? "Credit",
    Amount: { value: Money.toDecimal(doc.amount), currencyCode: doc.amount.currency },
    Status: status,
    ...(event._tag === "PayoutFailed" ? WebhookRule.failureData(event.returnCode, event.reason) : {}),
  }),
})
