/**
 * `POST /providers/card-processor/notifications`: the card processor's
 * notifications (its webhooks, relayed by the operator's bridge) about
 * disputes and refunds of card payments. Not part of the partner interface
 * (not in the OpenAPI document); served only where the `CARD_PROCESSOR`
 * bridge is configured (production), authenticated with that bridge's
 * secret as the money-movement notifications are (`X-Partnerpay-Timestamp`,
 * at most 5 minutes from now, and `X-Partnerpay-Signature: sha256=<hex
 * HMAC-SHA256 of "<timestamp>.<exact body>">`).
 *
 * Bodies (money as `{ minorUnits, currency }`; a payment named by our ids,
 * which the bridge received in `card-payments` / `card-charges`):
 * - `{ kind: "DisputeOpened", disputeId, cardPaymentId | paymentRequestId,
 *   amount?, fee, reason, status: NeedsResponse | UnderReview }`
 *   (`amount` absent: the whole payment);
 * - `{ kind: "DisputeStatus", disputeId, status }`;
 * - `{ kind: "DisputeClosed", disputeId, outcome: Won | Lost }`;
 * - `{ kind: "RefundOutcome", cardPaymentId, refundId, status: Completed |
 *   Failed, reason? }` (a card refund of POST /Transaction/{id}/Refund);
 * - `{ kind: "AuthenticationOutcome", paymentRequestId, processorReference,
 *   status: Succeeded | Failed, code?, availableAt? }`: the in-app card
 *   payment that waited for the payer's authentication (3-D Secure, answered
 *   `RequiresAction`) succeeded (the request is Paid by card) or failed (it
 *   stays payable).
 *
 * Each goes to its use case (`CardDisputes`, `CardRefundPayments`,
 * `InAppCardAuthentication`); a repeat
 * changes nothing. Answers: 204 recorded (or nothing to record); 401 unsigned,
 * badly signed or stale; 400 a body that is not such a callback (naming
 * the field); 404 an unknown payment, dispute or refund; 422 a dispute the
 * payment refuses (more than the payment...); 409 a contrary outcome.
 */
import { Problem } from "@partnerpay/adapters-http"
import {
  CardDispute,
  CardDisputes,
  CardRefundPayments,
  Ids,
  InAppCardAuthentication,
  Money,
  Traced,
  TransferEvents,
} from "@partnerpay/domain"
import { DateTime, Effect, type Layer, Schema } from "effect"
import { type HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import type * as HttpBridge from "../providers/HttpBridge.ts"
import * as BridgeCallbacks from "./BridgeCallbacks.ts"

export const path = "/providers/card-processor/notifications"

const Amount = Schema.Struct({ minorUnits: Schema.Int, currency: Money.CurrencyCode })

/** A callback's body. */
export const CallbackBody = Schema.Union([
  Schema.Struct({
    kind: Schema.Literal("DisputeOpened"),
    disputeId: Schema.String.check(Schema.isNonEmpty()),
    cardPaymentId: Schema.optionalKey(Ids.CardPaymentId),
    paymentRequestId: Schema.optionalKey(Ids.PaymentRequestId),
    amount: Schema.optionalKey(Amount),
    fee: Amount,
    reason: Schema.String,
    status: CardDispute.OpenStatus,
  }),
  Schema.Struct({
    kind: Schema.Literal("DisputeStatus"),
    disputeId: Schema.String.check(Schema.isNonEmpty()),
    status: CardDispute.OpenStatus,
  }),
  Schema.Struct({
    kind: Schema.Literal("DisputeClosed"),
    disputeId: Schema.String.check(Schema.isNonEmpty()),
    outcome: CardDispute.Outcome,
  }),
  Schema.Struct({
    kind: Schema.Literal("RefundOutcome"),
    cardPaymentId: Ids.CardPaymentId,
    refundId: TransferEvents.RefundId,
    status: Schema.Literals(["Completed", "Failed"]),
    reason: Schema.optionalKey(Schema.String),
  }),
  Schema.Struct({
    kind: Schema.Literal("AuthenticationOutcome"),
    paymentRequestId: Ids.PaymentRequestId,
    processorReference: Schema.String.check(Schema.isNonEmpty()),
    status: Schema.Literals(["Succeeded", "Failed"]),
    code: Schema.optionalKey(Schema.String),
    availableAt: Schema.optionalKey(Schema.DateTimeUtcFromString),
  }),
])
export type CallbackBody = typeof CallbackBody.Type

const decodeBody = Schema.decodeUnknownEffect(Schema.fromJsonString(CallbackBody), {
  onExcessProperty: "error",
})

const { problem } = BridgeCallbacks

const unauthorized = BridgeCallbacks.unauthorized("card processor")

const badField = (field: string, message: string) =>
  new Problem.BadRequest({
    detail: "The request has an invalid value.",
    code: "BAD_REQUEST",
    errors: [{ field, message }],
  })

/** What the callback asks of the domain; a refusal of the body itself as a problem. */
export const record = Traced.fn("CardProcessorCallbacks.record")(function* (callback: CallbackBody) {
  const at = yield* DateTime.now
  switch (callback.kind) {
    case "DisputeOpened": {
      const payment: CardDisputes.PaymentRef | undefined =
        callback.cardPaymentId !== undefined && callback.paymentRequestId === undefined
          ? { _tag: "CardPayment", cardPaymentId: callback.cardPaymentId }
          : callback.paymentRequestId !== undefined && callback.cardPaymentId === undefined
            ? { _tag: "PaymentRequest", paymentRequestId: callback.paymentRequestId }
            : undefined
      if (payment === undefined) return badField("cardPaymentId", "exactly one of cardPaymentId and paymentRequestId")
      yield* CardDisputes.open({
        disputeId: callback.disputeId,
        payment,
        amount: callback.amount,
        fee: callback.fee,
        reason: callback.reason,
        status: callback.status,
        at,
      })
      return undefined
    }
    case "DisputeStatus":
      yield* CardDisputes.changeStatus(callback.disputeId, callback.status, at)
      return undefined
    case "DisputeClosed":
      yield* CardDisputes.close(callback.disputeId, callback.outcome, at)
      return undefined
    case "RefundOutcome":
      yield* CardRefundPayments.recordProcessorOutcome(
        callback.cardPaymentId,
        callback.refundId,
        callback.status === "Completed"
          ? { _tag: "Completed" }
          : { _tag: "Failed", reason: callback.reason ?? "refused by the card processor" },
      )
      return undefined
    case "AuthenticationOutcome":
      yield* InAppCardAuthentication.complete(
        callback.paymentRequestId,
        callback.processorReference,
        callback.status === "Succeeded"
          ? { _tag: "Succeeded", availableAt: callback.availableAt }
          : { _tag: "Failed", code: callback.code ?? "authentication_failed" },
      )
      return undefined
  }
})

/** One callback: verified, decoded, recorded. */
const receive = Traced.fn("CardProcessorCallbacks.receive")(function* (
  bridge: HttpBridge.BridgeConfig,
  request: HttpServerRequest.HttpServerRequest,
) {
  const signed = yield* BridgeCallbacks.signedBody(bridge, request, unauthorized)
  if ("refused" in signed) return signed.refused
  const decoded = yield* Effect.result(decodeBody(signed.body))
  if (decoded._tag === "Failure") return yield* problem(Problem.badRequest("Payload", decoded.failure.issue))
  const recorded = yield* Effect.result(record(decoded.success))
  if (recorded._tag === "Failure") return yield* problem(Problem.fromDomain(recorded.failure))
  if (recorded.success !== undefined) return yield* problem(recorded.success)
  return HttpServerResponse.empty({ status: 204 })
})

/** What recording a callback needs (the domain's stores, provided by the service). */
export type Requirements = Effect.Services<ReturnType<typeof record>>

/** The route, where the card processor's bridge is configured; no route at all otherwise (404). */
export const routes = (
  bridge: HttpBridge.BridgeConfig | undefined,
): Layer.Layer<never, never, HttpRouter.HttpRouter | Requirements> => BridgeCallbacks.route(path, bridge, receive)
