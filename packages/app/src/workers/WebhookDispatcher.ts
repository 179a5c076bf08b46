/**
 * Delivers the outbox's notifications as webhooks.
 *
 * Each poll claims a batch (`OutboxDispatch.claim`: up to `perPartner` rows
 * of each partner, consecutive in the partner's order, `batchSize` in all;
 * `FOR UPDATE SKIP LOCKED` with a lease, so several instances never deliver
 * the same row at once). Partners are served concurrently (at most
 * `partnerConcurrency` at once); one partner's rows go out one at a time, in
 * order: after a failed attempt the partner's remaining rows of the batch are
 * released unattempted (they wait behind the retrying row), and no new row is
 * started once the batch is `timeoutMillis` old, so every attempt ends within
 * the lease (3 x timeout). The rows delivered are marked in one statement at
 * the end of the batch (also on interruption). Requests go through
 * keep-alive agents (node:http/https), so a partner's deliveries reuse one
 * connection.
 *
 * Each POST to the partner's webhook URL carries the JSON
 * `{ "Live", "Event", "Data" }` (Live is true only in production) with headers:
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
import * as Http from "node:http"
import * as Https from "node:https"
import { PgOutbox, PgPartnerCredentials } from "@partnerpay/adapters-pg"
import { Ids } from "@partnerpay/domain"
import { DateTime, Effect, Layer, Option, Redacted } from "effect"
import { worker } from "./Polling.ts"

export interface DispatcherOptions {
  /** `Live` in the payload: true only in production. */
  readonly live: boolean
  readonly workerId: string
  readonly pollMillis?: number
  readonly timeoutMillis?: number
  /** Rows claimed per poll, in all (default 500). */
  readonly batchSize?: number
  /** Rows of one partner claimed per poll (default 100). */
  readonly perPartner?: number
  /** Partners served at once (default 32). */
  readonly partnerConcurrency?: number
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

/** Keep-alive connection pools for the webhook requests (one per protocol). */
interface Agents {
  readonly http: Http.Agent
  readonly https: Https.Agent
}

const makeAgents = (): Agents => ({
  http: new Http.Agent({ keepAlive: true, maxSockets: 256 }),
  https: new Https.Agent({ keepAlive: true, maxSockets: 256 }),
})

class NoAnswer extends Error {}

/** POSTs `body`; the answer's status, or a failure message. The answer's body is read and ignored. */
const post = (agents: Agents, url: string, body: string, headers: Record<string, string>, timeoutMillis: number) =>
  Effect.callback<number, string>((resume, signal) => {
    let target: URL
    try {
      target = new URL(url)
    } catch {
      return resume(Effect.fail("connection failed: invalid URL"))
    }
    const secure = target.protocol === "https:"
    if (!secure && target.protocol !== "http:") return resume(Effect.fail("connection failed: unsupported protocol"))
    const payload = Buffer.from(body, "utf8")
    let settled = false
    const settle = (outcome: Effect.Effect<number, string>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      signal.removeEventListener("abort", abort)
      resume(outcome)
    }
    const request = (secure ? Https : Http).request(
      target,
      {
        method: "POST",
        agent: secure ? agents.https : agents.http,
        headers: { ...headers, "content-length": String(payload.length) },
      },
      (response) => {
        // Drain the body so the connection can be reused; its content is ignored.
        response.resume()
        response.on("end", () => settle(Effect.succeed(response.statusCode ?? 0)))
        response.on("error", (error) => settle(Effect.fail(failure(error, timeoutMillis))))
      },
    )
    const timer = setTimeout(() => request.destroy(new NoAnswer()), timeoutMillis)
    const abort = () => request.destroy()
    signal.addEventListener("abort", abort)
    request.on("error", (error) => settle(Effect.fail(failure(error, timeoutMillis))))
    request.end(payload)
  })

const failure = (error: Error, timeoutMillis: number): string =>
  error instanceof NoAnswer
    ? `no answer within ${timeoutMillis} ms`
    : `connection failed: ${error.cause instanceof Error ? error.cause.message : error.message}`

/** The rows of each partner, in claim order (the claim lists a partner's rows together, in its order). */
const byPartner = (entries: ReadonlyArray<Entry>): ReadonlyArray<ReadonlyArray<Entry>> => {
  const groups = new Map<string, Array<Entry>>()
  for (const entry of entries) {
    const group = groups.get(entry.partnerId)
    if (group === undefined) groups.set(entry.partnerId, [entry])
    else group.push(entry)
  }
  return [...groups.values()]
}

export const layer = (options: DispatcherOptions) =>
  Layer.unwrap(
    Effect.map(
      Effect.acquireRelease(Effect.sync(makeAgents), (agents) =>
        Effect.sync(() => {
          agents.http.destroy()
          agents.https.destroy()
        }),
      ),
      (agents) => dispatcher(options, agents),
    ),
  )

const dispatcher = (options: DispatcherOptions, agents: Agents) =>
  worker(
    "webhook-dispatcher",
    options.pollMillis ?? 200,
    Effect.gen(function* () {
      const dispatch = yield* PgOutbox.OutboxDispatch
      const partners = yield* PgPartnerCredentials.Partners
      const timeoutMillis = options.timeoutMillis ?? deliveryTimeoutMillis
      const claimed = yield* dispatch.claim({
        workerId: options.workerId,
        limit: options.batchSize ?? 500,
        perPartner: options.perPartner ?? 100,
        leaseMs: timeoutMillis * 3,
      })
      if (claimed.length === 0) return 0
      // No attempt starts after this: the last one ends within 2 x timeout, inside the 3 x timeout lease.
      const startBy = Date.now() + timeoutMillis
      const delivered: Array<string> = []
      const released: Array<string> = []

      /** One attempt: true when delivered; otherwise the failure is recorded (retry or give up). */
      const attempt = (entry: Entry, webhook: PgPartnerCredentials.Webhook) =>
        Effect.gen(function* () {
          const body = JSON.stringify({ Live: options.live, Event: entry.eventType, Data: entry.data })
          const headers: Record<string, string> = {
            "content-type": "application/json",
            "user-agent": "partnerpay-webhooks/1",
            "x-partnerpay-event-id": entry.id,
            "x-partnerpay-delivery-attempt": String(entry.attempts),
          }
          // An empty signing secret means "none configured": no signature header.
          if (Redacted.value(webhook.signingSecret) !== "") {
            headers["x-hmac-signature"] = sign(body, webhook.signingSecret)
          }
          const started = Date.now()
          const outcome = yield* Effect.result(post(agents, webhook.url, body, headers, timeoutMillis))
          const durationMs = Date.now() - started
          if (outcome._tag === "Success" && outcome.success >= 200 && outcome.success < 300) {
            yield* Effect.logDebug("webhook delivered", { status: outcome.success, durationMs })
            return true
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
          return false
        }).pipe(
          Effect.annotateLogs({
            notificationId: entry.id,
            partnerId: entry.partnerId,
            event: entry.eventType,
            attempt: entry.attempts,
          }),
        )

      /** A partner's rows, one at a time in order; stops at the first failure (the rest is released). */
      const deliverPartner = (entries: ReadonlyArray<Entry>) =>
        Effect.gen(function* () {
          const partnerId = entries[0]!.partnerId
          const webhook = yield* partners.getWebhook(Ids.PartnerId.make(partnerId))
          if (Option.isNone(webhook)) {
            yield* Effect.logWarning("webhooks not delivered: the partner has no webhook URL", {
              partnerId,
              notifications: entries.length,
            })
            for (const entry of entries) {
              yield* dispatch.markFailedAttempt(entry.id, "the partner has no webhook URL", "give up")
            }
            return
          }
          for (let i = 0; i < entries.length; i++) {
            const entry = entries[i]!
            if (Date.now() > startBy) {
              for (const rest of entries.slice(i)) released.push(rest.id)
              return
            }
            if (!(yield* attempt(entry, webhook.value))) {
              for (const rest of entries.slice(i + 1)) released.push(rest.id)
              return
            }
            delivered.push(entry.id)
          }
        })

      yield* Effect.forEach(byPartner(claimed), deliverPartner, {
        concurrency: options.partnerConcurrency ?? 32,
        discard: true,
      }).pipe(
        // Delivered rows are marked even when a partner's step failed or the worker stops.
        Effect.ensuring(
          Effect.gen(function* () {
            yield* dispatch.markDelivered(delivered)
            yield* dispatch.release(released)
            if (delivered.length > 0) yield* Effect.logInfo("webhooks delivered", { count: delivered.length })
          }).pipe(Effect.catch((error) => Effect.logWarning("webhook batch could not be recorded", error))),
        ),
      )
      return claimed.length
    }),
  )
