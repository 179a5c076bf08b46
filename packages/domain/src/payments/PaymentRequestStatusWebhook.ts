/**
 * The PAYMENT_REQUEST_STATUS_CHANGED webhook (spec 6.3, changelog v0.3.0.1):
 * one notification for every status change of a payment request, with
 * Data { PaymentRequestId, Status, AccountNumberMasked (once the payer
 * accepted with a bank account), ReturnCode and ReturnReason (Failed and
 * Returned: the ACH return code and its description), Metadata (the partner's
 * metadata of the request, `{}` when none), Timestamp }. The partner to notify comes
 * from the `payment_requests` read model, already updated by the same append.
 */

import * as WebhookRule from "../infrastructure/WebhookRule.ts"
import * as PaymentRequest from "./PaymentRequest.ts"
import * as PaymentRequestsProjection from "./PaymentRequestsProjection.ts"
import { returnReason } from "./ReturnCodes.ts"

export const eventType = "PAYMENT_REQUEST_STATUS_CHANGED"

export const rule = WebhookRule.perDocumentChange(PaymentRequestsProjection.projection, {
  name: "PaymentRequestStatusWebhook.rule",
  eventType,
  changeOf: PaymentRequest.statusOf,
  data: (event, status, doc) => ({
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
  }),
})
