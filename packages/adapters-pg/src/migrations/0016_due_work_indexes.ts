/**
 * Migration 16: partial indexes for the sandbox's due-work polls
 * (`PgDueWork`): companies still Unverified and transfers still Pending, in
 * sort-key (registration or initiation instant) order. Without them each
 * poll, about once a second, read every document of the `read_models` table
 * to find the few that are due (38 ms at 50,000 documents here, on the one
 * session of an embedded database); with them it reads only the due rows, and
 * a document leaves the index as soon as it is decided.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`
    CREATE INDEX IF NOT EXISTS read_models_unverified_companies ON read_models (sort_key, id)
    WHERE collection = 'companies' AND data ->> 'status' = 'Unverified'`
  yield* sql`
    CREATE INDEX IF NOT EXISTS read_models_pending_transfers ON read_models (sort_key, id)
    WHERE collection = 'transfers' AND keys ->> 'status' = 'Pending'`
})
