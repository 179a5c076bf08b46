/**
 * Cross-cutting request handling applied to EVERY route (a global router
 * middleware, so groups added later are covered without any change):
 *
 * 1. Rate limiting (token bucket per caller, `RateLimit.ts`): a valid bearer
 *    token's partner (or partner + customer) is the caller; requests without
 *    a valid token (POST /auth/token, bad tokens) are limited per client
 *    address (`ClientAddress.ts`: the socket peer, or the address the trusted
 *    proxies saw, read from the right of `X-Forwarded-For`), except a
 *    provider's callbacks (`providerCallbackPaths`: Plaid, Dwolla, the
 *    money-movement bridge), each provider its own generous class per address
 *    (`providerCallbacks`, 100/s, bursts of 200).
 *    Over the limit -> 429 problem with `Retry-After` (seconds). Every answer
 *    (when rate limiting is on) carries `RateLimit-Limit` (bucket size),
 *    `RateLimit-Remaining` (requests left now) and `RateLimit-Reset` (seconds
 *    until the bucket is full again).
 * 2. Request body size: at most `maxBodyBytes` (1 MiB) -> else 413 problem
 *    (checked on `Content-Length` and enforced while reading the body).
 *    Text no field accepts (NUL, lone UTF-16 surrogates) in the path, the
 *    query or the body -> 400 problem naming the field (`UnstorableText.ts`).
 * 3. Idempotency (`Idempotency-Key` header on POST, except POST /auth/token):
 *    the first request with a key runs and its response (status, content
 *    type, body) is stored for 24 h in the `IdempotencyStore`; the same key
 *    with the same method, path and body replays it (header
 *    `Idempotent-Replayed: true`); with a different request -> 422
 *    IDEMPOTENCY_KEY_REUSED; while the first is still running -> 409
 *    IDEMPOTENCY_REQUEST_IN_PROGRESS (`Retry-After: 1`). Keys are scoped per
 *    caller. The request holding a key runs as ONE unit of work (its use
 *    cases' units join it) whose commit also stores the answer: a committed
 *    request always has its answer stored, even if the process dies before
 *    the client reads it, and a request that did not commit leaves the key
 *    free (a key whose process died is free within seconds, see the store).
 *    A conflict at commit runs the request again (at most 3 times) as the
 *    same holder, unless another request took the key meanwhile. Answers that
 *    tell the client to retry (5xx, 429, 409 CONCURRENT_MODIFICATION /
 *    IDEMPOTENCY_REQUEST_IN_PROGRESS) commit nothing and are not stored (the
 *    key stays usable). An empty key or one longer than 255 characters -> 400.
 *
 * 4. API versions (`ApiVersions.ts`): a `Partnerpay-Version` header naming no
 *    version -> 400 naming the header; without it, a partner's pinned version
 *    applies. Every answer carries `Partnerpay-Version`; an answer of an
 *    operation changed since the caller's version is given in that version's
 *    shape, and so is every problem answer (its `type`), even one made further
 *    out (an unknown route's 404) or refusing the header itself.
 *
 * The caller is read from the bearer token here (verified with `Tokens`);
 * a request without a valid token is passed on untouched by the
 * idempotency step (the route's authentication answers 401). The outcome is
 * handed to the route as `CurrentBearerVerification`, so the route's
 * `Authentication` middleware does not verify the same token again.
 *
 * Time comes from the Effect `Clock` of the request fiber (TestClock in tests).
 * `openApiTransform` documents the header and the extra responses in /openapi.json.
 */
import { createHash } from "node:crypto"
import { CommandHandler, EventStore, IdempotencyStore, Tenancy, UnitOfWork } from "@partnerpay/domain"
import { ByteSize, Cause, Clock, Context, Data, DateTime, Effect, Exit, Layer, Option, type Types } from "effect"
import {
  HttpBody,
  HttpEffect,
  HttpIncomingMessage,
  HttpRouter,
  HttpServerRequest,
  HttpServerResponse,
} from "effect/http"
import * as ApiVersions from "./ApiVersions.ts"
import { type BearerVerification, type CallerIdentity, CurrentBearerVerification } from "./Caller.ts"
import * as ClientAddress from "./ClientAddress.ts"
import * as Problem from "./Problem.ts"
import * as RateLimit from "./RateLimit.ts"
import { CurrentRequestRecord, correlationIdOf } from "./RequestRecord.ts"
import { Tokens } from "./Tokens.ts"
import * as UnstorableText from "./UnstorableText.ts"

// ---------------------------------------------------------------------------
// Configuration

export interface Limits {
  /** Largest accepted request body (bytes). */
  readonly maxBodyBytes: number
  /** Per partner (partner tokens). */
  readonly partner: RateLimit.RateLimitRule
  /** Per customer (customer tokens: partner + registration id). */
  readonly customer: RateLimit.RateLimitRule
  /** Per client IP, for requests without a valid token (POST /auth/token). */
  readonly anonymous: RateLimit.RateLimitRule
  /**
   * Per provider and client IP, for a provider's callbacks (`providerCallbackPaths`: Plaid's item webhooks,
   * Dwolla's webhooks, the money-movement bridge's notifications): a provider's burst is not a stranger's.
   */
  readonly providerCallbacks: RateLimit.RateLimitRule
  /** The proxies whose `X-Forwarded-For` entries name the client (`ClientAddress.ts`; none by default). */
  readonly trustedProxies: ClientAddress.TrustedProxies
  /** Switch rate limiting off entirely. */
  readonly rateLimiting: boolean
}

export const defaultLimits: Limits = {
  maxBodyBytes: 1024 * 1024,
  partner: { perSecond: 100, burst: 200 },
  customer: { perSecond: 10, burst: 20 },
  anonymous: { perSecond: 10, burst: 20 },
  providerCallbacks: { perSecond: 100, burst: 200 },
  trustedProxies: ClientAddress.none,
  rateLimiting: true,
}

/**
 * The providers' callback paths, each with its provider's rate-limit class (`Limits.providerCallbacks`,
 * a bucket per provider and address, not the anonymous one).
 */
export const providerCallbackPaths: Readonly<Record<string, string>> = {
  "/BankLinkWebhook/UpdateItem": "plaid",
  "/ProviderWebhooks/Dwolla": "dwolla",
  "/providers/money-movement/notifications": "money-movement",
}

/** The limits in force; `defaultLimits` unless a layer provides others (e.g. `layerLimits`). */
export const HttpLimits = Context.Reference<Limits>("partnerpay/adapters-http/HttpLimits", {
  defaultValue: () => defaultLimits,
})

/** Provides limits (fields not given keep their default). */
export const layerLimits = (limits: Partial<Limits>): Layer.Layer<never> =>
  Layer.succeed(HttpLimits, { ...defaultLimits, ...limits }) as Layer.Layer<never>

/** The idempotency request header (case-insensitive on the wire). */
export const idempotencyHeader = "Idempotency-Key"
export const maxIdempotencyKeyLength = 255

/** The unauthenticated probes and metrics, exempt from rate limits (a load balancer checks them often). */
export const probePaths: ReadonlySet<string> = new Set(["/livez", "/readyz", "/metrics"])

/** The POST operations exempt from idempotency handling: obtaining a token is not a side effect worth replaying (and a stored token would outlive its purpose). */
export const idempotencyExempt: ReadonlySet<string> = new Set(["/auth/token"])

// ---------------------------------------------------------------------------
// Helpers

const pathOf = (url: string): string => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

const bearerToken = (authorization: string | undefined): string | undefined => {
  if (authorization === undefined) return undefined
  const match = /^bearer +(\S+)\s*$/i.exec(authorization)
  return match?.[1]
}

/** The caller's scope for idempotency keys and rate limits. */
export const scopeOf = (caller: CallerIdentity): string =>
  caller._tag === "Partner" ? `partner:${caller.partnerId}` : `customer:${caller.partnerId}:${caller.registrationId}`

/**
 * The client's address as limits key it: the socket peer's, or behind the trusted proxies the
 * address they received the request from (`X-Forwarded-For` walked from the right); an IPv6
 * client is its /64 (`ClientAddress.ts`).
 */
export const clientIp = (request: HttpServerRequest.HttpServerRequest, limits: Limits): string =>
  ClientAddress.clientKey(request.peerAddress, request.headers["x-forwarded-for"], limits.trustedProxies)

/** SHA-256 over method, path (with query) and the raw body bytes. */
export const requestHash = (method: string, url: string, body: Uint8Array): string =>
  createHash("sha256").update(`${method}\n${url}\n`).update(body).digest("hex")

const versionHeader = ApiVersions.header.toLowerCase()

/** 400 for a `Partnerpay-Version` that names no version. */
const unknownVersion = (named: string) =>
  new Problem.BadRequest({
    detail: `${ApiVersions.header} ${JSON.stringify(named.slice(0, 40))} is not a version of this API.`,
    code: "BAD_REQUEST",
    errors: [
      {
        field: `header.${ApiVersions.header}`,
        message: `must be one of ${ApiVersions.versions.map((v) => v.version).join(", ")}`,
      },
    ],
  })

const respond = (problem: Problem.Problem) =>
  Effect.withFiber((fiber) => Problem.toResponse(problem, correlationIdOf(fiber)))

/** A pre-response handler giving a problem answer in `version`'s shape (`ApiVersions.downgradeProblem`). */
const problemsIn =
  (version: string): HttpEffect.PreResponseHandler =>
  (_request, response) => {
    const body = response.body
    if (body._tag !== "Uint8Array" || !body.contentType.startsWith("application/problem+json"))
      return Effect.succeed(response)
    let problem: unknown
    try {
      problem = JSON.parse(new TextDecoder().decode(body.body))
    } catch {
      return Effect.succeed(response)
    }
    return Effect.succeed(
      HttpServerResponse.setBody(
        response,
        HttpBody.jsonUnsafe(ApiVersions.downgradeProblem(version, problem), body.contentType),
      ),
    )
  }

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

const withHeader = (name: string, value: string) => (response: HttpServerResponse.HttpServerResponse) =>
  HttpServerResponse.setHeader(response, name, value)

/** The bytes of a response, when it can be stored (streams and forms cannot). */
const capture = (response: HttpServerResponse.HttpServerResponse): IdempotencyStore.StoredResponse | undefined => {
  const body = response.body
  switch (body._tag) {
    case "Empty":
      return { status: response.status, contentType: undefined, body: new Uint8Array() }
    case "Uint8Array":
      return { status: response.status, contentType: body.contentType, body: body.body }
    case "Raw":
      if (typeof body.body === "string")
        return { status: response.status, contentType: body.contentType, body: new TextEncoder().encode(body.body) }
      if (body.body instanceof Uint8Array)
        return { status: response.status, contentType: body.contentType, body: body.body }
      return undefined
    default:
      return undefined
  }
}

/** Problem codes of 409 answers that mean "try again" rather than "this is the outcome". */
const retryCodes = new Set(["CONCURRENT_MODIFICATION", "IDEMPOTENCY_REQUEST_IN_PROGRESS"])

/**
 * An answer that tells the client to retry is not the request's outcome, so it is not stored
 * under the Idempotency-Key (the key stays usable): any 5xx (e.g. 503 database unavailable),
 * 429, and a 409 whose problem code is a concurrency conflict. Other 409s (an illegal state
 * transition) are outcomes and are stored.
 */
const tellsToRetry = (response: HttpServerResponse.HttpServerResponse): boolean => {
  if (response.status >= 500 || response.status === 429) return true
  if (response.status !== 409) return false
  const captured = capture(response)
  if (captured === undefined) return false
  try {
    const code = (JSON.parse(new TextDecoder().decode(captured.body)) as { readonly code?: unknown }).code
    return typeof code === "string" && retryCodes.has(code)
  } catch {
    return false
  }
}

const replay = (
  stored: IdempotencyStore.StoredResponse,
  correlationId: string,
): HttpServerResponse.HttpServerResponse => {
  const response =
    stored.body.length === 0 && stored.contentType === undefined
      ? HttpServerResponse.empty({ status: stored.status })
      : HttpServerResponse.uint8Array(stored.body, {
          status: stored.status,
          ...(stored.contentType === undefined ? {} : { contentType: stored.contentType }),
        })
  return HttpServerResponse.setHeaders(response, {
    "idempotent-replayed": "true",
    "x-correlation-id": correlationId,
  })
}

/** An answer that tells the client to retry (not stored): the unit that produced it commits nothing. */
class RetryAnswer extends Data.TaggedError("RetryAnswer")<{
  readonly response: HttpServerResponse.HttpServerResponse
}> {}

/** What the request holding a key gave: its answer, or a conflict at commit (nothing written). */
type Holding =
  | { readonly _tag: "Answered"; readonly response: HttpServerResponse.HttpServerResponse }
  | { readonly _tag: "Conflicted" }

interface Answer {
  readonly response: HttpServerResponse.HttpServerResponse
  /** Whether the answer was stored under the key (a stream cannot be). */
  readonly stored: boolean
}

/** Attempts of a request holding a key whose commit meets a conflict (as the use cases' own retries). */
const maxAttempts = 3

/** A retry is marked so that nothing is assumed new again (see CommandHandler `Retrying`). */
const retrying = (app: App): App => Effect.provideService(app, CommandHandler.Retrying, true)

const methodsWithoutBody: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"])

const tooLarge = (maxBodyBytes: number) =>
  new Problem.PayloadTooLarge({
    detail: `The request body is larger than ${maxBodyBytes} bytes.`,
    code: "PAYLOAD_TOO_LARGE",
  })

/** 400 naming each field that holds text no field accepts (`UnstorableText.ts`). */
const unstorableRefused = (errors: ReadonlyArray<Problem.FieldError>) =>
  new Problem.BadRequest({
    detail: "The request contains text that no field accepts: the NUL character or a lone UTF-16 surrogate.",
    code: "BAD_REQUEST",
    errors,
  })

const storeUnavailable = (_: EventStore.EventStoreUnavailable) =>
  respond(
    new Problem.ServiceUnavailable({
      detail: "The service is temporarily unavailable; retry later.",
      code: "SERVICE_UNAVAILABLE",
    }),
  )

// ---------------------------------------------------------------------------
// The middleware

type App = Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled>

/** Builds the per-request function from the ports (rate-limit buckets live as long as the routes). */
export const make = Effect.gen(function* () {
  const tokens = yield* Tokens
  const store = yield* IdempotencyStore.IdempotencyStore
  const uow = yield* UnitOfWork.UnitOfWork
  const limits = yield* HttpLimits
  const limiter = RateLimit.make({ share: yield* RateLimit.InstanceShare })
  const pins = yield* ApiVersions.PinnedVersions
  const maxBodySize = ByteSize.bytes(limits.maxBodyBytes)

  const idempotent = Effect.fnUntraced(function* (
    request: HttpServerRequest.HttpServerRequest,
    caller: Option.Option<CallerIdentity>,
    body: Uint8Array,
    app: App,
  ): Effect.fn.Return<HttpServerResponse.HttpServerResponse, Types.unhandled> {
    if (request.method !== "POST" || idempotencyExempt.has(pathOf(request.url))) return yield* app
    const key = request.headers["idempotency-key"]
    if (key === undefined) return yield* app
    if (key.length === 0 || key.length > maxIdempotencyKeyLength) {
      return yield* respond(
        new Problem.BadRequest({
          detail: "The request has an invalid value.",
          code: "BAD_REQUEST",
          errors: [
            {
              field: `header.${idempotencyHeader}`,
              message: `must be between 1 and ${maxIdempotencyKeyLength} characters`,
            },
          ],
        }),
      )
    }
    // Without a valid token the route answers 401; nothing to remember.
    if (Option.isNone(caller)) return yield* app
    const scope = scopeOf(caller.value)
    const hash = requestHash(request.method, request.url, body)
    const now = yield* DateTime.now
    let claim: string | undefined
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      // A retry after a conflict resumes the claim: unless another request took the key meanwhile
      // (this process was taken for dead), it starts again as the same holder.
      const begun = yield* Effect.result(store.begin(scope, key, hash, now, claim))
      if (begun._tag === "Failure") return yield* storeUnavailable(begun.failure)
      const outcome = begun.success
      if (outcome._tag !== "Started") return yield* answerOutcome(outcome)
      claim = outcome.claim
      const held = yield* runHolding(scope, key, outcome.claim, attempt === 0 ? app : retrying(app))
      if (held._tag === "Answered") return held.response
    }
    if (claim !== undefined) yield* forget(scope, key, claim)
    return yield* respond(
      Problem.fromDomain(new EventStore.VersionConflict({ streamId: key, expected: "", actual: -1 })),
    )
  })

  /** The answer to a request whose key is not (or no longer) this request's to run. */
  const answerOutcome = (outcome: Exclude<IdempotencyStore.BeginResult, { readonly _tag: "Started" }>) => {
    switch (outcome._tag) {
      case "Replay":
        return Effect.withFiber((fiber) => Effect.succeed(replay(outcome.response, correlationIdOf(fiber))))
      case "InProgress":
        return Effect.map(
          respond(
            new Problem.ConcurrentModification({
              detail: "A request with this Idempotency-Key is still being processed; retry shortly.",
              code: "IDEMPOTENCY_REQUEST_IN_PROGRESS",
            }),
          ),
          withHeader("retry-after", "1"),
        )
      case "Mismatch":
        return respond(
          new Problem.RuleViolation({
            detail: "This Idempotency-Key was already used for a different request (method, path or body).",
            code: "IDEMPOTENCY_KEY_REUSED",
          }),
        )
    }
  }

  const forget = (scope: string, key: string, claim: string) =>
    store
      .abandon(scope, key, claim)
      .pipe(Effect.catch((error) => Effect.logWarning("could not free an idempotency key", error)))

  /**
   * Runs the request holding `claim` as ONE unit of work whose commit also stores its answer under
   * the key (the use cases' own units join it): the answer is stored if and only if the request's
   * writes commit. An answer that tells the client to retry commits nothing and frees the key; so
   * does a failure. A conflict at commit (a concurrent writer, or the key taken by another request)
   * writes nothing and is reported as `Conflicted`, for the caller to look at the key again.
   */
  const runHolding = Effect.fnUntraced(function* (
    scope: string,
    key: string,
    claim: string,
    app: App,
  ): Effect.fn.Return<Holding, Types.unhandled> {
    const answered = app.pipe(
      Effect.flatMap((response): Effect.Effect<Answer, RetryAnswer | EventStore.EventStoreUnavailable> => {
        if (tellsToRetry(response)) return Effect.fail(new RetryAnswer({ response }))
        const stored = capture(response)
        if (stored === undefined) return Effect.succeed({ response, stored: false })
        return Effect.as(store.complete(scope, key, claim, stored), { response, stored: true })
      }),
    )
    const exit = yield* Effect.exit(
      uow.transactional(answered).pipe(Effect.onInterrupt(() => forget(scope, key, claim))),
    )
    if (Exit.isSuccess(exit)) {
      if (!exit.value.stored) yield* forget(scope, key, claim)
      return { _tag: "Answered", response: exit.value.response }
    }
    const failure: unknown = exit.cause.reasons.find(Cause.isFailReason)?.error
    if (failure instanceof EventStore.VersionConflict) return { _tag: "Conflicted" }
    yield* forget(scope, key, claim)
    if (failure instanceof RetryAnswer) return { _tag: "Answered", response: failure.response }
    if (failure instanceof EventStore.EventStoreUnavailable)
      return { _tag: "Answered", response: yield* storeUnavailable(failure) }
    return yield* Effect.failCause(exit.cause as Cause.Cause<Types.unhandled>)
  })

  const notLimited = Effect.succeed(undefined)
  const rateLimited = (
    request: HttpServerRequest.HttpServerRequest,
    caller: Option.Option<CallerIdentity>,
  ): Effect.Effect<RateLimit.Decision | undefined> => {
    if (!limits.rateLimiting) return notLimited
    // The load balancer's probes and the metrics scraper are not clients: never limited (nor counted).
    if (request.method === "GET" && probePaths.has(pathOf(request.url))) return notLimited
    const [bucket, rule] = Option.match(caller, {
      // The operator API (/admin, its own bearer token) is not an anonymous client: its own bucket per address,
      // at the partner rate, so an operator's script does not starve POST /auth/token from the same address.
      onNone: () => {
        if (request.url.startsWith("/admin/")) return [`admin:${clientIp(request, limits)}`, limits.partner] as const
        const provider = providerCallbackPaths[pathOf(request.url)]
        return provider === undefined
          ? ([`ip:${clientIp(request, limits)}`, limits.anonymous] as const)
          : ([`provider:${provider}:${clientIp(request, limits)}`, limits.providerCallbacks] as const)
      },
      onSome: (c) => [scopeOf(c), c._tag === "Partner" ? limits.partner : limits.customer] as const,
    })
    return Effect.map(Clock.currentTimeMillis, (now) => limiter.take(bucket, rule, now))
  }

  /** POST, PUT, PATCH, DELETE: buffer the body once (the route's decoder reads the same cached bytes), so that an oversized body is a 413 whatever reads it first. */
  const withBody = Effect.fnUntraced(
    function* (request: HttpServerRequest.HttpServerRequest, caller: Option.Option<CallerIdentity>, app: App) {
      const read = yield* Effect.result(request.arrayBuffer)
      if (read._tag === "Failure") {
        const reason = read.failure.reason
        return yield* respond(
          reason._tag === "RequestParseError" && reason.reason === "BodyTooLarge"
            ? tooLarge(limits.maxBodyBytes)
            : new Problem.BadRequest({
                detail: "The request body could not be read.",
                code: "BAD_REQUEST",
                errors: [{ field: "body", message: "could not be read" }],
              }),
        )
      }
      const body = new Uint8Array(read.success)
      // One byte scan per body; only a flagged body is parsed, to name its fields.
      if (UnstorableText.containsUnstorable(body))
        return yield* respond(unstorableRefused(UnstorableText.unstorableFields(body)))
      return yield* idempotent(request, caller, body, app)
    },
    Effect.provideService(HttpIncomingMessage.MaxBodySize, maxBodySize),
  )

  /** Unstorable text in the path or query, the body size, then the body and idempotency (rate limiting done). */
  const checked = (request: HttpServerRequest.HttpServerRequest, caller: Option.Option<CallerIdentity>, app: App) => {
    const inUrl = UnstorableText.unstorableInUrl(request.url)
    if (inUrl !== undefined) return respond(unstorableRefused([inUrl]))
    const declared = Number(request.headers["content-length"] ?? "0")
    if (Number.isFinite(declared) && declared > limits.maxBodyBytes) return respond(tooLarge(limits.maxBodyBytes))
    if (methodsWithoutBody.has(request.method)) return app
    return withBody(request, caller, app)
  }

  /** The caller's partner's pinned version; the latest for a caller without a valid token. */
  const ownVersion = (caller: Option.Option<CallerIdentity>): Effect.Effect<string> =>
    Option.match(caller, {
      onNone: () => Effect.succeed(ApiVersions.latest),
      onSome: (c) => pins.versionOf(c.partnerId, ApiVersions.latest),
    })

  /** The version the caller asked for, else its partner's pinned one; undefined for a header naming none. */
  const versionOf = (
    request: HttpServerRequest.HttpServerRequest,
    caller: Option.Option<CallerIdentity>,
  ): Effect.Effect<string | undefined> => {
    const named = request.headers[versionHeader]
    if (named !== undefined) return Effect.succeed(ApiVersions.isKnown(named) ? named : undefined)
    return ownVersion(caller)
  }

  /** The route's answer, in the shape of `version` when an operation it concerns changed since. */
  const inVersion = Effect.fnUntraced(function* (
    request: HttpServerRequest.HttpServerRequest,
    version: string,
    app: App,
  ) {
    const response = yield* app
    const path = pathOf(request.url)
    if (
      version === ApiVersions.latest ||
      response.body._tag !== "Uint8Array" ||
      !response.body.contentType.startsWith("application/json") ||
      !ApiVersions.concerns(version, request.method, path)
    )
      return response
    const body = JSON.parse(new TextDecoder().decode(response.body.body)) as unknown
    return HttpServerResponse.setBody(
      response,
      HttpBody.jsonUnsafe(ApiVersions.downgrade(version, request.method, path, body)),
    )
  })

  const guarded = Effect.fnUntraced(function* (route: App) {
    const request = yield* HttpServerRequest.HttpServerRequest
    const token = bearerToken(request.headers.authorization)
    const outcome = token === undefined ? undefined : yield* Effect.result(tokens.verify(token))
    const caller: Option.Option<CallerIdentity> =
      outcome !== undefined && outcome._tag === "Success" ? Option.some(outcome.success) : Option.none()
    // A partner's request from here on: what the storage adapters read and write is that partner's.
    return yield* caller._tag === "Some"
      ? Effect.provideService(
          scoped(route, request, token, outcome, caller),
          Tenancy.CurrentPartner,
          caller.value.partnerId,
        )
      : scoped(route, request, token, outcome, caller)
  })

  const scoped = Effect.fnUntraced(function* (
    route: App,
    request: HttpServerRequest.HttpServerRequest,
    token: string | undefined,
    outcome: BearerVerification["outcome"] | undefined,
    caller: Option.Option<CallerIdentity>,
  ) {
    const version = yield* versionOf(request, caller)
    // Problems in the caller's version, whichever step answers them; a header naming none: its own version's.
    const problemVersion = version ?? (yield* ownVersion(caller))
    if (ApiVersions.concernsProblems(problemVersion))
      yield* Effect.withFiber((fiber) => {
        HttpEffect.appendPreResponseHandlerUnsafe(fiber.context, problemsIn(problemVersion))
        return Effect.void
      })
    if (version === undefined) return yield* respond(unknownVersion(request.headers[versionHeader] ?? ""))
    yield* Effect.withFiber((fiber) => {
      HttpEffect.appendPreResponseHandlerUnsafe(fiber.context, (_request, response) =>
        Effect.succeed(HttpServerResponse.setHeader(response, ApiVersions.header, version)),
      )
      return Effect.void
    })
    return yield* inVersion(request, version, afterVersion(route, request, token, outcome, caller))
  })

  const afterVersion = Effect.fnUntraced(function* (
    route: App,
    request: HttpServerRequest.HttpServerRequest,
    token: string | undefined,
    outcome: BearerVerification["outcome"] | undefined,
    caller: Option.Option<CallerIdentity>,
  ) {
    // The access line names the partner (RequestRecord.ts).
    if (caller._tag === "Some") {
      const record = yield* CurrentRequestRecord
      if (record !== undefined) record.partnerId = caller.value.partnerId
    }
    // This request's route reuses the outcome (Authentication middleware) instead of verifying again.
    const app =
      token === undefined || outcome === undefined
        ? route
        : Effect.provideService(route, CurrentBearerVerification, { token, outcome })
    const decision = yield* rateLimited(request, caller)
    if (decision === undefined) return yield* checked(request, caller, app)
    // On whatever answer leaves, even one made from a failure further out (an unknown route's 404).
    yield* Effect.withFiber((fiber) => {
      HttpEffect.appendPreResponseHandlerUnsafe(fiber.context, quotaHeaders(decision))
      return Effect.void
    })
    if (!decision.allowed) return yield* respond(Problem.tooManyRequests(decision.retryAfterSeconds))
    return yield* checked(request, caller, app)
  })

  return (route: App): App => guarded(route) as App
})

/** The global router middleware; requires `Tokens` and `IdempotencyStore` (limits: `HttpLimits`). */
export const layer = HttpRouter.middleware(make, { global: true })

// ---------------------------------------------------------------------------
// OpenAPI

const problemContent = (schema: string) => ({
  "application/problem+json": { schema: { $ref: `#/components/schemas/${schema}` } },
})

/**
 * Documents the cross-cutting behaviour in the OpenAPI document: the
 * `Idempotency-Key` header on every POST (except /auth/token) with its 409 and
 * 422 answers, and 413/429 on every operation. Registered on the API with
 * `OpenApi.annotations({ transform: openApiTransform })`.
 */
type JsonObject = { [key: string]: unknown }
const isObject = (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)
const objectAt = (parent: JsonObject, key: string): JsonObject => {
  const value = parent[key]
  if (isObject(value)) return value
  const created: JsonObject = {}
  parent[key] = created
  return created
}

/** The `Partnerpay-Version` request header, on every operation. */
const versionParameter = {
  name: ApiVersions.header,
  in: "header",
  required: false,
  description:
    "The dated API version the request is written for (docs/api/versions.md); without it, the partner's own version, pinned to the latest at its first call. Every answer names the version it was given in (header Partnerpay-Version). A version that does not exist is 400.",
  schema: { type: "string", enum: ApiVersions.versions.map((v) => v.version) },
}

export const openApiTransform = (spec: JsonObject): JsonObject => {
  const schemas = objectAt(objectAt(spec, "components"), "schemas")
  const has = (name: string) => Object.hasOwn(schemas, name)
  // The bearer token is a JWT (interface section 5); the OpenAPI 3.1 schema only accepts
  // bearerFormat with the scheme written "bearer" (schemes are case-insensitive).
  for (const [name, scheme] of Object.entries(objectAt(objectAt(spec, "components"), "securitySchemes"))) {
    if (isObject(scheme) && scheme.type === "http" && String(scheme.scheme).toLowerCase() === "bearer") {
      scheme.scheme = "bearer"
      scheme.bearerFormat = "JWT"
      // The bearer token is the rule; an operation that needs none says so itself (`security: []`).
      spec.security = [{ [name]: [] }]
    }
  }
  for (const [path, item] of Object.entries(objectAt(spec, "paths"))) {
    if (!isObject(item)) continue
    for (const [method, operation] of Object.entries(item)) {
      if (!isObject(operation) || !isObject(operation.responses)) continue
      const responses = operation.responses
      if (responses["429"] === undefined && has("TooManyRequests")) {
        responses["429"] = {
          description: "Too many requests (see Retry-After)",
          content: problemContent("TooManyRequests"),
        }
      }
      operation.parameters = [
        ...(Array.isArray(operation.parameters) ? (operation.parameters as ReadonlyArray<unknown>) : []),
        versionParameter,
      ]
      if (method !== "post" || idempotencyExempt.has(path)) continue
      const parameters = Array.isArray(operation.parameters) ? (operation.parameters as ReadonlyArray<unknown>) : []
      operation.parameters = [
        ...parameters.filter((p) => !(isObject(p) && p.in === "header" && p.name === idempotencyHeader)),
        {
          name: idempotencyHeader,
          in: "header",
          required: false,
          description:
            "Makes a retry safe: the same key with the same request replays the first response for 24 hours " +
            "(header Idempotent-Replayed: true); the same key with a different request is 422 " +
            "IDEMPOTENCY_KEY_REUSED; while the first request runs, 409 IDEMPOTENCY_REQUEST_IN_PROGRESS. " +
            "Keys are scoped to the caller; 5xx responses are not stored.",
          schema: { type: "string", minLength: 1, maxLength: maxIdempotencyKeyLength },
        },
      ]
      if (responses["409"] === undefined && has("ConcurrentModification")) {
        responses["409"] = {
          description: "IDEMPOTENCY_REQUEST_IN_PROGRESS",
          content: problemContent("ConcurrentModification"),
        }
      }
      if (responses["422"] === undefined && has("RuleViolation")) {
        responses["422"] = { description: "IDEMPOTENCY_KEY_REUSED", content: problemContent("RuleViolation") }
      }
    }
  }
  return spec
}
