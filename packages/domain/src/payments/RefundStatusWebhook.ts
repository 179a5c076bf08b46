/**
 * The REFUND_STATUS_CHANGED webhook: one notification each time a refund of a
 * transfer changes status: Pending when it is asked for
 * (`POST /Transaction/{id}/Refund`), then Completed when its credit settled or
 * Failed when it came back. Data { RefundId, TransferId, Amount { value,
 * currencyCode }, Status, ReturnCode and ReturnReason (Failed), Timestamp }.
 * The partner to notify comes from the `transfers` read model, already
 * updated by the same append.
 */
import * as WebhookRule from "../infrastructure/WebhookRule.ts"
import * as Money from "../kernel/Money.ts"
import type { RefundStatus, TransferEvent } from "./TransferEvents.ts"
import * as TransfersProjection from "./TransfersProjection.ts"

export const eventType = "REFUND_STATUS_CHANGED"

/** The refund status an event announces, with what Data needs; undefined for the transfer's other events. */
export const changeOf = (
  event: TransferEvent,
):
  | {
      readonly refundId: string
      readonly amount: Money.Money
      readonly status: RefundStatus
      /** Why a Failed refund failed: the return code (none when the rail refused it) and the reason. */
      readonly failure?: { readonly returnCode?: string; readonly reason: string }
    }
  | undefined => {
  switch (event._tag) {
    case "TransferRefundRequested":
      return { refundId: event.refundId, amount: event.amount, status: "Pending" }
    case "TransferRefundCompleted":
      return { refundId: event.refundId, amount: event.amount, status: "Completed" }
    case "TransferRefundFailed":
      return {
        refundId: event.refundId,
        amount: event.amount,
        status: "Failed",
        failure: { ...(event.returnCode === undefined ? {} : { returnCode: event.returnCode }), reason: event.reason },
      }
    default:
      return undefined
  }
}

export const rule = WebhookRule.perDocumentChange(TransfersProjection.projection, {
  name: "RefundStatusWebhook.rule",
  eventType,
  changeOf,
  data: (event, change) => ({
    RefundId: change.refundId,
    TransferId: event.transferId,
    Amount: { value: Money.toDecimal(change.amount), currencyCode: change.amount.currency },
    Status: change.status,
    ...(change.failure === undefined ? {} : WebhookRule.failureData(change.failure.returnCode, change.failure.reason)),
  }),
})
