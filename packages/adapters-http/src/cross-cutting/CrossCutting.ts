/**
 * Cross-cutting request handling applied to EVERY route (a global router middleware, so groups
 * added later are covered without any change): one step per concept, in the order they run,
 * each in its own module (`RequestSteps.ts` says what a step is):
 *
 * 1. `CallerResolution`: the bearer token verified once; the caller scopes the rest to its partner
 *    and the route reuses the verification (no second check in `Authentication`).
 * 2. `VersionNegotiation`: `Partnerpay-Version` (400 for none of ours; the partner's pinned one
 *    without it), named on every answer, answers given in the caller's version.
 * 3. `RateLimiting`: a token bucket per caller (or per address), 429 with `Retry-After`, the
 *    `RateLimit-*` headers on every answer.
 * 4. `UnstorableText.inUrl`: NUL or non-UTF-8 text in the path or query -> 400 naming it.
 * 5. `BodyLimit`: 413 past `maxBodyBytes`; the body read once for the steps after.
 * 6. `UnstorableText.inBody`: NUL or lone surrogates in the body -> 400 naming the fields.
 * 7. `Idempotency`: `Idempotency-Key` on POST: the request and its stored answer in one unit of
 *    work, a retry replays it.
 *
 * The limits are `HttpLimits`; `CrossCuttingOpenApi.openApiTransform` documents the steps in
 * /openapi.json. A request costs one `Incoming` record; the chain itself is built once.
 */
import { IdempotencyStore, UnitOfWork } from "@partnerpay/domain"
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import * as ApiVersions from "./ApiVersions.ts"
import * as BodyLimit from "./BodyLimit.ts"
import * as CallerResolution from "./CallerResolution.ts"
import * as HttpLimits from "./HttpLimits.ts"
import * as Idempotency from "./Idempotency.ts"
import * as RateLimit from "./RateLimit.ts"
import * as RateLimiting from "./RateLimiting.ts"
import * as RequestSteps from "./RequestSteps.ts"
import { Tokens } from "./Tokens.ts"
import * as UnstorableText from "./UnstorableText.ts"
import * as VersionNegotiation from "./VersionNegotiation.ts"

export { openApiTransform } from "./CrossCuttingOpenApi.ts"
export {
  clientIp,
  defaultLimits,
  HttpLimits,
  type Limits,
  layerLimits,
  probePaths,
  providerCallbackPaths,
} from "./HttpLimits.ts"

/** Builds the per-request function from the ports (rate-limit buckets live as long as the routes). */
export const make = Effect.gen(function* () {
  const limits = yield* HttpLimits.HttpLimits
  const store = yield* IdempotencyStore.IdempotencyStore
  const handle = RequestSteps.chain([
    CallerResolution.step(yield* Tokens),
    VersionNegotiation.step(yield* ApiVersions.PinnedVersions),
    RateLimiting.step(limits, RateLimit.make({ share: yield* RateLimit.InstanceShare })),
    UnstorableText.inUrl,
    BodyLimit.step(limits),
    UnstorableText.inBody,
    Idempotency.step(store, yield* UnitOfWork.UnitOfWork),
  ])
  return (route: RequestSteps.App): RequestSteps.App =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      handle(new RequestSteps.Incoming(request, route)),
    ) as RequestSteps.App
})

/** The global router middleware; requires `Tokens` and `IdempotencyStore` (limits: `HttpLimits`). */
export const layer = HttpRouter.middleware(make, { global: true })
