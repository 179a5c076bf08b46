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
 * the lease (3 x timeout). The rows delivered are recorded by the next claim
 * (the same statement: one round trip records a batch and claims the next),
 * or at shutdown by a finalizer. Requests go through
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
 *   with the partner's signing secret (the interface's header);
 * - `X-Partnerpay-Signature: t=<unix seconds>,v1=<hex>`: HMAC-SHA256 of
 *   `<t>.<event id>.<body>` with the same secret, so a receiver can refuse a
 *   replayed request (too old a `t`) and a body moved to another event id
 *   (docs/webhooks/verifyWebhook.ts; docs/api/webhooks.md).
 * After a roll of the secret (`PUT /Webhooks/Endpoint`), while the replaced
 * secret has not expired (24 h), `X-Partnerpay-Signature` carries two
 * signatures, `t=..,v1=<new>,v1=<old>` (Stripe's roll); `X-HMAC-Signature`
 * uses the current secret only.
 * A notification of an event type the partner did not subscribe to is not
 * sent: it is marked failed at once with lastError "not sent: ..." (it stays
 * in GET /Events; failed rather than a new status, so existing readers of
 * the outbox's statuses and their CHECK constraint are unchanged).
 * Every delivery is signed: a partner whose webhook has no secret gets one
 * generated before its first delivery (`PgWebhookLog.signedWebhook`).
 * A 2xx answer within 10 s is a delivery; anything else (other status,
 * timeout, connection error, redirect, refused address) a failed attempt,
 * retried with exponential backoff and jitter (`retryDelayMillis`) until 72 h
 * after the notification was recorded, then marked failed (the partner or an
 * operator can redeliver). The answer's status is recorded
 * (`last_response_status`); at most 64 KiB of its body is read (then the
 * connection is closed), and the content is ignored.
 * Unless the policy allows every address (`WebhookTargetPolicy`: a sandbox
 * listening on loopback only), the connection resolves the host through
 * `WebhookTarget.pinnedLookupFor`: an address that is not public (nor allowed
 * by PARTNERPAY_OUTBOUND_ALLOW) is refused with one generic reason, and the
 * socket connects to the address that was checked.
 * A partner without a webhook URL: the notification is marked failed at once.
 * Polls every 200 ms when idle (PGlite has no LISTEN/NOTIFY).
 */

import * as Http from "node:http"
import * as Https from "node:https"
import { PgOutbox, PgPartnerCredentials, PgWebhookLog } from "@partnerpay/adapters-pg"
import { Traced, WebhookLog } from "@partnerpay/domain"
import { Hmac } from "@partnerpay/secrets"
import { DateTime, Effect, Layer, Metric, Redacted } from "effect"
import * as Metrics from "../observability/Metrics.ts"
import { worker } from "./Polling.ts"
import { pinnedLookupFor, refusedLiteralFor, type TargetPolicy, WebhookTargetPolicy } from "./WebhookTarget.ts"

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

/** The most of a receiver's answer body that is read (64 KiB); the connection is closed after that. */
export const maxAnswerBytes = 64 * 1024

/** The `X-HMAC-Signature` value for a body and secret. */
export const sign = (body: string, secret: Redacted.Redacted<string>): string =>
  `sha256=${Hmac.sha256Hex(Redacted.value(secret), body)}`

/** The `X-Partnerpay-Signature` value: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.eventId.body">`. */
export const signTimestamped = (
  body: string,
  eventId: string,
  unixSeconds: number,
  secret: Redacted.Redacted<string>,
): string => `t=${unixSeconds},v1=${Hmac.sha256Hex(Redacted.value(secret), `${unixSeconds}.${eventId}.${body}`)}`

/**
 * The `X-Partnerpay-Signature` value signed with each secret: `t=<unix seconds>,v1=<hex>,v1=<hex>...`, one
 * `v1=` per secret in the order given (the current secret first, then a rolled one still valid).
 */
export const signTimestampedWith = (
  body: string,
  eventId: string,
  unixSeconds: number,
  secrets: ReadonlyArray<Redacted.Redacted<string>>,
): string =>
  [
    `t=${unixSeconds}`,
    ...secrets.map((secret) => `v1=${Hmac.sha256Hex(Redacted.value(secret), `${unixSeconds}.${eventId}.${body}`)}`),
  ].join(",")

/**
 * The Standard Webhooks `webhook-signature` value: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` per
 * secret (keyed with the secret's UTF-8 bytes), space-separated, the current secret first.
 */
export const signStandard = (
  body: string,
  eventId: string,
  unixSeconds: number,
  secrets: ReadonlyArray<Redacted.Redacted<string>>,
): string =>
  secrets
    .map(
      (secret) => `v1,${Hmac.sha256(Redacted.value(secret), `${eventId}.${unixSeconds}.${body}`).toString("base64")}`,
    )
    .join(" ")

/**
 * Every signature header of a delivery of `body` as event `eventId` at `unixSeconds`: `X-HMAC-Signature`
 * (the current secret), `X-Partnerpay-Signature` and the Standard Webhooks headers (every valid secret).
 */
export const signatureHeaders = (
  body: string,
  eventId: string,
  unixSeconds: number,
  secrets: ReadonlyArray<Redacted.Redacted<string>>,
): Record<string, string> => ({
  "x-hmac-signature": sign(body, secrets[0]!),
  "x-partnerpay-signature": signTimestampedWith(body, eventId, unixSeconds, secrets),
  "webhook-id": eventId,
  "webhook-timestamp": String(unixSeconds),
  "webhook-signature": signStandard(body, eventId, unixSeconds, secrets),
})

/** The secrets a delivery is signed with now: the current one, then the replaced one until it expires. */
export const signingSecrets = (
  webhook: PgPartnerCredentials.Webhook,
  nowMillis: number,
): ReadonlyArray<Redacted.Redacted<string>> =>
  webhook.previous !== undefined && webhook.previous.expiresAt.getTime() > nowMillis
    ? [webhook.signingSecret, webhook.previous.signingSecret]
    : [webhook.signingSecret]

/** The sandbox's test webhook (`POST /Sandbox/Webhooks/Test`): asked for explicitly, so sent whatever the filter. */
const testEvent = "WEBHOOK_TEST"

/** Whether the partner's endpoint gets `entry` (its subscribed types; the test webhook always). */
const wanted = (webhook: PgPartnerCredentials.Webhook, entry: Entry): boolean =>
  entry.eventType === testEvent || WebhookLog.isSubscribed(webhook.eventTypes, entry.eventType)

/** The last error of a notification not sent because the partner has no webhook URL. */
export const noWebhookUrl = "the partner has no webhook URL: set one with PUT /Webhooks/Endpoint"

/** The last error of a notification not sent because the partner did not subscribe to its type. */
export const notSubscribed = "not sent: your webhook endpoint is not subscribed to this event type"

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

/** A failed attempt: its message, and the answer's status when the receiver answered. */
class AttemptFailed extends Error {
  readonly status: number | null
  constructor(message: string, status: number | null = null) {
    super(message)
    this.status = status
  }
}

/**
 * POSTs `body`: the answer's status, or rejects with the failure's message. At most `maxAnswerBytes` of the
 * answer's body are read (drained, so the connection can be reused; a longer one is cut off).
 */
const post = (
  agents: Agents,
  target: URL,
  body: string,
  headers: Record<string, string>,
  timeoutMillis: number,
  signal: AbortSignal,
  policy: TargetPolicy,
) =>
  new Promise<number>((resolve, reject) => {
    const refusePrivate = policy.refusePrivateAddresses
    const secure = target.protocol === "https:"
    if (!secure && target.protocol !== "http:") return reject(new Error("connection failed: unsupported protocol"))
    const refused = refusePrivate ? refusedLiteralFor(policy, target) : undefined
    if (refused !== undefined) return reject(new Error(refused))
    const payload = Buffer.from(body, "utf8")
    let settled = false
    const settle = (status: number | Error) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      signal.removeEventListener("abort", abort)
      if (typeof status === "number") resolve(status)
      else
        reject(
          new Error(
            status instanceof NoAnswer
              ? `no answer within ${timeoutMillis} ms`
              : (status as { code?: unknown }).code === "EADDRREFUSED"
                ? status.message
                : `connection failed: ${status.cause instanceof Error ? status.cause.message : status.message}`,
          ),
        )
    }
    const request = (secure ? Https : Http).request(
      target,
      {
        method: "POST",
        agent: secure ? agents.https : agents.http,
        headers: { ...headers, "content-length": String(payload.length) },
        ...(refusePrivate ? { lookup: pinnedLookupFor(policy) } : {}),
      },
      (response) => {
        // Drain the body so the connection can be reused; its content is ignored, and at most 64 KiB is read.
        const status = response.statusCode ?? 0
        let read = 0
        response.on("data", (chunk: Buffer) => {
          read += chunk.length
          if (read > maxAnswerBytes) {
            settle(status)
            response.destroy()
          }
        })
        response.on("end", () => settle(status))
        response.on("error", settle)
      },
    )
    const timer = setTimeout(() => request.destroy(new NoAnswer()), timeoutMillis)
    const abort = () => request.destroy()
    signal.addEventListener("abort", abort)
    request.on("error", settle)
    request.end(payload)
  })

/** How a partner's run of deliveries ended. */
interface RunOutcome {
  /** The first `delivered` entries were delivered (2xx). */
  readonly delivered: number
  /** The next entry's attempt failed (else: all delivered, or the batch's time was up). */
  readonly failure?: { readonly error: string; readonly durationMs: number; readonly status: number | null }
}

/**
 * Posts a partner's entries one at a time, in order, until one fails or no
 * attempt may start any more (`startBy`); `onDelivered` is told each success. Plain promises: no per-delivery
 * effect machinery on the hot path.
 */
const postInOrder = async (
  agents: Agents,
  entries: ReadonlyArray<Entry>,
  webhook: PgPartnerCredentials.Webhook,
  live: boolean,
  timeoutMillis: number,
  startBy: number,
  onDelivered: (id: string, status: number) => void,
  signal: AbortSignal,
  policy: TargetPolicy,
): Promise<RunOutcome> => {
  let target: URL
  try {
    target = new URL(webhook.url)
  } catch {
    return { delivered: 0, failure: { error: "connection failed: invalid URL", durationMs: 0, status: null } }
  }
  for (let i = 0; i < entries.length; i++) {
    if (Date.now() > startBy || signal.aborted) return { delivered: i }
    const entry = entries[i]!
    const body = JSON.stringify({ Live: live, Event: entry.eventType, Data: entry.data })
    const now = Date.now()
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": "partnerpay-webhooks/1",
      "x-partnerpay-event-id": entry.id,
      "x-partnerpay-delivery-attempt": String(entry.attempts),
      ...signatureHeaders(body, entry.id, Math.floor(now / 1000), signingSecrets(webhook, now)),
    }
    const started = Date.now()
    let failed: AttemptFailed
    try {
      const status = await post(agents, target, body, headers, timeoutMillis, signal, policy)
      if (status >= 200 && status < 300) {
        onDelivered(entry.id, status)
        continue
      }
      failed = new AttemptFailed(`the endpoint answered HTTP ${status}`, status)
    } catch (failure) {
      failed = new AttemptFailed(failure instanceof Error ? failure.message : String(failure))
    }
    return {
      delivered: i,
      failure: { error: failed.message, durationMs: Date.now() - started, status: failed.status },
    }
  }
  return { delivered: entries.length }
}

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
    Effect.gen(function* () {
      const agents = yield* Effect.acquireRelease(Effect.sync(makeAgents), (agents) =>
        Effect.sync(() => {
          agents.http.destroy()
          agents.https.destroy()
        }),
      )
      // Delivered, not yet recorded: the next claim records them (same statement); at shutdown, this finalizer.
      const unreported: Unreported = { ids: [], statuses: {} }
      const dispatch = yield* PgOutbox.OutboxDispatch
      const policy = yield* WebhookTargetPolicy
      yield* Effect.addFinalizer(() =>
        Effect.suspend(() => {
          const { ids, statuses } = takeReport(unreported)
          return dispatch.markDelivered(ids, statuses)
        }).pipe(Effect.catch((error) => Effect.logWarning("delivered webhooks could not be recorded", error))),
      )
      return dispatcher(options, agents, unreported, policy)
    }),
  )

/** Deliveries not yet recorded, with the receiver's answer status of each. */
interface Unreported {
  ids: Array<string>
  statuses: Record<string, number>
}

const takeReport = (unreported: Unreported) => {
  const report = { ids: unreported.ids, statuses: unreported.statuses }
  unreported.ids = []
  unreported.statuses = {}
  return report
}

const dispatcher = (options: DispatcherOptions, agents: Agents, unreported: Unreported, policy: TargetPolicy) =>
  worker(
    "webhook-dispatcher",
    options.pollMillis ?? 200,
    Effect.gen(function* () {
      const dispatch = yield* PgOutbox.OutboxDispatch
      const partners = yield* PgPartnerCredentials.Partners
      const timeoutMillis = options.timeoutMillis ?? deliveryTimeoutMillis
      // The previous batch's deliveries are recorded by this claim (one round trip for both).
      const report = takeReport(unreported)
      const claimed = yield* dispatch
        .claim({
          workerId: options.workerId,
          limit: options.batchSize ?? 1000,
          perPartner: options.perPartner ?? 300,
          leaseMs: timeoutMillis * 3,
          delivered: report.ids,
          deliveredStatuses: report.statuses,
        })
        .pipe(
          Effect.tapError(() =>
            Effect.sync(() => {
              unreported.ids.unshift(...report.ids)
              Object.assign(unreported.statuses, report.statuses)
            }),
          ),
        )
      if (report.ids.length > 0) yield* Effect.logInfo("webhooks delivered", { count: report.ids.length })
      if (claimed.length === 0) return 0
      // No attempt starts after this: the last one ends within 2 x timeout, inside the 3 x timeout lease.
      const startBy = Date.now() + timeoutMillis
      const released: Array<string> = []
      // Recorded as each delivery succeeds, so an interrupted batch still reports what went out.
      const onDelivered = (id: string, status: number) => {
        unreported.ids.push(id)
        unreported.statuses[id] = status
      }

      /** Records a failed attempt: retry later, or give up 72 h after the notification was recorded. */
      const failed = Traced.fn("WebhookDispatcher.failed")(
        function* (entry: Entry, error: string, durationMs: number, status: number | null) {
          const now = yield* DateTime.now
          const nextAt = DateTime.add(now, { milliseconds: retryDelayMillis(entry.attempts) })
          const giveUp = DateTime.toEpochMillis(nextAt) - DateTime.toEpochMillis(entry.createdAt) > giveUpAfterMillis
          yield* dispatch.markFailedAttempt(entry.id, error, giveUp ? "give up" : nextAt, status)
          yield* Metric.update(giveUp ? Metrics.webhookDeliveries.gaveUp : Metrics.webhookDeliveries.failed, 1)
          yield* Effect.logWarning(giveUp ? "webhook failed; giving up" : "webhook attempt failed; will retry", {
            error,
            durationMs,
            ...(giveUp ? {} : { nextAttemptAt: DateTime.formatIso(nextAt) }),
          })
        },
        (effect, entry) =>
          Effect.annotateLogs(effect, {
            notificationId: entry.id,
            partnerId: entry.partnerId,
            event: entry.eventType,
            attempt: entry.attempts,
          }),
      )

      /** A partner's rows, one at a time in order; stops at the first failure (the rest is released). */
      const deliverPartner = Traced.fn("WebhookDispatcher.deliverPartner")(function* (
        claimedRows: ReadonlyArray<Entry>,
      ) {
        let entries = claimedRows
        const partnerId = entries[0]!.partnerId
        // Never unsigned: a webhook without a secret gets one generated (and stored) here.
        const webhook = yield* PgWebhookLog.signedWebhook(partners, partnerId)
        if (webhook === undefined) {
          yield* Effect.logWarning("webhooks not delivered: the partner has no webhook URL", {
            partnerId,
            notifications: entries.length,
          })
          yield* dispatch.giveUp(
            entries.map((entry) => entry.id),
            noWebhookUrl,
          )
          yield* Metric.update(Metrics.webhookDeliveries.gaveUp, entries.length)
          return
        }
        // Types the partner did not subscribe to are not sent (still listed by GET /Events).
        const unsubscribed = entries.filter((entry) => !wanted(webhook, entry))
        if (unsubscribed.length > 0) {
          yield* dispatch.giveUp(
            unsubscribed.map((entry) => entry.id),
            notSubscribed,
          )
          entries = entries.filter((entry) => wanted(webhook, entry))
          if (entries.length === 0) return
        }
        const outcome = yield* Effect.promise((signal) =>
          postInOrder(agents, entries, webhook, options.live, timeoutMillis, startBy, onDelivered, signal, policy),
        )
        if (outcome.delivered > 0) yield* Metric.update(Metrics.webhookDeliveries.delivered, outcome.delivered)
        const rest = outcome.failure === undefined ? outcome.delivered : outcome.delivered + 1
        for (const entry of entries.slice(rest)) released.push(entry.id)
        if (outcome.failure !== undefined) {
          const { error, durationMs, status } = outcome.failure
          yield* failed(entries[outcome.delivered]!, error, durationMs, status)
        }
      })

      yield* Effect.forEach(byPartner(claimed), deliverPartner, {
        concurrency: options.partnerConcurrency ?? 32,
        discard: true,
      }).pipe(
        // Rows not attempted go back to pending, even when a partner's step failed or the worker stops.
        Effect.ensuring(
          Effect.suspend(() => dispatch.release(released)).pipe(
            Effect.catch((error) => Effect.logWarning("webhooks could not be released", error)),
          ),
        ),
      )
      return claimed.length
    }),
  )
