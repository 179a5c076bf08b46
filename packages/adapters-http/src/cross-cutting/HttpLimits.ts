/**
 * The limits the cross-cutting steps enforce (body size, rate limits per kind of caller, the trusted
 * proxies that name the client's address), and the paths they treat apart: the probes (never
 * limited) and the providers' callbacks (a generous class of their own per provider and address).
 * `defaultLimits` unless a layer provides others (`layerLimits`).
 */
import { Context, Layer } from "effect"
import type { HttpServerRequest } from "effect/http"
import * as ClientAddress from "./ClientAddress.ts"
import type * as RateLimit from "./RateLimit.ts"

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

/** The unauthenticated probes and metrics, exempt from rate limits (a load balancer checks them often). */
export const probePaths: ReadonlySet<string> = new Set(["/livez", "/readyz", "/metrics"])

/** The limits in force; `defaultLimits` unless a layer provides others (e.g. `layerLimits`). */
export const HttpLimits = Context.Reference<Limits>("partnerpay/adapters-http/HttpLimits", {
  defaultValue: () => defaultLimits,
})

/** Provides limits (fields not given keep their default). */
export const layerLimits = (limits: Partial<Limits>): Layer.Layer<never> =>
  Layer.succeed(HttpLimits, { ...defaultLimits, ...limits }) as Layer.Layer<never>

/**
 * The client's address as limits key it: the socket peer's, or behind the trusted proxies the
 * address they received the request from (`X-Forwarded-For` walked from the right); an IPv6
 * client is its /64 (`ClientAddress.ts`).
 */
export const clientIp = (request: HttpServerRequest.HttpServerRequest, limits: Limits): string =>
  ClientAddress.clientKey(request.peerAddress, request.headers["x-forwarded-for"], limits.trustedProxies)
