/**
 * Migration 20: a partial index for the money-movement originator's poll of
 * refunds (`PgDueWork.refundsToOriginate`): transfers with a Pending refund
 * not originated yet (index key `refundToOriginate`), oldest first. A
 * transfer leaves it as soon as its refunds are originated, so the poll reads
 * only the rows it returns however many refunds are still on their way.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`
    CREATE INDEX IF NOT EXISTS read_models_refunds_to_originate ON read_models (sort_key, id)
    WHERE collection = 'transfers' AND keys ->> 'refundToOriginate' = 'true'`
})
