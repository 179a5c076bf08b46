/**
 * The Twilio client shared by the Twilio adapters (Verify for one-time codes,
 * Messaging for SMS), on the official `twilio` SDK.
 *
 * `baseUrl` (PARTNERPAY_TWILIO_BASE_URL) sends every Twilio API call to one
 * address instead of Twilio's hosts (`https://verify.twilio.com/v2/...` ->
 * `<baseUrl>/v2/...`): the contract tests' local fake, or an egress proxy.
 * Each call waits at most `timeoutMillis`; the SDK does not retry (the
 * callers' workers do). Failures are sorted once here: an answer of Twilio
 * with a 4xx status is the `RestException` the adapter maps to the port's
 * refusal; anything else (5xx, timeout, connection) is `ProviderUnavailable`,
 * whose reason names the operation and Twilio's error code, never a phone
 * number or a credential.
 */
import { Providers, Traced } from "@partnerpay/domain"
import { Effect, Redacted } from "effect"
import twilio from "twilio"
import type RequestClient from "twilio/lib/base/RequestClient.js"
import * as Metrics from "../observability/Metrics.ts"

/** The Twilio account and what each adapter needs of it. */
export interface TwilioConfig {
  readonly accountSid: string
  readonly authToken: Redacted.Redacted<string>
  /** The Verify service of the one-time codes (`VA...`), when OTP is on Twilio. */
  readonly verifyServiceSid?: string | undefined
  /** The Messaging service SMS are sent from (`MG...`), when SMS is on Twilio. */
  readonly messagingServiceSid?: string | undefined
  /** Every API call to this base URL instead of Twilio's hosts (tests, proxies). */
  readonly baseUrl?: string | undefined
  readonly timeoutMillis: number
}

/** A Twilio error answer (4xx): its HTTP status and Twilio's error code. */
export interface TwilioRefusal {
  readonly status: number
  readonly code: number | undefined
}

/** A request client that rewrites Twilio's hosts to `baseUrl`. */
const redirected = (baseUrl: string, timeout: number) => {
  const base = baseUrl.replace(/\/+$/, "")
  class Redirected extends twilio.RequestClient {
    override request<TData>(opts: RequestClient.RequestOptions<TData>) {
      return super.request<TData>({ ...opts, uri: opts.uri.replace(/^https:\/\/[^/]+/, base) })
    }
  }
  return new Redirected({ timeout })
}

/** A Twilio client for `config`. */
export const make = (config: TwilioConfig): twilio.Twilio =>
  twilio(config.accountSid, Redacted.value(config.authToken), {
    timeout: config.timeoutMillis,
    autoRetry: false,
    ...(config.baseUrl === undefined ? {} : { httpClient: redirected(config.baseUrl, config.timeoutMillis) }),
  })

const isRefusal = (error: unknown): error is twilio.RestException =>
  error instanceof twilio.RestException && error.status >= 400 && error.status < 500

/**
 * Runs one Twilio call: its answer, or its 4xx refusal given to `refused` (which fails with the port's
 * error or returns a value), or `ProviderUnavailable`.
 */
export const call = <A, B, E>(
  provider: string,
  operation: string,
  run: () => Promise<A>,
  refused: (refusal: TwilioRefusal) => Effect.Effect<B, E | Providers.ProviderUnavailable>,
): Effect.Effect<A | B, E | Providers.ProviderUnavailable> =>
  Effect.tryPromise({ try: run, catch: (error) => error }).pipe(
    Effect.catch((error) =>
      isRefusal(error)
        ? refused({ status: error.status, code: error.code })
        : Effect.fail(
            new Providers.ProviderUnavailable({
              provider,
              reason: `${operation}: ${
                error instanceof twilio.RestException
                  ? `Twilio answered ${error.status} (error ${error.code ?? "unknown"})`
                  : "no answer (timeout or connection error)"
              }`,
            }),
          ),
    ),
    Metrics.countProviderCall(provider, operation),
    Traced.withSpan(`Twilio.${operation}`),
  )

/** A refusal Twilio should not have given (a bug or a configuration error): unavailable, named by its code. */
export const unexpected =
  (provider: string, operation: string) =>
  (refusal: TwilioRefusal): Effect.Effect<never, Providers.ProviderUnavailable> =>
    Effect.fail(
      new Providers.ProviderUnavailable({
        provider,
        reason: `${operation}: Twilio refused (${refusal.status}, error ${refusal.code ?? "unknown"})`,
      }),
    )
