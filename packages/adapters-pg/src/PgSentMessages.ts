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
 */
import { Messaging } from "@partnerpay/domain"
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

export const make: Effect.Effect<Messaging.SentMessages["Service"], never, SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient
  return Messaging.SentMessages.of({
    record: (message) =>
      sql`
        INSERT INTO sent_messages
          (id, partner_id, registration_id, channel, recipient, template, payment_request_id, sent_at)
        VALUES (${message.id}, ${message.partnerId}, ${message.registrationId ?? null}, ${message.channel},
          ${message.to}, ${message.template}, ${message.paymentRequestId ?? null},
          ${new Date(DateTime.toEpochMillis(message.sentAt))})`.pipe(Effect.asVoid, unavailable("recording a message")),
    list: Effect.fn("PgSentMessages.list")(function* ({
      partnerId,
      registrationId,
      limit,
      startingAfter,
    }: Parameters<Messaging.SentMessages["Service"]["list"]>[0]) {
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

export const layer: Layer.Layer<Messaging.SentMessages, never, SqlClient> = Layer.effect(Messaging.SentMessages, make)
