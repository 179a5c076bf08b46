/**
 * Migration 15: drops `events_partner_id`, the index of events by
 * `metadata ->> 'partnerId'` made by migration 1. No statement reads events by
 * partner (a partner's events and deliveries are read from the outbox,
 * `outbox_partner_log`), and every event written paid for it: one more B-tree
 * entry, with the JSON expression evaluated, in the append's transaction.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`DROP INDEX IF EXISTS events_partner_id`
})
