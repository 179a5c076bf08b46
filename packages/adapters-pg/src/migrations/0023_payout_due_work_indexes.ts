/**
 * Migration 23: partial indexes for the payout workers' polls (`PgDueWork`):
 * companies whose balance may be paid out (the `balances` read model's
 * documents with money above zero in some currency, `keys.payable`), and
 * payouts still Pending (the `payouts` read model). Each poll reads only the
 * due rows; a document leaves the index as soon as its balance is paid out or
 * its payout decided.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`
    CREATE INDEX IF NOT EXISTS read_models_payable_balances ON read_models (sort_key, id)
    WHERE collection = 'balances' AND keys ->> 'payable' = 'true'`
  yield* sql`
    CREATE INDEX IF NOT EXISTS read_models_pending_payouts ON read_models (sort_key, id)
    WHERE collection = 'payouts' AND keys ->> 'status' = 'Pending'`
})
