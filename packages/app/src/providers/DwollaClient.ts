/**
 * The Dwolla client shared by the Dwolla adapters (KYB as verified business
 * customers, money movement as transfers), on Dwolla's official TypeScript
 * SDK `dwolla` (generated from the same OpenAPI document the contract tests
 * check against; docs/providers.md says why it and not `dwolla-v2`).
 *
 * Authentication is the SDK's OAuth client-credentials flow (`POST /token`
 * with the application's key and secret, the token cached by the SDK until it
 * expires). `baseUrl` (PARTNERPAY_DWOLLA_BASE_URL) sends every call, the token
 * included, to one address instead of Dwolla's hosts: the tests' local fake,
 * or an egress proxy. Each call waits at most `timeoutMillis`; the SDK does not
 * retry (the workers do, on their next round).
 *
 * Failures are sorted once here: an answer of Dwolla with a 4xx status is a
 * `DwollaRefusal` (its status and Dwolla's error code, e.g. `ValidationError`,
 * and the paths of the invalid fields, never their values); anything else (5xx,
 * timeout, connection, a 401 on the token: credentials) is
 * `ProviderUnavailable`, whose reason names the operation and Dwolla's error
 * code, never a credential or personal data.
 */
import { Providers, Traced } from "@partnerpay/domain"
import { Dwolla } from "dwolla"
import { ServerList } from "dwolla/lib/config.js"
import { DwollaError } from "dwolla/models/errors"
import { Effect, Redacted } from "effect"
import * as Metrics from "../observability/Metrics.ts"

/** The Dwolla application and what the adapters need of it. */
export interface DwollaConfig {
  /** The application's key (client id). */
  readonly key: string
  readonly secret: Redacted.Redacted<string>
  /** Dwolla's environment: `sandbox` (api-sandbox.dwolla.com) or `production` (api.dwolla.com). */
  readonly environment: "sandbox" | "production"
  /** Every call to this base URL instead of the environment's (tests, proxies). */
  readonly baseUrl?: string | undefined
  /** The secret of the webhook subscription (X-Request-Signature-SHA-256). */
  readonly webhookSecret: Redacted.Redacted<string>
  /** During a roll: the replaced subscription's secret, still accepted until unset. */
  readonly previousWebhookSecret?: Redacted.Redacted<string> | undefined
  /** This service's public webhook URL: the subscription is created at start when missing. */
  readonly webhookUrl?: string | undefined
  /** The business classification of new business customers (Dwolla's id; GET /business-classifications). */
  readonly businessClassification?: string | undefined
  /** The platform's own funding source (its settlement account): payouts come from it, debits go to it. */
  readonly masterFundingSource?: string | undefined
  readonly timeoutMillis: number
}

export const provider = "Dwolla"

/**
 * Dwolla answered a 4xx: its status, its error code, the paths of the fields it refused, and the resource
 * it names (`_links.about`: the existing one of a `DuplicateResource`).
 */
export interface DwollaRefusal {
  readonly _tag: "DwollaRefusal"
  readonly status: number
  readonly code: string
  readonly paths: ReadonlyArray<string>
  /**
   * Dwolla's own words: its top-level `message` and those of its embedded errors (e.g. "Receiver
   * exceeds weekly limit."), for the refusal's reason. Dwolla's messages name rules, not the values sent.
   */
  readonly messages: ReadonlyArray<string>
  readonly about?: string | undefined
}

/** The base URL of `config`: the override, or the environment's host. */
export const baseUrlOf = (config: DwollaConfig): string =>
  config.baseUrl ?? (config.environment === "production" ? ServerList.prod : ServerList.sandbox)

/** The Dwolla SDK client for `config` (no retries; each call bounded by the timeout). */
export const client = (config: DwollaConfig): Dwolla =>
  new Dwolla({
    security: { clientID: config.key, clientSecret: Redacted.value(config.secret) },
    serverURL: baseUrlOf(config),
    timeoutMs: config.timeoutMillis,
    retryConfig: { strategy: "none" },
  })

const refusalOf = (thrown: unknown): DwollaRefusal | undefined => {
  if (!(thrown instanceof DwollaError) || thrown.statusCode < 400 || thrown.statusCode >= 500) return undefined
  let body: {
    code?: unknown
    message?: unknown
    _embedded?: { errors?: Array<{ path?: unknown; message?: unknown }> }
    _links?: { about?: { href?: unknown } }
  } = {}
  try {
    body = JSON.parse(thrown.body) as typeof body
  } catch {
    // Not JSON: the status alone.
  }
  return {
    _tag: "DwollaRefusal",
    status: thrown.statusCode,
    code: typeof body.code === "string" ? body.code : "unknown",
    paths: (body._embedded?.errors ?? []).flatMap((error) => (typeof error.path === "string" ? [error.path] : [])),
    messages: [
      ...(typeof body.message === "string" ? [body.message] : []),
      ...(body._embedded?.errors ?? []).flatMap((error) => (typeof error.message === "string" ? [error.message] : [])),
    ],
    about: typeof body._links?.about?.href === "string" ? body._links.about.href : undefined,
  }
}

/** `ProviderUnavailable` for an operation that failed (never a body, a value or a credential). */
export const unavailable = (operation: string, thrown: unknown) => {
  const refusal = refusalOf(thrown)
  const status = thrown instanceof DwollaError ? thrown.statusCode : undefined
  return new Providers.ProviderUnavailable({
    provider,
    reason: `${operation}: ${
      status === undefined
        ? "no answer (timeout or connection error)"
        : `Dwolla answered ${status} (${refusal?.code ?? "no error code"})`
    }`,
  })
}

/**
 * One Dwolla call: its result; a 4xx is given to `refused` (which may turn it into the port's refusal, or
 * into `ProviderUnavailable`), anything else is `ProviderUnavailable`.
 */
export const call = <A, E = Providers.ProviderUnavailable>(
  operation: string,
  run: () => Promise<A>,
  refused: (refusal: DwollaRefusal) => E | Providers.ProviderUnavailable = () =>
    new Providers.ProviderUnavailable({ provider, reason: `${operation}: refused by Dwolla` }),
): Effect.Effect<A, E | Providers.ProviderUnavailable> =>
  Effect.tryPromise({
    try: run,
    catch: (thrown) => {
      const refusal = refusalOf(thrown)
      if (refusal === undefined || refusal.status === 401) return unavailable(operation, thrown)
      const mapped = refused(refusal)
      return mapped instanceof Providers.ProviderUnavailable ? unavailable(operation, thrown) : mapped
    },
  }).pipe(Metrics.countProviderCall(provider, operation), Traced.withSpan(`Dwolla.${operation}`))

/** The id at the end of a resource's URL (`Location` header, `_links.*.href`). */
export const idOf = (location: string): string => location.replace(/\/+$/, "").split("/").pop() ?? location

/** The `Location` header of a 201 answer (the created resource's URL). */
export const locationOf = (answer: { readonly headers: Record<string, ReadonlyArray<string>> } | undefined) => {
  const headers = answer?.headers ?? {}
  const found = Object.entries(headers).find(([name]) => name.toLowerCase() === "location")
  return found?.[1][0]
}
