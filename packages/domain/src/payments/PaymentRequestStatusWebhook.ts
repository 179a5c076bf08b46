/**
 * The PAYMENT_REQUEST_STATUS_CHANGED webhook (spec 6.3, changelog v0.3.0.1):
 * one notification for every status change of a payment request, with
 * Data { PaymentRequestId, Status, AccountNumberMasked (once the payer
 * accepted with a bank account), ReturnCode and ReturnReason (Failed and
 * Returned: the ACH return code and its description), Metadata (the partner's
 * metadata of the request, `{}` when none), Timestamp }. The partner to notify comes
 * from the `payment_requests` read model, already updated by the same append.
 */

import { DateTime, type Effect, Option } from "effect"
import type { EventStoreUnavailable } from "../infrastructure/EventStore.ts"
import type { Webhook } from "../infrastructure/Outbox.ts"
import { decodeDocument, ReadModelStore } from "../infrastructure/ReadModel.ts"
import * as WebhookRule from "../infrastructure/WebhookRule.ts"
import * as Traced from "../kernel/Traced.ts"
import * as PaymentRequest from "./PaymentRequest.ts"
import * as PaymentRequestsProjection from "./PaymentRequestsProjection.ts"
import { returnReason } from "./ReturnCodes.ts"

export const eventType = "PAYMENT_REQUEST_STATUS_CHANGED"

const webhooks = Traced.fn("PaymentRequestStatusWebhook.rule")(function* (
  envelope: PaymentRequestsProjection.PaymentRequestEnvelope,
): Effect.fn.Return<ReadonlyArray<Webhook>, EventStoreUnavailable, ReadModelStore> {
  const event = envelope.event
  const status = PaymentRequest.statusOf(event)
  if (status === undefined) return []
  const store = yield* ReadModelStore
  const stored = yield* store.get(PaymentRequestsProjection.collection, event.paymentRequestId)
  if (Option.isNone(stored)) return []
  const doc = decodeDocument(PaymentRequestsProjection.projection, stored.value)
  return [
    {
      id: envelope.eventId,
      partnerId: doc.partnerId,
      eventType,
      data: {
        PaymentRequestId: event.paymentRequestId,
        Status: status,
        ...(doc.accountNumberMasked === undefined ? {} : { AccountNumberMasked: doc.accountNumberMasked }),
        ...(event._tag === "PaymentRequestFailed" || event._tag === "PaymentRequestReturned"
          ? event.returnCode === undefined
            ? { ReturnCode: null, FailureReason: event.reason }
            : {
                ReturnCode: event.returnCode,
                ReturnReason: returnReason(event.returnCode, event.reason),
                FailureReason: event.reason,
              }
          : {}),
        Metadata: doc.metadata ?? {},
        Timestamp: DateTime.formatIso(event.at),
      },
      position: envelope.globalPosition,
    },
  ]
})

export const rule = WebhookRule.make<PaymentRequestsProjection.PaymentRequestEnvelope>({
  streamTypes: ["PaymentRequest"],
  webhooks,
})
