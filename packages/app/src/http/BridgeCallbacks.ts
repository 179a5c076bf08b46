/**
 * What the callbacks of an operator's provider bridge share (the money-movement
 * and the card-processor bridges: `MoneyMovementCallbacks.ts`,
 * `CardProcessorCallbacks.ts`): the signature check with the bridge's secret
 * (`X-Partnerpay-Timestamp`, at most `toleranceSeconds` from now, and
 * `X-Partnerpay-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<exact
 * body>">`, as partnerpay signs its calls to the bridge), the answer of a
 * problem, and the one route served only where the bridge is configured.
 */
import { timingSafeEqual } from "node:crypto"
import { Problem, RequestRecord } from "@partnerpay/adapters-http"
import { Effect, Layer } from "effect"
import { HttpRouter, type HttpServerRequest, type HttpServerResponse } from "effect/http"
import * as HttpBridge from "../providers/HttpBridge.ts"

/** How far a callback's timestamp may be from now, in seconds. */
export const toleranceSeconds = 300

/** True when the body is signed with the bridge's secret and the timestamp is fresh. */
export const isSigned = (
  bridge: HttpBridge.BridgeConfig,
  timestamp: string | undefined,
  signature: string | undefined,
  body: string,
  nowSeconds: number,
): boolean => {
  if (timestamp === undefined || signature === undefined || !/^\d{1,12}$/.test(timestamp)) return false
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return false
  const expected = Buffer.from(HttpBridge.signature(bridge.secret, timestamp, body))
  const actual = Buffer.from(signature)
  return expected.length === actual.length && timingSafeEqual(expected, actual)
}

/** The problem answer (with the request's correlation id). */
export const problem = (value: Problem.Problem) =>
  Effect.withFiber((fiber) => Problem.toResponse(value, RequestRecord.correlationIdOf(fiber)))

/** 401 for a callback not signed with the bridge's secret (or stale); `bridgeName` names the bridge. */
export const unauthorized = (bridgeName: string) =>
  new Problem.Unauthorized({
    detail: `The notification is not signed with the ${bridgeName} bridge's secret, or its timestamp is stale.`,
    code: "UNAUTHORIZED",
  })

/** The body of a callback signed by the bridge, or the 401 answer. */
export const signedBody = Effect.fnUntraced(function* (
  bridge: HttpBridge.BridgeConfig,
  request: HttpServerRequest.HttpServerRequest,
  refusal: Problem.Problem,
): Effect.fn.Return<{ readonly body: string } | { readonly refused: HttpServerResponse.HttpServerResponse }> {
  const body = yield* request.text.pipe(Effect.orElseSucceed(() => undefined))
  const signed =
    body !== undefined &&
    isSigned(
      bridge,
      request.headers["x-partnerpay-timestamp"],
      request.headers["x-partnerpay-signature"],
      body,
      Math.floor(Date.now() / 1000),
    )
  return signed ? { body } : { refused: yield* problem(refusal) }
})

/** The route `POST path`, where the bridge is configured; no route at all otherwise (404). */
export const route = <R>(
  path: HttpRouter.PathInput,
  bridge: HttpBridge.BridgeConfig | undefined,
  receive: (
    bridge: HttpBridge.BridgeConfig,
    request: HttpServerRequest.HttpServerRequest,
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>,
) =>
  bridge === undefined
    ? Layer.empty
    : HttpRouter.use(
        Effect.fnUntraced(function* (router) {
          const context = yield* Effect.context<R>()
          yield* router.add("POST", path, (request) => receive(bridge, request).pipe(Effect.provide(context)))
        }),
      )
