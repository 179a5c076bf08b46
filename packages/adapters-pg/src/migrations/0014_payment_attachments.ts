/**
 * Migration 14: payment attachments (see PgAttachments.ts), the documents the
 * service downloads from a payment request's `attachmentUrl` and keeps.
 *
 * One row per payment request (`payment_request_id` is unique): registering
 * twice keeps the first row. The worker claims Pending rows whose
 * `next_attempt_at` has come (`payment_attachments_due`, partial index on
 * Pending rows only; a new row is due at once: `-infinity`, whatever the
 * worker's clock); `bytes` holds the document once Stored.
 * `read_models_attachment_urls` (partial: payment requests with an
 * attachment URL) keeps the worker's discovery to those requests only.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`
    CREATE TABLE IF NOT EXISTS payment_attachments (
      id uuid PRIMARY KEY,
      partner_id text NOT NULL,
      payment_request_id text NOT NULL UNIQUE,
      url text NOT NULL,
      name text NOT NULL,
      content_type text,
      size_bytes integer,
      sha256 text,
      status text NOT NULL CHECK (status IN ('Pending', 'Stored', 'Failed')),
      bytes bytea,
      attempts integer NOT NULL DEFAULT 0,
      last_error text,
      next_attempt_at timestamptz NOT NULL DEFAULT '-infinity',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE INDEX IF NOT EXISTS payment_attachments_due ON payment_attachments (next_attempt_at)
    WHERE status = 'Pending'`
  yield* sql`
    CREATE INDEX IF NOT EXISTS read_models_attachment_urls ON read_models (id)
    WHERE collection = 'payment_requests' AND (data->>'attachmentUrl') IS NOT NULL`
})
