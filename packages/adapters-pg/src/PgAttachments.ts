/**
 * Payment attachments (`Attachments.PaymentAttachments`) on PostgreSQL and
 * PGlite (table `payment_attachments`, migration 0014): one row per payment
 * request with an attachment URL, its download state and, once Stored, the
 * document's bytes (bytea) with their sha256.
 *
 * `discover` finds payment requests of the read model (`read_models`,
 * collection `payment_requests`) with an `attachmentUrl` and no row yet and
 * registers them; registration is idempotent (`ON CONFLICT DO NOTHING` on the
 * request), so the worker's discovery and a read that registers first agree
 * on one row. `claimDue` leases due Pending rows with `FOR UPDATE SKIP
 * LOCKED` (moving `next_attempt_at` past the lease), so two instances never
 * download the same document at once and a crashed download is retried after
 * the lease. Every database failure becomes `EventStoreUnavailable`.
 */
import { Attachments, type Outbox, Payments, Traced } from "@partnerpay/domain"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { unavailable } from "./SqlErrors.ts"

interface ViewRow {
  readonly id: string
  readonly name: string
  readonly content_type: string
  readonly size_bytes: number | null
  readonly sha256: string | null
  readonly status: Attachments.AttachmentStatus
  readonly last_error: string | null
}

interface DueRow {
  readonly id: string
  readonly partner_id: string
  readonly payment_request_id: string
  readonly url: string
  readonly attempts: number
}

const toView = (row: ViewRow): Attachments.AttachmentView => ({
  id: row.id,
  name: row.name,
  contentType: row.content_type,
  ...(row.size_bytes === null ? {} : { sizeBytes: row.size_bytes }),
  ...(row.sha256 === null ? {} : { sha256: row.sha256 }),
  status: row.status,
  ...(row.status === "Failed" && row.last_error !== null ? { failureReason: row.last_error } : {}),
})

export const make: Effect.Effect<Attachments.PaymentAttachments["Service"], never, SqlClient> = Effect.gen(
  function* () {
    const sql = yield* SqlClient
    /** The statement's tail after `changed`: the notification's outbox row when one is given and a row changed. */
    const outboxRow = (notification: Outbox.Webhook | undefined) =>
      notification === undefined
        ? sql`SELECT count(*) FROM changed`
        : sql`
          INSERT INTO outbox (id, partner_id, event_type, data, position)
          SELECT ${notification.id}, ${notification.partnerId}, ${notification.eventType},
                 ${JSON.stringify(notification.data)}::jsonb, ${notification.position}
          FROM changed
          ON CONFLICT (id) DO NOTHING`
    const register = (registration: Attachments.Registration) => {
      const guessed = Payments.attachmentOf("", registration.url)
      return sql`
        INSERT INTO payment_attachments (id, partner_id, payment_request_id, url, name, content_type, status)
        VALUES (${crypto.randomUUID()}, ${registration.partnerId}, ${registration.paymentRequestId},
          ${registration.url}, ${registration.name}, ${guessed.contentType}, 'Pending')
        ON CONFLICT (payment_request_id) DO NOTHING`.pipe(Effect.asVoid, unavailable("registering an attachment"))
    }
    return Attachments.PaymentAttachments.of({
      register,
      discover: Traced.fn("PgAttachments.discover")(function* (limit) {
        const rows = yield* sql<{ partner_id: string; id: string; url: string }>`
            SELECT r.partner_id, r.id, r.data->>'attachmentUrl' AS url
            FROM read_models r
            WHERE r.collection = 'payment_requests' AND r.data->>'attachmentUrl' IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM payment_attachments a WHERE a.payment_request_id = r.id)
            LIMIT ${limit}`.pipe(unavailable("discovering attachments"))
        for (const row of rows)
          yield* register({
            partnerId: row.partner_id,
            paymentRequestId: row.id,
            url: row.url,
            name: Payments.attachmentOf("", row.url).name,
          })
        return rows.length
      }),
      claimDue: (nowMillis, limit, leaseMillis) =>
        sql<DueRow>`
          UPDATE payment_attachments SET next_attempt_at = ${new Date(nowMillis + leaseMillis)}, updated_at = now()
          WHERE id IN (
            SELECT id FROM payment_attachments
            WHERE status = 'Pending' AND next_attempt_at <= ${new Date(nowMillis)}
            ORDER BY next_attempt_at LIMIT ${limit}
            FOR UPDATE SKIP LOCKED)
          RETURNING id, partner_id, payment_request_id, url, attempts`.pipe(
          Effect.map((rows) =>
            rows.map((row) => ({
              id: row.id,
              partnerId: row.partner_id,
              paymentRequestId: row.payment_request_id,
              url: row.url,
              attempts: row.attempts,
            })),
          ),
          unavailable("claiming attachment downloads"),
        ),
      // The outcome and its webhook in one statement: the outbox row exists exactly when the status changed.
      recordStored: (id, stored, notification) =>
        sql`
          WITH changed AS (
            UPDATE payment_attachments
            SET status = 'Stored', content_type = ${stored.contentType}, size_bytes = ${stored.bytes.byteLength},
              sha256 = ${stored.sha256}, bytes = ${Buffer.from(stored.bytes)}, attempts = attempts + 1,
              last_error = NULL, updated_at = now()
            WHERE id = ${id} AND status = 'Pending'
            RETURNING id
          )
          ${outboxRow(notification)}`.pipe(Effect.asVoid, unavailable("storing an attachment")),
      recordFailure: (id, failure, notification) =>
        (failure.outcome._tag === "Failed"
          ? sql`
            WITH changed AS (
              UPDATE payment_attachments
              SET status = 'Failed', attempts = ${failure.attempts}, last_error = ${failure.reason}, updated_at = now()
              WHERE id = ${id} AND status = 'Pending'
              RETURNING id
            )
            ${outboxRow(notification)}`
          : sql`
            UPDATE payment_attachments
            SET attempts = ${failure.attempts}, last_error = ${failure.reason},
              next_attempt_at = ${new Date(failure.outcome.nextAttemptAtMillis)}, updated_at = now()
            WHERE id = ${id} AND status = 'Pending'`
        ).pipe(Effect.asVoid, unavailable("recording an attachment failure")),
      list: (partnerId, paymentRequestId) =>
        sql<ViewRow>`
          SELECT id, name, content_type, size_bytes, sha256, status, last_error FROM payment_attachments
          WHERE partner_id = ${partnerId} AND payment_request_id = ${paymentRequestId}
          ORDER BY created_at, id`.pipe(
          Effect.map((rows) => rows.map(toView)),
          unavailable("reading attachments"),
        ),
      content: (partnerId, paymentRequestId, attachmentId) =>
        sql<{ content_type: string; bytes: Uint8Array }>`
          SELECT content_type, bytes FROM payment_attachments
          WHERE id::text = ${attachmentId} AND partner_id = ${partnerId}
            AND payment_request_id = ${paymentRequestId} AND status = 'Stored'`.pipe(
          Effect.map((rows) => {
            const row = rows[0]
            return row === undefined ? undefined : { contentType: row.content_type, bytes: new Uint8Array(row.bytes) }
          }),
          unavailable("reading an attachment"),
        ),
    })
  },
)

export const layer: Layer.Layer<Attachments.PaymentAttachments, never, SqlClient> = Layer.effect(
  Attachments.PaymentAttachments,
  make,
)
