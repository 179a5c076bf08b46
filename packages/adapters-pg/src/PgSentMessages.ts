/**
 * The sandbox message log (`SentMessages`) on PostgreSQL (table
 * `sent_messages`, migration 0011). A message is inserted with the caller's
 * connection: inside the notifications worker's transaction it commits, or
 * rolls back, together with the decision that sent it, so a notice decided
 * once is recorded once whatever the number of instances.
 *
 * Pages are newest first (`seq DESC`); the cursor is a message id of the same
 * customer (an unknown one gives an empty page). Every database failure
 * becomes `EventStoreUnavailable`.
 *
 * Retention: messages recorded more than `retentionDays` (default 90) ago by
 * the database clock are deleted by a purge that `list` runs at most once per
 * `purgeEveryMillis` per process (outside any notice's transaction). The
 * database clock is real time, so advancing the sandbox clock never purges.
 */
import { Messaging, Traced } from "@partnerpay/domain"
import { DateTime, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { unavailable } from "./SqlErrors.ts"

interface Row {
  readonly id: string
  readonly partner_id: string
  readonly registration_id: string | null
  readonly channel: string
  readonly recipient: string
  readonly template: string
  readonly payment_request_id: string | null
  readonly sent_at: Date | string
}

const decode = Schema.decodeUnknownSync(Messaging.SentMessage)

const toMessage = (row: Row): Messaging.SentMessage =>
  decode({
    id: row.id,
    partnerId: row.partner_id,
    ...(row.registration_id === null ? {} : { registrationId: row.registration_id }),
    channel: row.channel,
    to: row.recipient,
    template: row.template,
    ...(row.payment_request_id === null ? {} : { paymentRequestId: row.payment_request_id }),
    sentAt: new Date(row.sent_at).toISOString(),
  })

export interface Options {
  /** How long messages are kept (default 90 days). */
  readonly retentionDays?: number
  /** Minimum interval between purges (default one minute). */
  readonly purgeEveryMillis?: number
}

export const make = Traced.fn("PgSentMessages.make")(function* (
  options: Options = {},
): Effect.fn.Return<Messaging.SentMessages["Service"], never, SqlClient> {
  const sql = yield* SqlClient
  const retentionDays = options.retentionDays ?? 90
  const purgeEveryMillis = options.purgeEveryMillis ?? 60_000
  let lastPurge = Number.NEGATIVE_INFINITY
  const purge = Effect.suspend(() => {
    const now = Date.now()
    if (now - lastPurge < purgeEveryMillis) return Effect.void
    lastPurge = now
    return sql`DELETE FROM sent_messages WHERE sent_at < now() - make_interval(days => ${retentionDays})`.pipe(
      Effect.asVoid,
      Effect.catch((error) => Effect.logWarning("message log purge failed", error)),
    )
  })
  return Messaging.SentMessages.of({
    record: (message) =>
      sql`
        INSERT INTO sent_messages
          (id, partner_id, registration_id, channel, recipient, template, payment_request_id, sent_at)
        VALUES (${message.id}, ${message.partnerId}, ${message.registrationId ?? null}, ${message.channel},
          ${message.to}, ${message.template}, ${message.paymentRequestId ?? null},
          ${new Date(DateTime.toEpochMillis(message.sentAt))})`.pipe(Effect.asVoid, unavailable("recording a message")),
    list: Traced.fn("PgSentMessages.list")(function* ({ partnerId, registrationId, limit, startingAfter }) {
      yield* purge
      const rows =
        startingAfter === undefined
          ? yield* sql<Row>`
                SELECT id, partner_id, registration_id, channel, recipient, template, payment_request_id, sent_at
                FROM sent_messages
                WHERE partner_id = ${partnerId} AND registration_id = ${registrationId}
                ORDER BY seq DESC LIMIT ${limit + 1}`
          : yield* sql<Row>`
                SELECT id, partner_id, registration_id, channel, recipient, template, payment_request_id, sent_at
                FROM sent_messages
                WHERE partner_id = ${partnerId} AND registration_id = ${registrationId}
                  AND seq < (SELECT seq FROM sent_messages
                             WHERE id = ${startingAfter} AND partner_id = ${partnerId}
                               AND registration_id = ${registrationId})
                ORDER BY seq DESC LIMIT ${limit + 1}`
      return { items: rows.slice(0, limit).map(toMessage), hasMore: rows.length > limit }
    }, unavailable("reading messages")),
  })
})

export const layer = (options: Options = {}): Layer.Layer<Messaging.SentMessages, never, SqlClient> =>
  Layer.effect(Messaging.SentMessages, make(options))
