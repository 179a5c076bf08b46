/**
 * Migration 5: batch claims of the outbox (see PgOutbox.ts).
 *
 * - `outbox.transaction_id`: the id of the transaction that recorded the row
 *   (`pg_current_xact_id()`, set by the column default inside the append's
 *   transaction). A partner's notifications are delivered in
 *   (transaction_id, position, id) order, and only rows whose transaction is
 *   older than every running one (`transaction_id <
 *   pg_snapshot_xmin(pg_current_snapshot())`) are claimed: no transaction can
 *   still commit a row that sorts before them. Rows present before this
 *   migration get the migration's transaction id (they keep their position
 *   order among themselves).
 * - `outbox_claim`: a partner's open (pending or delivering) rows in that
 *   order. The claim walks it: the distinct partners (a skip scan, one probe
 *   per partner), each partner's head, and the first rows after it, so a
 *   claim's cost depends on the number of partners and the batch size, not on
 *   the backlog. It replaces `outbox_open` (position order).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`ALTER TABLE outbox ADD COLUMN IF NOT EXISTS transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id()`
  yield* sql`
    CREATE INDEX IF NOT EXISTS outbox_claim ON outbox (partner_id, transaction_id, position, id)
    WHERE status IN ('pending', 'delivering')`
  yield* sql`DROP INDEX IF EXISTS outbox_open`
})
