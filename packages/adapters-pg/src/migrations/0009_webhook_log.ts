/**
 * Migration 9: what partners see of their webhooks (PgWebhookLog.ts).
 *
 * - `outbox.last_response_status`: the HTTP status of the receiver's last
 *   answer (null: not attempted yet, or no answer: timeout, connection
 *   refused, address refused).
 * - `outbox_partner_log`: every row of a partner in commit order
 *   (transaction_id, position, id), so a partner's page of deliveries or
 *   events, newest first, is one index range scan whatever the other
 *   partners' volume (`outbox_claim` only holds open rows).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`ALTER TABLE outbox ADD COLUMN IF NOT EXISTS last_response_status integer`
  yield* sql`CREATE INDEX IF NOT EXISTS outbox_partner_log ON outbox (partner_id, transaction_id, position, id)`
})
