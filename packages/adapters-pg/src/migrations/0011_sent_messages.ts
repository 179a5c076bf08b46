/**
 * Migration 11: the messages the sandbox senders recorded instead of sending
 * (see PgSentMessages.ts), read back by `GET /Sandbox/Messages`.
 *
 * `seq` orders them (newest first) and is the pagination cursor behind the
 * message id; `sent_messages_customer` answers one customer's page of one
 * partner with an index range scan.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`
    CREATE TABLE IF NOT EXISTS sent_messages (
      seq bigserial PRIMARY KEY,
      id uuid NOT NULL UNIQUE,
      partner_id uuid NOT NULL,
      registration_id uuid,
      channel text NOT NULL CHECK (channel IN ('sms', 'push', 'email')),
      recipient text NOT NULL,
      template text NOT NULL,
      payment_request_id uuid,
      sent_at timestamptz NOT NULL
    )`
  yield* sql`
    CREATE INDEX IF NOT EXISTS sent_messages_customer ON sent_messages (partner_id, registration_id, seq DESC)`
})
