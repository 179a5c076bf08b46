/**
 * Rate limiting per caller (token buckets, `RateLimit.ts`), the step after the version: a valid
 * bearer token's partner (or partner + customer) is the caller; requests without a valid token
 * (POST /auth/token, bad tokens) are limited per client address (`HttpLimits.clientIp`), except a
 * provider's callbacks (`providerCallbackPaths`: each provider its own generous class per address)
 * and the operator API (`/admin/`: its own bucket per address, at the partner rate). The probes
 * and the metrics are never limited (nor counted). Over the limit -> 429 problem with `Retry-After`
 * (seconds). Every answer (when rate limiting is on) carries `RateLimit-Limit` (bucket size),
 * `RateLimit-Remaining` (requests left now) and `RateLimit-Reset` (seconds until the bucket is
 * full again). Time comes from the Effect `Clock` of the request fiber (TestClock in tests).
 */
import { Clock, Effect, Option } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { scopeOf } from "./CallerResolution.ts"
import { clientIp, type Limits, probePaths, providerCallbackPaths } from "./HttpLimits.ts"
import * as Problem from "./Problem.ts"
import type * as RateLimit from "./RateLimit.ts"
import { type Handler, type Incoming, respond, type Step } from "./RequestSteps.ts"

/** A pre-response handler adding the `RateLimit-*` headers of a rate-limit decision. */
const quotaHeaders =
  (quota: RateLimit.Quota): HttpEffect.PreResponseHandler =>
  (_request, response) =>
    Effect.succeed(
      HttpServerResponse.setHeaders(response, {
        "ratelimit-limit": String(quota.limit),
        "ratelimit-remaining": String(quota.remaining),
        "ratelimit-reset": String(quota.resetSeconds),
      }),
    )

/** The step, taking from `limiter`'s buckets under `limits`. */
export const step =
  (limits: Limits, limiter: RateLimit.RateLimiter): Step =>
  (next: Handler): Handler => {
    const limited = (incoming: Incoming, decision: RateLimit.Decision) =>
      Effect.withFiber((fiber) => {
        // On whatever answer leaves, even one made from a failure further out (an unknown route's 404).
        HttpEffect.appendPreResponseHandlerUnsafe(fiber.context, quotaHeaders(decision))
        return decision.allowed ? next(incoming) : respond(Problem.tooManyRequests(decision.retryAfterSeconds))
      })

    return (incoming) => {
      const { request } = incoming
      if (!limits.rateLimiting) return next(incoming)
      // The load balancer's probes and the metrics scraper are not clients: never limited (nor counted).
      if (request.method === "GET" && probePaths.has(incoming.path)) return next(incoming)
      const [bucket, rule] = Option.match(incoming.caller, {
        // The operator API (/admin, its own bearer token) is not an anonymous client: its own bucket per address,
        // at the partner rate, so an operator's script does not starve POST /auth/token from the same address.
        onNone: () => {
          if (request.url.startsWith("/admin/")) return [`admin:${clientIp(request, limits)}`, limits.partner] as const
          const provider = providerCallbackPaths[incoming.path]
          return provider === undefined
            ? ([`ip:${clientIp(request, limits)}`, limits.anonymous] as const)
            : ([`provider:${provider}:${clientIp(request, limits)}`, limits.providerCallbacks] as const)
        },
        onSome: (c) => [scopeOf(c), c._tag === "Partner" ? limits.partner : limits.customer] as const,
      })
      return Effect.flatMap(Clock.currentTimeMillis, (now) => limited(incoming, limiter.take(bucket, rule, now)))
    }
  }
