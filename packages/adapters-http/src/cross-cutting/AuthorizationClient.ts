/**
 * The request that carries a payer's authorization, as its evidence records it
 * (`AuthorizationEvidence`): the client's address resolved through the trusted proxies exactly as
 * the rate limiter resolves it (`ClientAddress.resolve`, the whole address rather than a bucket's
 * /64), and the `User-Agent` header.
 */
import type { AuthorizationEvidence } from "@partnerpay/domain"
import { Effect, Option } from "effect"
import { HttpServerRequest } from "effect/http"
import { NetAddress } from "effect/net"
import * as ClientAddress from "./ClientAddress.ts"
import { HttpLimits } from "./HttpLimits.ts"

/** The client of the current request. */
export const current: Effect.Effect<AuthorizationEvidence.ClientContext, never, HttpServerRequest.HttpServerRequest> =
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const limits = yield* HttpLimits
    const peer = Option.getOrUndefined(request.peerAddress)
    const address = ClientAddress.resolve(peer, request.headers["x-forwarded-for"], limits.trustedProxies)
    return {
      ipAddress: address === undefined ? (peer ?? "unknown") : NetAddress.formatIp(address),
      userAgent: request.headers["user-agent"] ?? "",
    }
  })
