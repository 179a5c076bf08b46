/**
 * `POST /providers/money-movement/notifications`: the money-movement
 * provider's notifications (its webhooks, relayed by the operator's bridge),
 * the second path of a movement's outcome beside the outcome poller. Not part
 * of the partner interface (not in the OpenAPI document); served only where
 * the `MONEY_MOVEMENT` bridge is configured (production), and authenticated
 * with that bridge's secret, signed as partnerpay signs its calls to the
 * bridge (docs/providers.md): `X-Partnerpay-Timestamp` (Unix seconds, at most
 * 5 minutes from now) and `X-Partnerpay-Signature: sha256=<hex HMAC-SHA256 of
 * "<timestamp>.<exact body>">`.
 *
 * Body: `{ kind: "Debit", id: <transferId>, providerReference, status,
 * returnCode? }` or `{ kind: "Credit", id: <refundId>, transferId,
 * providerReference, status, returnCode? }`, `status` one of Pending,
 * Settled, Failed, Returned (Failed and Returned with an ACH return code).
 * It goes to the one domain entry point of outcomes
 * (`MoneyMovements.recordNotification`): a repeat changes nothing. Answers:
 * 204 recorded (or nothing to record); 401 unsigned, badly signed or stale;
 * 400 a body that is not such a callback (naming the field); 404 an
 * unknown transfer or refund; 422 another movement's reference
 * (`OTHER_MOVEMENT`) or a code outside the table; 409 an outcome the transfer's
 * state refuses (e.g. a failed transfer said settled).
 */
import { Problem } from "@partnerpay/adapters-http"
import { Ids, MoneyMovements, Traced, TransferEvents } from "@partnerpay/domain"
import { Effect, type Layer, Schema } from "effect"
import { type HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import type * as HttpBridge from "../providers/HttpBridge.ts"
import * as BridgeCallbacks from "./BridgeCallbacks.ts"

export const path = "/providers/money-movement/notifications"

const Outcome = Schema.Union([
  Schema.Struct({ status: Schema.Literal("Pending") }),
  Schema.Struct({ status: Schema.Literal("Settled") }),
  Schema.Struct({ status: Schema.Literals(["Failed", "Returned"]), returnCode: Schema.String }),
])

/** A callback's body. */
export const CallbackBody = Schema.Union([
  Schema.Struct({
    kind: Schema.Literal("Debit"),
    id: Ids.TransferId,
    providerReference: Schema.String,
    status: Schema.Literals(["Pending", "Settled", "Failed", "Returned"]),
    returnCode: Schema.optionalKey(Schema.String),
  }),
  Schema.Struct({
    kind: Schema.Literal("Credit"),
    id: TransferEvents.RefundId,
    transferId: Ids.TransferId,
    providerReference: Schema.String,
    status: Schema.Literals(["Pending", "Settled", "Failed", "Returned"]),
    returnCode: Schema.optionalKey(Schema.String),
  }),
])
export type CallbackBody = typeof CallbackBody.Type

const decodeBody = Schema.decodeUnknownEffect(Schema.fromJsonString(CallbackBody), {
  onExcessProperty: "error",
})
const decodeOutcome = Schema.decodeUnknownEffect(Outcome)

const { problem } = BridgeCallbacks

const unauthorized = BridgeCallbacks.unauthorized("money-movement")

/** One callback: verified, decoded, recorded. */
const receive = Traced.fn("MoneyMovementCallbacks.receive")(function* (
  bridge: HttpBridge.BridgeConfig,
  request: HttpServerRequest.HttpServerRequest,
) {
  const signed = yield* BridgeCallbacks.signedBody(bridge, request, unauthorized)
  if ("refused" in signed) return signed.refused
  const decoded = yield* Effect.result(decodeBody(signed.body))
  if (decoded._tag === "Failure") return yield* problem(Problem.badRequest("Payload", decoded.failure.issue))
  const callback = decoded.success
  const outcome = yield* Effect.result(decodeOutcome({ status: callback.status, returnCode: callback.returnCode }))
  if (outcome._tag === "Failure")
    return yield* problem(
      new Problem.BadRequest({
        detail: "The request has an invalid value.",
        code: "BAD_REQUEST",
        errors: [{ field: "returnCode", message: "is required when status is Failed or Returned" }],
      }),
    )
  const recorded = yield* Effect.result(
    MoneyMovements.recordNotification({
      movement:
        callback.kind === "Debit"
          ? { _tag: "Debit", transferId: callback.id }
          : { _tag: "Credit", transferId: callback.transferId, refundId: callback.id },
      providerReference: callback.providerReference,
      outcome: outcome.success,
    }),
  )
  if (recorded._tag === "Failure") return yield* problem(Problem.fromDomain(recorded.failure))
  return HttpServerResponse.empty({ status: 204 })
})

/** What recording a callback needs (the domain's stores, provided by the service). */
export type Requirements = Effect.Services<ReturnType<typeof MoneyMovements.recordNotification>>

/** The route, where a bridge is configured; no route at all otherwise (404). */
export const routes = (
  bridge: HttpBridge.BridgeConfig | undefined,
): Layer.Layer<never, never, HttpRouter.HttpRouter | Requirements> => BridgeCallbacks.route(path, bridge, receive)
