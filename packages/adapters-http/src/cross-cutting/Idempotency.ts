/**
 * Idempotency (`Idempotency-Key` header on POST, except POST /auth/token), the last step before
 * the route: the first request with a key runs and its response (status, content type, body) is
 * stored for 24 h in the `IdempotencyStore`; the same key with the same method, path and body
 * replays it (header `Idempotent-Replayed: true`); with a different request -> 422
 * IDEMPOTENCY_KEY_REUSED; while the first is still running -> 409 IDEMPOTENCY_REQUEST_IN_PROGRESS
 * (`Retry-After: 1`). Keys are scoped per caller; a request without a valid token is passed on
 * untouched (the route answers 401). The request holding a key runs as ONE unit of work (its use
 * cases' units join it) whose commit also stores the answer: a committed request always has its
 * answer stored, even if the process dies before the client reads it, and a request that did not
 * commit leaves the key free (a key whose process died is free within seconds, see the store). A
 * conflict at commit runs the request again (at most 3 times) as the same holder, unless another
 * request took the key meanwhile. Answers that tell the client to retry (5xx, 429, 409
 * CONCURRENT_MODIFICATION / IDEMPOTENCY_REQUEST_IN_PROGRESS) commit nothing and are not stored
 * (the key stays usable). An empty key or one longer than 255 characters -> 400.
 */
import { createHash } from "node:crypto"
import { CommandHandler, EventStore, type IdempotencyStore, type UnitOfWork } from "@partnerpay/domain"
import { Cause, Data, DateTime, Effect, Exit, Option, type Types } from "effect"
import { HttpServerResponse } from "effect/http"
import type { CallerIdentity } from "./Caller.ts"
import { scopeOf } from "./CallerResolution.ts"
import * as Problem from "./Problem.ts"
import { correlationIdOf } from "./RequestRecord.ts"
import { type App, type Handler, type Incoming, respond, type Step } from "./RequestSteps.ts"

/** The idempotency request header (case-insensitive on the wire). */
export const idempotencyHeader = "Idempotency-Key"
export const maxIdempotencyKeyLength = 255

/** The POST operations exempt from idempotency handling: obtaining a token is not a side effect worth replaying (and a stored token would outlive its purpose). */
export const idempotencyExempt: ReadonlySet<string> = new Set(["/auth/token"])

/** SHA-256 over method, path (with query) and the raw body bytes. */
export const requestHash = (method: string, url: string, body: Uint8Array): string =>
  createHash("sha256").update(`${method}\n${url}\n`).update(body).digest("hex")

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

const storeUnavailable = (_: EventStore.EventStoreUnavailable) =>
  respond(
    new Problem.ServiceUnavailable({
      detail: "The service is temporarily unavailable; retry later.",
      code: "SERVICE_UNAVAILABLE",
    }),
  )

/** The step, storing answers in `store` within units of work of `uow`. */
export const step =
  (store: IdempotencyStore.IdempotencyStore["Service"], uow: UnitOfWork.UnitOfWork["Service"]): Step =>
  (next: Handler): Handler => {
    /** Runs the request under `key`, holding it (or answers what the key already says). */
    const idempotent = Effect.fnUntraced(function* (
      incoming: Incoming,
      caller: CallerIdentity,
      key: string,
      app: App,
    ): Effect.fn.Return<HttpServerResponse.HttpServerResponse, Types.unhandled> {
      const { request } = incoming
      const scope = scopeOf(caller)
      const hash = requestHash(request.method, request.url, incoming.body)
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

    return (incoming) => {
      const { request } = incoming
      if (request.method !== "POST" || idempotencyExempt.has(incoming.path)) return next(incoming)
      const key = request.headers["idempotency-key"]
      if (key === undefined) return next(incoming)
      if (key.length === 0 || key.length > maxIdempotencyKeyLength) {
        return respond(
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
      if (Option.isNone(incoming.caller)) return next(incoming)
      return idempotent(incoming, incoming.caller.value, key, next(incoming))
    }
  }
