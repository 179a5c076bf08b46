/**
 * Handlers of the `auth` group: token issuance and exchange.
 *
 * POST /auth/token limits failures (`RateLimit.AuthFailureLimits`) per ClientId
 * and per client address (`HttpLimits.clientIp`: `X-Forwarded-For` only as the
 * trusted proxies wrote it):
 * while either bucket is empty the answer is 429 before the credentials are
 * looked at, so guessing costs the service no hashing and no query.
 */
import { PartnerCredentials, Traced } from "@partnerpay/domain"
import { Clock, Effect, Option } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { presentedToken } from "../cross-cutting/Authentication.ts"
import { clientIp, HttpLimits } from "../cross-cutting/HttpLimits.ts"
import * as Problem from "../cross-cutting/Problem.ts"
import * as RateLimit from "../cross-cutting/RateLimit.ts"
import { Tokens } from "../cross-cutting/Tokens.ts"

export const AuthLive = HttpApiBuilder.group(
  Api,
  "auth",
  Effect.fn(function* (handlers) {
    const credentials = yield* PartnerCredentials.PartnerCredentials
    const tokens = yield* Tokens
    const failures = RateLimit.make({ share: yield* RateLimit.InstanceShare })
    return handlers
      .handle(
        "token",
        Traced.fn("AuthLive.token")(function* ({ payload }) {
          const request = yield* HttpServerRequest.HttpServerRequest
          const rules = yield* RateLimit.AuthFailureLimits
          const buckets = [
            [`client:${payload.ClientId}`, rules.perClientId],
            [`address:${clientIp(request, yield* HttpLimits)}`, rules.perAddress],
          ] as const
          const now = yield* Clock.currentTimeMillis
          const waits = buckets.map(([key, rule]) => failures.peek(key, rule, now))
          const retryAfter = Math.max(0, ...waits.map((d) => (d.allowed ? 0 : d.retryAfterSeconds)))
          if (retryAfter > 0) return yield* Problem.tooManyRequests(retryAfter)
          const partner = yield* credentials.authenticate(payload.ClientId, payload.ClientSecret)
          if (Option.isNone(partner)) {
            for (const [key, rule] of buckets) failures.take(key, rule, now)
            return yield* Problem.unauthorized("The ClientId and ClientSecret do not match a partner.")
          }
          const issued = yield* tokens.issue({ _tag: "Partner", partnerId: partner.value.partnerId })
          return {
            AccessToken: issued.accessToken,
            TokenType: "Bearer" as const,
            ExpiresInSeconds: issued.expiresInSeconds,
          }
        }),
      )
      .handle(
        "exchangeToken",
        Traced.fn("AuthLive.exchangeToken")(function* () {
          const issued = yield* tokens
            .renew(yield* presentedToken)
            .pipe(
              Effect.catchTag("InvalidToken", (invalid) =>
                Effect.logDebug("token renewal refused").pipe(
                  Effect.annotateLogs({ reason: invalid.reason }),
                  Effect.andThen(
                    Effect.fail(
                      Problem.unauthorized(
                        "This token can no longer be renewed (revoked, or 24 hours after the login): log in again.",
                      ),
                    ),
                  ),
                ),
              ),
            )
          return { accessToken: issued.accessToken }
        }),
      )
  }),
)
