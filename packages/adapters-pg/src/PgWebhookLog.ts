/**
 * The domain `WebhookLog` port on PostgreSQL: a partner's own outbox rows
 * (its deliveries and events) and its webhook endpoint.
 *
 * - Pages are newest first in commit order (transaction_id, position, id)
 *   DESC, read through the index `outbox_partner_log` (migration 0009): one
 *   statement, a range scan of `limit + 1` entries. `startingAfter` is the
 *   last id of the previous page; the page starts below that row, looked up
 *   with the partner's id, so another partner's (or an unknown) id gives an
 *   empty page.
 * - Every statement filters on `partner_id`: another partner's delivery is
 *   "not found".
 * - `endpoint` reads the webhook through `Partners` (whatever it does to the
 *   secret at rest); a URL without a signing secret (an empty one) gets a
 *   generated `whsec_...` secret stored through `Partners.setWebhook`. Two
 *   processes generating at the same moment: the last write wins, and a
 *   delivery signed with the other one fails verification and is retried.
 * - `setEndpoint` rolls the secret through `Partners.rollWebhook`: a new
 *   `whsec_...` secret, the replaced one signing too for
 *   `WebhookLog.previousSecretGraceMillis`.
 */

import { randomBytes } from "node:crypto"
import { EventStore, Ids, Traced, WebhookLog } from "@partnerpay/domain"
import { DateTime, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { Partners, type Webhook } from "./PgPartnerCredentials.ts"
import { unavailable } from "./SqlErrors.ts"

/** A new webhook signing secret: `whsec_` + 32 random bytes, base64url. */
export const generateSigningSecret = (): Redacted.Redacted<string> =>
  Redacted.make(`whsec_${randomBytes(32).toString("base64url")}`)

/**
 * The partner's webhook, with a signing secret generated and stored when it has none; undefined when the
 * partner has no webhook URL.
 */
export const signedWebhook = Traced.fn("PgWebhookLog.signedWebhook")(function* (
  partners: Partners["Service"],
  partnerId: string,
): Effect.fn.Return<Webhook | undefined, EventStore.EventStoreUnavailable> {
  const id = Ids.PartnerId.make(partnerId)
  const found = yield* partners.getWebhook(id)
  if (Option.isNone(found)) return undefined
  if (Redacted.value(found.value.signingSecret) !== "") return found.value
  const webhook: Webhook = { ...found.value, signingSecret: generateSigningSecret() }
  yield* partners
    .setWebhook(id, webhook)
    .pipe(
      Effect.catchTag("NotFound", () =>
        Effect.fail(new EventStore.EventStoreUnavailable({ reason: "partner vanished" })),
      ),
    )
  return webhook
})

interface LogRow {
  readonly id: string
  readonly event_type: string
  readonly data: Record<string, unknown>
  readonly status: WebhookLog.WebhookDeliveryStatus
  readonly attempts: number
  readonly last_response_status: number | null
  readonly last_error: string | null
  readonly next_attempt_at: Date
  readonly created_at: Date
  readonly delivered_at: Date | null
}

const instant = (date: Date): DateTime.Utc => DateTime.makeUnsafe(date.getTime())

const toDelivery = (row: LogRow): WebhookLog.DeliveryView => ({
  id: row.id,
  eventType: row.event_type,
  status: row.status,
  attempts: Number(row.attempts),
  lastResponseStatus: row.last_response_status === null ? null : Number(row.last_response_status),
  lastError: row.last_error,
  createdAt: instant(row.created_at),
  deliveredAt: row.delivered_at === null ? null : instant(row.delivered_at),
  nextAttemptAt: row.status === "pending" ? instant(row.next_attempt_at) : null,
})

const toEvent = (row: LogRow): WebhookLog.EventView => ({
  id: row.id,
  eventType: row.event_type,
  data: row.data,
  createdAt: instant(row.created_at),
})

export const make: Effect.Effect<WebhookLog.WebhookLog["Service"], never, SqlClient | Partners> = Effect.gen(
  function* () {
    const sql = yield* SqlClient
    const partners = yield* Partners

    /** One page of the partner's rows (with payload only when `withData`), newest first unless asked otherwise. */
    const page = Traced.fn("PgWebhookLog.page")(function* (
      partnerId: string,
      request: WebhookLog.WebhookPageRequest & WebhookLog.EventFilter,
      withData: boolean,
      maxAgeDays: number | undefined,
    ) {
      const ascending = request.order === "asc"
      const filters = [
        request.type === undefined ? sql.literal("") : sql` AND o.event_type = ${request.type}`,
        request.resourceId === undefined
          ? sql.literal("")
          : sql` AND EXISTS (SELECT 1 FROM jsonb_each_text(o.data) kv WHERE kv.key LIKE '%Id' AND kv.value = ${request.resourceId})`,
        request.createdFrom === undefined
          ? sql.literal("")
          : sql` AND o.created_at >= ${DateTime.formatIso(request.createdFrom)}::timestamptz`,
        request.createdTo === undefined
          ? sql.literal("")
          : sql` AND o.created_at < ${DateTime.formatIso(request.createdTo)}::timestamptz`,
      ]
      const after = request.startingAfter
      const limit = Math.max(1, Math.floor(request.limit))
      const columns = sql.literal(
        `o.id, o.event_type, ${withData ? "o.data" : "NULL AS data"}, o.status, o.attempts, o.last_response_status, o.last_error, o.next_attempt_at, o.created_at, o.delivered_at`,
      )
      const recent =
        maxAgeDays === undefined
          ? sql.literal("")
          : sql` AND o.created_at >= now() - make_interval(days => ${Math.max(0, Math.floor(maxAgeDays))})`
      const below =
        after === undefined
          ? sql.literal("")
          : ascending
            ? sql` AND (o.transaction_id, o.position, o.id) > (
                SELECT c.transaction_id, c.position, c.id FROM outbox c WHERE c.id = ${after} AND c.partner_id = ${partnerId})`
            : sql` AND (o.transaction_id, o.position, o.id) < (
                SELECT c.transaction_id, c.position, c.id FROM outbox c WHERE c.id = ${after} AND c.partner_id = ${partnerId})`
      const order = sql.literal(
        ascending
          ? "ORDER BY o.transaction_id ASC, o.position ASC, o.id ASC"
          : "ORDER BY o.transaction_id DESC, o.position DESC, o.id DESC",
      )
      const rows = yield* sql<LogRow>`
          SELECT ${columns} FROM outbox o
          WHERE o.partner_id = ${partnerId}${recent}${filters[0]!}${filters[1]!}${filters[2]!}${filters[3]!}${below}
          ${order}
          LIMIT ${limit + 1}`.pipe(unavailable("webhook log page"))
      return { rows: rows.slice(0, limit), hasMore: rows.length > limit }
    })

    return WebhookLog.WebhookLog.of({
      endpoint: (partnerId) =>
        Effect.map(signedWebhook(partners, partnerId), (webhook) =>
          webhook === undefined
            ? undefined
            : { url: webhook.url, signingSecret: webhook.signingSecret, eventTypes: webhook.eventTypes ?? null },
        ),
      setEndpoint: Traced.fn("PgWebhookLog.setEndpoint")(function* (partnerId, setting) {
        const signingSecret = generateSigningSecret()
        const expiresAt = yield* partners
          .rollWebhook(Ids.PartnerId.make(partnerId), {
            url: setting.url,
            eventTypes: setting.eventTypes,
            signingSecret,
            graceMillis: WebhookLog.previousSecretGraceMillis,
          })
          .pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))
        if (expiresAt === undefined) return undefined
        return {
          url: setting.url,
          eventTypes: setting.eventTypes,
          signingSecret,
          previousSecretExpiresAt: expiresAt === null ? null : DateTime.makeUnsafe(expiresAt.getTime()),
        }
      }),
      deliveries: (partnerId, request) =>
        Effect.map(page(partnerId, request, false, undefined), ({ rows, hasMore }) => ({
          items: rows.map(toDelivery),
          hasMore,
        })),
      events: (partnerId, request) =>
        Effect.map(page(partnerId, request, true, request.maxAgeDays), ({ rows, hasMore }) => ({
          items: rows.map(toEvent),
          hasMore,
        })),
      event: Traced.fn("PgWebhookLog.event")(function* (partnerId, id, maxAgeDays) {
        const rows = yield* sql<LogRow>`
            SELECT o.id, o.event_type, o.data, o.status, o.attempts, o.last_response_status, o.last_error,
                   o.next_attempt_at, o.created_at, o.delivered_at
            FROM outbox o
            WHERE o.id = ${id} AND o.partner_id = ${partnerId}
              AND o.created_at >= now() - make_interval(days => ${Math.max(0, Math.floor(maxAgeDays))})`
        return rows[0] === undefined ? undefined : toEvent(rows[0])
      }, unavailable("webhook log event")),
      redeliver: Traced.fn("PgWebhookLog.redeliver")(function* (partnerId, id) {
        const queued = yield* sql<{ id: string }>`
            UPDATE outbox SET status = 'pending', next_attempt_at = now(), claimed_by = NULL, claimed_until = NULL,
                   delivered_at = NULL
            WHERE id = ${id} AND partner_id = ${partnerId} AND status IN ('failed', 'delivered') RETURNING id`
        if (queued.length > 0) return "queued" as const
        const rows = yield* sql<{ status: string }>`
            SELECT status FROM outbox WHERE id = ${id} AND partner_id = ${partnerId}`
        return rows.length === 0 ? ("not found" as const) : ("in progress" as const)
      }, unavailable("webhook log redeliver")),
    })
  },
)

/** `WebhookLog` on the `SqlClient` in context (with `Partners` for the endpoint). */
export const layer: Layer.Layer<WebhookLog.WebhookLog, never, SqlClient | Partners> = Layer.effect(
  WebhookLog.WebhookLog,
  make,
)
