/**
 * Migration 140 (issue 38): the partial index of the card refunds asked for
 * (`CardRefundRequested`), which the card-refund retry worker reads
 * (`PgDueWork.pendingCardRefunds`), and the one of their decisions and
 * attempts it checks by refund id.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`
    CREATE INDEX IF NOT EXISTS events_card_refunds_requested ON events (global_position)
    WHERE event_type = 'CardRefundRequested'`
  yield* sql`
    CREATE INDEX IF NOT EXISTS events_card_refunds_decided ON events ((data ->> 'refundId'))
    WHERE event_type IN ('CardRefundCompleted', 'CardRefundFailed', 'CardRefundSubmitted')`
})
