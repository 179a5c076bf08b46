/**
 * Delivers the outbox's notifications as webhooks.
 *
 * Each poll claims due rows (`OutboxDispatch.claim`: `FOR UPDATE SKIP LOCKED`
 * with a lease, so several instances never deliver the same row at once, and
 * one partner's notifications go out one at a time in commit order) and POSTs
 * to the partner's webhook URL the JSON `{ "Live", "Event", "Data" }` (Live is
 * true only in production) with headers:
 * - `Content-Type: application/json`
 * - `X-Partnerpay-Event-Id`: the notification id (the causing event's id;
 *   stable across retries, for de-duplication: delivery is at least once)
 * - `X-Partnerpay-Delivery-Attempt`: 1, 2, ...
 * - `X-HMAC-Signature: sha256=<hex>`: HMAC-SHA256 of the exact body bytes
 *   with the partner's signing secret, when one is configured.
 * A 2xx answer within 10 s is a delivery; anything else (other status,
 * timeout, connection error, redirect) a failed attempt, retried with
 * exponential backoff and jitter (`retryDelayMillis`) until 72 h after the
 * notification was recorded, then marked failed (an operator can redeliver).
 * A partner without a webhook URL: the notification is marked failed at once.
 * Polls every 200 ms when idle (PGlite has no LISTEN/NOTIFY).
 */
import { createHmac } from "node:crypto"
import { PgOutbox, PgPartnerCredentials } from "@partnerpay/adapters-pg"
import { Ids } from "@partnerpay/domain"
import { DateTime, Effect, Option, Redacted } from "effect"
import { worker } from "./Polling.ts"

export interface DispatcherOptions {
  /** `Live` in the payload: true only in production. */
  readonly live: boolean
  readonly workerId: string
  readonly pollMillis?: number
  readonly timeoutMillis?: number
  readonly batchSize?: number
}

export const deliveryTimeoutMillis = 10_000
export const giveUpAfterMillis = 72 * 60 * 60 * 1000
export const firstRetryMillis = 5_000
export const maxRetryMillis = 60 * 60 * 1000

/**
 * Wait before attempt `failedAttempts + 1`: 5 s * 2^(failedAttempts - 1), at
 * most 1 h, times a random factor in [0.5, 1) ("equal jitter": retries of
 * many notifications failing together spread out).
 */
export const retryDelayMillis = (failedAttempts: number, random: number = Math.random()): number => {
  const nominal = Math.min(maxRetryMillis, firstRetryMillis * 2 ** Math.max(0, failedAttempts - 1))
  return Math.round(nominal * (0.5 + random / 2))
}

/** The signature header value for a body and secret. */
export const sign = (body: string, secret: Redacted.Redacted<string>): string =>
  `sha256=${createHmac("sha256", Redacted.value(secret)).update(body, "utf8").digest("hex")}`

type Entry = PgOutbox.OutboxEntry

const post = (url: string, body: string, headers: Record<string, string>, timeoutMillis: number) =>
  Effect.tryPromise({
    try: async (signal) => {
      const response = await fetch(url, {
        method: "POST",
        body,
        headers,
        redirect: "manual",
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMillis)]),
      })
      // Drain the body so the connection can be reused; its content is ignored.
      await response.arrayBuffer().catch(() => undefined)
      return response.status
    },
    catch: (error) =>
      error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")
        ? `no answer within ${timeoutMillis} ms`
        : `connection failed: ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)}`,
  })

export const layer = (options: DispatcherOptions) =>
  worker(
    "webhook-dispatcher",
    options.pollMillis ?? 200,
    Effect.gen(function* () {
      const dispatch = yield* PgOutbox.OutboxDispatch
      const partners = yield* PgPartnerCredentials.Partners
      const timeoutMillis = options.timeoutMillis ?? deliveryTimeoutMillis
      const claimed = yield* dispatch.claim({
        workerId: options.workerId,
        limit: options.batchSize ?? 10,
        leaseMs: timeoutMillis * 3,
      })
      const deliver = (entry: Entry) =>
        Effect.gen(function* () {
          const webhook = yield* partners.getWebhook(Ids.PartnerId.make(entry.partnerId))
          if (Option.isNone(webhook)) {
            yield* Effect.logWarning("webhook not delivered: the partner has no webhook URL")
            return yield* dispatch.markFailedAttempt(entry.id, "the partner has no webhook URL", "give up")
          }
          const body = JSON.stringify({ Live: options.live, Event: entry.eventType, Data: entry.data })
          const headers: Record<string, string> = {
            "content-type": "application/json",
            "user-agent": "partnerpay-webhooks/1",
            "x-partnerpay-event-id": entry.id,
            "x-partnerpay-delivery-attempt": String(entry.attempts),
          }
          // An empty signing secret means "none configured": no signature header.
          if (Redacted.value(webhook.value.signingSecret) !== "") {
            headers["x-hmac-signature"] = sign(body, webhook.value.signingSecret)
          }
          const started = Date.now()
          const outcome = yield* Effect.result(post(webhook.value.url, body, headers, timeoutMillis))
          const durationMs = Date.now() - started
          if (outcome._tag === "Success" && outcome.success >= 200 && outcome.success < 300) {
            yield* dispatch.markDelivered(entry.id)
            return yield* Effect.logInfo("webhook delivered", { status: outcome.success, durationMs })
          }
          const error = outcome._tag === "Success" ? `the endpoint answered HTTP ${outcome.success}` : outcome.failure
          const now = yield* DateTime.now
          const nextAt = DateTime.add(now, { milliseconds: retryDelayMillis(entry.attempts) })
          const giveUp = DateTime.toEpochMillis(nextAt) - DateTime.toEpochMillis(entry.createdAt) > giveUpAfterMillis
          yield* dispatch.markFailedAttempt(entry.id, error, giveUp ? "give up" : nextAt)
          yield* Effect.logWarning(giveUp ? "webhook failed; giving up" : "webhook attempt failed; will retry", {
            error,
            durationMs,
            ...(giveUp ? {} : { nextAttemptAt: DateTime.formatIso(nextAt) }),
          })
        }).pipe(
          Effect.annotateLogs({
            notificationId: entry.id,
            partnerId: entry.partnerId,
            event: entry.eventType,
            attempt: entry.attempts,
          }),
        )
      yield* Effect.forEach(claimed, deliver, { concurrency: "unbounded", discard: true })
      return claimed.length
    }),
  )
