/**
 * Migration 38: `provider_notifications`, the notifications (webhooks) of
 * first-party providers received and verified (Dwolla's, by its event id):
 * what makes a repeated or replayed one change nothing, and the record of
 * what each provider said (topic, resource, when received).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`
    CREATE TABLE IF NOT EXISTS provider_notifications (
      provider text NOT NULL,
      event_id text NOT NULL,
      topic text NOT NULL,
      resource_id text NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (provider, event_id)
    )`
})
