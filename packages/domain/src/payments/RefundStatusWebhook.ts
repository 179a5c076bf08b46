/**
 * The REFUND_STATUS_CHANGED webhook: one notification each time a refund of a
 * transfer changes status: Pending when it is asked for
 * (`POST /Transaction/{id}/Refund`), then Completed when its credit settled or
 * Failed when it came back. Data { RefundId, TransferId, Amount { value,
 * currencyCode }, Status, ReturnCode and ReturnReason (Failed), Timestamp }.
 * The partner to notify comes from the `transfers` read model, already
 * updated by the same append.
 */
import { DateTime, type Effect, Option } from "effect"
import type { EventStoreUnavailable } from "../infrastructure/EventStore.ts"
import type { Webhook } from "../infrastructure/Outbox.ts"
import { decodeDocument, ReadModelStore } from "../infrastructure/ReadModel.ts"
import * as WebhookRule from "../infrastructure/WebhookRule.ts"
import * as Money from "../kernel/Money.ts"
import * as Traced from "../kernel/Traced.ts"
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

const webhooks = Traced.fn("RefundStatusWebhook.rule")(function* (
  envelope: TransfersProjection.TransferEnvelope,
): Effect.fn.Return<ReadonlyArray<Webhook>, EventStoreUnavailable, ReadModelStore> {
  const event = envelope.event
  const change = changeOf(event)
  if (change === undefined) return []
  const store = yield* ReadModelStore
  const stored = yield* store.get(TransfersProjection.collection, event.transferId)
  if (Option.isNone(stored)) return []
  const doc = decodeDocument(TransfersProjection.projection, stored.value)
  return [
    {
      id: envelope.eventId,
      partnerId: doc.partnerId,
      eventType,
      data: {
        RefundId: change.refundId,
        TransferId: event.transferId,
        Amount: { value: Money.toDecimal(change.amount), currencyCode: change.amount.currency },
        Status: change.status,
        ...(change.failure === undefined
          ? {}
          : WebhookRule.failureData(change.failure.returnCode, change.failure.reason)),
        Timestamp: DateTime.formatIso(event.at),
      },
      position: envelope.globalPosition,
    },
  ]
})

export const rule = WebhookRule.make<TransfersProjection.TransferEnvelope>({
  streamTypes: ["Transfer"],
  webhooks,
})
