/**
 * Migration 19: partial indexes for the money-movement workers' polls
 * (`PgDueWork`): transfers Settled, by settlement instant (the outcome poller
 * asks for returns within the return window), and transfers with a refund
 * still Pending (the originator and the poller of refunds' credits). Pending
 * transfers are read through `read_models_pending_transfers` (migration 16).
 * Each poll reads only the rows it returns.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`
    CREATE INDEX IF NOT EXISTS read_models_settled_transfers ON read_models ((data ->> 'settledAt'), id)
    WHERE collection = 'transfers' AND keys ->> 'status' = 'Settled'`
  yield* sql`
    CREATE INDEX IF NOT EXISTS read_models_refund_pending_transfers ON read_models (sort_key, id)
    WHERE collection = 'transfers' AND keys ->> 'refundPending' = 'true'`
})
