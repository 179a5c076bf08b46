/**
 * The outbound HTTP bridge: how partnerpay calls an operator's provider
 * service (docs/providers.md is the contract a bridge implements).
 *
 * Each call is `POST <url>/<operation>` with a JSON body and these headers:
 * - `Content-Type: application/json`
 * - `X-Partnerpay-Timestamp`: Unix time in seconds when the attempt was signed
 * - `X-Partnerpay-Signature: sha256=<hex>`: HMAC-SHA256, keyed with the
 *   bridge's secret, of `<timestamp>.<exact body bytes>`
 * - `X-Partnerpay-Request-Id`: one UUID per call, the same on every retry
 *   (the provider's idempotency key: a retried call must not act twice)
 * - `X-Partnerpay-Attempt`: 1, 2, ...
 *
 * An attempt that gets no answer within the timeout, cannot connect, or gets
 * a 5xx is retried (at most `retries` times, exponential backoff with
 * jitter); any other answer is final. A 2xx or 4xx answer must be JSON; the
 * port adapters decode it with their Schemas (`decodeAnswer`). Every failure
 * the caller cannot act on is the domain's `ProviderUnavailable`, with a
 * reason that names the operation and never quotes the provider's body.
 */

import { randomUUID } from "node:crypto"
import { Providers, Traced } from "@partnerpay/domain"
import { Hmac } from "@partnerpay/secrets"
import { type Context, Effect, Layer, Redacted, Schedule, Schema, type SchemaIssue } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import * as Metrics from "../observability/Metrics.ts"

/** Where one port's bridge lives and how it is called. */
export interface BridgeConfig {
  /** Base URL (http or https); the operation is appended as a path segment. */
  readonly url: string
  /** Keys the request signatures (at least 32 characters). */
  readonly secret: Redacted.Redacted<string>
  /** Per attempt (default 10 s). */
  readonly timeoutMillis: number
  /** Retries after the first attempt, on timeouts, connection errors and 5xx (default 2). */
  readonly retries: number
}

export const defaultTimeoutMillis = 10_000
export const defaultRetries = 2
/** The first retry waits about this long; each next one twice as long (with jitter). */
export const defaultBackoffMillis = 200

/** The answer to a call, once it is final: its status (2xx or 4xx) and its JSON body. */
export interface Answer {
  readonly status: number
  readonly body: unknown
}

/** One port's bridge: `call` posts an operation and returns its final answer. */
export interface Bridge {
  /** The provider's name in errors and logs (e.g. "KYC provider"). */
  readonly provider: string
  readonly call: (operation: string, body: unknown) => Effect.Effect<Answer, Providers.ProviderUnavailable>
}

/** The value of `X-Partnerpay-Signature` for a timestamp and body (what a bridge recomputes). */
export const signature = (secret: Redacted.Redacted<string>, timestamp: string, body: string): string =>
  `sha256=${Hmac.sha256Hex(Redacted.value(secret), `${timestamp}.${body}`)}`

/** A failed attempt worth retrying (its reason says why). */
class Retryable extends Schema.TaggedError<Retryable>()("Retryable", { reason: Schema.String }) {}

const joinUrl = (base: string, operation: string) => `${base.replace(/\/+$/, "")}/${operation}`

/** One warning line per failed call: the provider and the reason (never a body). */
const logFailure = (provider: string, error: Providers.ProviderUnavailable) =>
  Effect.logWarning("provider call failed", { provider, reason: error.reason })

/** Builds a bridge on the `HttpClient` in context. */
export const make = Traced.fn("HttpBridge.make")(function* (
  provider: string,
  config: BridgeConfig,
  options: { readonly backoffMillis?: number } = {},
): Effect.fn.Return<Bridge, never, HttpClient.HttpClient> {
  const client = yield* HttpClient.HttpClient
  const backoff = options.backoffMillis ?? defaultBackoffMillis
  const unavailable = (operation: string, reason: string) =>
    new Providers.ProviderUnavailable({ provider, reason: `${operation}: ${reason}` })

  const attempt = Traced.fn("HttpBridge.attempt")(
    function* (operation: string, body: string, requestId: string, number: number) {
      // Wall-clock time on purpose: the bridge checks it against its own clock (never the sandbox clock).
      const timestamp = String(Math.floor(Date.now() / 1000))
      const request = HttpClientRequest.post(joinUrl(config.url, operation)).pipe(
        HttpClientRequest.setHeaders({
          accept: "application/json",
          "x-partnerpay-timestamp": timestamp,
          "x-partnerpay-signature": signature(config.secret, timestamp, body),
          "x-partnerpay-request-id": requestId,
          "x-partnerpay-attempt": String(number),
        }),
        HttpClientRequest.bodyText(body, "application/json"),
      )
      const response = yield* client
        .execute(request)
        .pipe(Effect.mapError((error) => new Retryable({ reason: `connection failed (${error.reason._tag})` })))
      const text = yield* response.text.pipe(Effect.mapError(() => new Retryable({ reason: "the answer was cut off" })))
      if (response.status >= 500) return yield* new Retryable({ reason: `answered ${response.status}` })
      return { status: response.status, text }
    },
    Effect.timeoutOrElse({
      duration: config.timeoutMillis,
      orElse: () => Effect.fail(new Retryable({ reason: `no answer within ${config.timeoutMillis} ms` })),
    }),
    Effect.scoped,
  )

  const call = Effect.fnUntraced(
    function* (operation: string, payload: unknown) {
      const body = JSON.stringify(payload)
      const requestId = randomUUID()
      let attempts = 0
      const { status, text } = yield* Effect.suspend(() => attempt(operation, body, requestId, ++attempts)).pipe(
        Effect.retry({
          schedule: Schedule.exponential(backoff).pipe(Schedule.jittered),
          times: config.retries,
        }),
        Effect.mapError((error) =>
          unavailable(operation, `${error.reason}${attempts > 1 ? ` (after ${attempts} attempts)` : ""}`),
        ),
      )
      if (status < 200 || (status >= 300 && status < 400)) {
        return yield* unavailable(operation, `unexpected answer ${status}`)
      }
      let json: unknown
      try {
        json = text.trim() === "" ? {} : JSON.parse(text)
      } catch {
        return yield* unavailable(operation, `malformed answer ${status}: not JSON`)
      }
      return { status, body: json }
    },
    (effect, operation) =>
      effect.pipe(
        Effect.tapError((error) => logFailure(provider, error)),
        Metrics.countProviderCall(provider, operation),
        Traced.withSpan("HttpBridge.call", { attributes: { provider, operation } }),
      ),
  )

  return { provider, call }
})

/**
 * Builds a bridge with the fetch-based client. Redirects are not followed: a
 * signed request only goes to the configured URL (a 3xx is an unexpected answer).
 */
export const makeFetch = (provider: string, config: BridgeConfig, options?: { readonly backoffMillis?: number }) =>
  make(provider, config, options).pipe(
    Effect.provide(FetchHttpClient.layer),
    Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" }),
  )

/**
 * Decodes an answer's body with `schema` (extra fields are ignored: providers
 * may add some); an answer that does not match is the provider's fault:
 * `ProviderUnavailable` naming the operation and the first bad field (never
 * its value: answers carry personal data).
 */
export const decodeAnswer =
  <S extends Schema.Top & { readonly DecodingServices: never }>(bridge: Bridge, operation: string, schema: S) =>
  (answer: Answer): Effect.Effect<S["Type"], Providers.ProviderUnavailable> =>
    Schema.decodeUnknownEffect(schema)(answer.body).pipe(
      Effect.mapError(
        (error) =>
          new Providers.ProviderUnavailable({
            provider: bridge.provider,
            reason: `${operation}: malformed answer ${answer.status} (${describeIssue(error.issue)})`,
          }),
      ),
    )

/** Where an answer is wrong, without quoting it: "field a.b: missing" / "field a: wrong type". */
export const describeIssue = (issue: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey> = []): string => {
  const at = path.length === 0 ? "the body" : `field ${path.map(String).join(".")}`
  switch (issue._tag) {
    case "Pointer":
      return describeIssue(issue.issue, [...path, ...issue.path])
    case "Composite":
    case "AnyOf":
      return issue.issues.length > 0 ? describeIssue(issue.issues[0] as SchemaIssue.Issue, path) : `${at}: invalid`
    case "Filter":
    case "Encoding":
      return describeIssue(issue.issue, path)
    case "MissingKey":
      return `${at}: missing`
    case "InvalidType":
      return `${at}: wrong type`
    default:
      return `${at}: invalid value`
  }
}

/** A final answer the port does not expect (a 4xx other than its refusals): the provider's fault. */
export const refused = (bridge: Bridge, operation: string, answer: Answer): Providers.ProviderUnavailable =>
  new Providers.ProviderUnavailable({
    provider: bridge.provider,
    reason: `${operation}: unexpected answer ${answer.status}`,
  })

type Decodable = Schema.Top & { readonly DecodingServices: never }

/** What a port does with a final non-2xx answer of a given status. */
export type Refusals<E> = { readonly [status: number]: (answer: Answer) => Effect.Effect<never, E> }

/**
 * Reads a final answer: a status listed in `refusals` becomes the port's
 * refusal, another 2xx is decoded with `schema`, anything else is the
 * provider's fault (`ProviderUnavailable`).
 */
export const expect =
  <S extends Decodable, E = never>(bridge: Bridge, operation: string, schema: S, refusals: Refusals<E> = {}) =>
  (answer: Answer): Effect.Effect<S["Type"], E | Providers.ProviderUnavailable> => {
    const refusal = refusals[answer.status]
    const read: Effect.Effect<S["Type"], E | Providers.ProviderUnavailable> =
      refusal !== undefined
        ? refusal(answer)
        : answer.status >= 200 && answer.status < 300
          ? decodeAnswer(bridge, operation, schema)(answer)
          : Effect.fail(refused(bridge, operation, answer))
    return Effect.tapError(read, (error) =>
      error instanceof Providers.ProviderUnavailable ? logFailure(bridge.provider, error) : Effect.void,
    )
  }

/** A refusal whose body is decoded with `schema` and turned into the port's error. */
export const refusal =
  <S extends Decodable, E>(bridge: Bridge, operation: string, schema: S, toError: (body: S["Type"]) => E) =>
  (answer: Answer): Effect.Effect<never, E | Providers.ProviderUnavailable> =>
    Effect.flatMap(decodeAnswer(bridge, operation, schema)(answer), (body) => Effect.fail(toError(body)))

/** Runs a port adapter on a fetch-based bridge. */
export const layer = <I, S>(
  tag: Context.Key<I, S>,
  provider: string,
  config: BridgeConfig,
  adapter: (bridge: Bridge) => S,
): Layer.Layer<I> => Layer.effect(tag, Effect.map(makeFetch(provider, config), adapter))
