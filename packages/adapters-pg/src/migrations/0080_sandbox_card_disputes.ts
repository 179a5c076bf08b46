/**
 * Migration 80 (issue 38): the two partial indexes of the sandbox's disputed cards
 * (`PgDueWork.sandboxCardsToDispute`, `sandboxDisputesToLose`): the card payments made with the
 * sandbox card ending in 0259, and the sandbox's open disputes. Both stay empty in production.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`
    CREATE INDEX IF NOT EXISTS events_sandbox_disputed_cards ON events (global_position)
    WHERE event_type IN ('PaymentRequestPaidByCard', 'CardPaymentRegistered') AND data ->> 'last4' = '0259'`
  yield* sql`
    CREATE INDEX IF NOT EXISTS events_sandbox_open_disputes ON events (global_position)
    WHERE event_type = 'CardDisputeOpened' AND stream_id LIKE 'CardDispute-dp_sandbox_%'`
})
