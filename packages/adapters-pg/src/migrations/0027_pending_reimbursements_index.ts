/**
 * Migration 27: a partial index for the reimbursement-completion worker's
 * poll (`PgDueWork.pendingReimbursements`): transfers applied for
 * reimbursement and not reimbursed yet (index key `reimbursementPending`),
 * oldest first. The poll reads only the rows it returns.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`
    CREATE INDEX IF NOT EXISTS read_models_reimbursement_pending_transfers ON read_models (sort_key, id)
    WHERE collection = 'transfers' AND keys ->> 'reimbursementPending' = 'true'`
})
