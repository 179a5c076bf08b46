/**
 * Migration 120 (issue 37 §4): the platform's books are the `ledger_postings`
 * read model (`PostingsProjection`); the trial balance sums every partner's
 * postings up to an instant (`PgLedger.totalsStatement`), so its documents are
 * indexed by posting instant across partners (the tenant-scoped page index
 * leads with the partner).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`
    CREATE INDEX IF NOT EXISTS read_models_ledger_postings ON read_models (sort_key COLLATE "C")
    WHERE collection = 'ledger_postings'`
})
