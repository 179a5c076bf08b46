/**
 * The Stripe client shared by the Stripe adapters (the card processor and its
 * charger, `StripeCardProcessor.ts`; the webhooks, `StripeWebhooks.ts`), on
 * Stripe's official Node SDK `stripe`.
 *
 * The API version is pinned (`apiVersion`): the SDK's own, so that the types
 * the contract tests check the requests against are those of the answers.
 * `baseUrl` (PARTNERPAY_STRIPE_BASE_URL) sends every call to one address
 * instead of api.stripe.com: the tests' local fake, or an egress proxy. Each
 * call waits at most `timeoutMillis`; the SDK does not retry (the caller or
 * the workers do; every write carries an Idempotency-Key, so a retry never
 * charges or refunds twice).
 *
 * Failures are sorted once here: a card error (`StripeCardError`) is a
 * decline with Stripe's decline code; another 4xx answer is a `StripeRefusal`
 * (its status, type and code, never the values sent); anything else (5xx,
 * timeout, connection, 401: credentials, 429) is `ProviderUnavailable`, whose
 * reason names the operation and Stripe's error code, never a key.
 */
import { Providers, Traced } from "@partnerpay/domain"
import { Effect, type Redacted, Redacted as RedactedValue } from "effect"
import Stripe from "stripe"
import * as Metrics from "../observability/Metrics.ts"

/** The API version every call is made with (the installed SDK's: its types describe these answers). */
export const apiVersion = "2026-10-28.endive" as const satisfies Stripe.LatestApiVersion

/** The Stripe account and what the adapters need of it. */
export interface StripeConfig {
  /** The secret API key (`sk_...` or a restricted `rk_...`). */
  readonly secretKey: Redacted.Redacted<string>
  /** The webhook endpoint's signing secret (`whsec_...`): Stripe-Signature is checked with it. */
  readonly webhookSecret: Redacted.Redacted<string>
  /** Every call to this base URL instead of api.stripe.com (tests, proxies). */
  readonly baseUrl?: string | undefined
  readonly timeoutMillis: number
}

export const provider = "Stripe"

/** Stripe answered a 4xx other than a card error. */
export interface StripeRefusal {
  readonly _tag: "StripeRefusal"
  readonly status: number
  readonly type: string
  readonly code: string
  /** The parameter Stripe names (e.g. `payment_method`), never its value. */
  readonly param?: string | undefined
}

/** The card was declined: Stripe's decline code (or error code) and its message. */
export interface StripeDecline {
  readonly _tag: "StripeDecline"
  readonly code: string
  readonly reason: string
  /** The PaymentIntent the error is about, when Stripe names it (its id and client secret only). */
  readonly paymentIntent?: { readonly id: string; readonly clientSecret: string } | undefined
}

/** The Stripe SDK client for `config` (API version pinned, no retries, each call bounded by the timeout). */
export const client = (config: StripeConfig): Stripe => {
  const base = config.baseUrl === undefined ? undefined : new URL(config.baseUrl)
  return new Stripe(RedactedValue.value(config.secretKey), {
    apiVersion,
    maxNetworkRetries: 0,
    timeout: config.timeoutMillis,
    telemetry: false,
    appInfo: { name: "partnerpay" },
    ...(base === undefined
      ? {}
      : {
          host: base.hostname,
          port: base.port === "" ? (base.protocol === "https:" ? 443 : 80) : Number(base.port),
          protocol: base.protocol === "https:" ? "https" : "http",
        }),
  })
}

const isStripeError = (thrown: unknown): thrown is Stripe.errors.StripeError =>
  thrown instanceof Stripe.errors.StripeError

/** A card error as a decline; undefined for anything else. */
export const declineOf = (thrown: unknown): StripeDecline | undefined =>
  isStripeError(thrown) && thrown.type === "StripeCardError"
    ? {
        _tag: "StripeDecline",
        code: thrown.decline_code ?? thrown.code ?? "card_declined",
        reason: thrown.message,
        ...(typeof thrown.payment_intent?.id === "string" && typeof thrown.payment_intent.client_secret === "string"
          ? { paymentIntent: { id: thrown.payment_intent.id, clientSecret: thrown.payment_intent.client_secret } }
          : {}),
      }
    : undefined

const refusalOf = (thrown: unknown): StripeRefusal | undefined => {
  if (!isStripeError(thrown)) return undefined
  const status = thrown.statusCode
  if (status === undefined || status < 400 || status >= 500 || status === 401 || status === 429) return undefined
  return {
    _tag: "StripeRefusal",
    status,
    type: thrown.type,
    code: thrown.code ?? "unknown",
    param: thrown.param,
  }
}

/** `ProviderUnavailable` for an operation that failed (never a body, a value or a key). */
export const unavailable = (operation: string, thrown: unknown) => {
  const status = isStripeError(thrown) ? thrown.statusCode : undefined
  const code = isStripeError(thrown) ? (thrown.code ?? thrown.type) : undefined
  return new Providers.ProviderUnavailable({
    provider,
    reason: `${operation}: ${
      status === undefined ? "no answer (timeout or connection error)" : `Stripe answered ${status} (${code})`
    }`,
  })
}

/**
 * One Stripe call: its result; a decline or a 4xx is given to `refused` (which may turn it into the port's
 * refusal, or into `ProviderUnavailable`), anything else is `ProviderUnavailable`.
 */
export const call = <A, E = Providers.ProviderUnavailable>(
  operation: string,
  run: () => Promise<A>,
  refused: (refusal: StripeRefusal | StripeDecline) => E | Providers.ProviderUnavailable = () =>
    new Providers.ProviderUnavailable({ provider, reason: `${operation}: refused by Stripe` }),
): Effect.Effect<A, E | Providers.ProviderUnavailable> =>
  Effect.tryPromise({
    try: run,
    catch: (thrown) => {
      const refusal = declineOf(thrown) ?? refusalOf(thrown)
      if (refusal === undefined) return unavailable(operation, thrown)
      const mapped = refused(refusal)
      return mapped instanceof Providers.ProviderUnavailable ? unavailable(operation, thrown) : mapped
    },
  }).pipe(Metrics.countProviderCall(provider, operation), Traced.withSpan(`Stripe.${operation}`))

/** The id of an expandable field (a string, or the expanded object's id). */
export const idOf = (field: string | { readonly id: string } | null | undefined): string | undefined =>
  field === null || field === undefined ? undefined : typeof field === "string" ? field : field.id
