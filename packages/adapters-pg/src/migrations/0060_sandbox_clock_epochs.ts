/**
 * Migration 60: the epoch of each partner's sandbox clock (see PgSandboxClocks.ts). A reset
 * (`POST /Sandbox/Clock/Reset`) brings the offset back to 0 and starts a new epoch, so an instance
 * reading the stored clocks takes the smaller offset of a newer epoch (offsets only grow within one).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`ALTER TABLE sandbox_clocks ADD COLUMN IF NOT EXISTS epoch integer NOT NULL DEFAULT 0`
})
