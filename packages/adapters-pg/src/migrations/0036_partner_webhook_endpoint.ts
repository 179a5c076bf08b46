/**
 * Migration 36: the partner's own webhook endpoint (issue 26 section 1).
 * - `partners.webhook_event_types`: the webhook `Event` names the partner
 *   subscribed to (a JSON array); NULL: every type.
 * - `partners.webhook_previous_secret_sealed` / `webhook_previous_secret_expires_at`:
 *   the signing secret replaced by the last roll, sealed like the current one
 *   (vault subject `partner-webhook:<id>`), still signing deliveries (a second
 *   `v1=`) until it expires.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`ALTER TABLE partners ADD COLUMN IF NOT EXISTS webhook_event_types jsonb`
  yield* sql`ALTER TABLE partners ADD COLUMN IF NOT EXISTS webhook_previous_secret_sealed text`
  yield* sql`ALTER TABLE partners ADD COLUMN IF NOT EXISTS webhook_previous_secret_expires_at timestamptz`
})
