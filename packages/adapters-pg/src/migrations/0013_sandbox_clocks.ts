/**
 * Migration 13: the sandbox clock of each partner (see PgSandboxClocks.ts):
 * how far ahead of real time the partner's sandbox runs, in milliseconds.
 * A partner without a row runs on real time. Production never writes here.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`
    CREATE TABLE IF NOT EXISTS sandbox_clocks (
      partner_id uuid PRIMARY KEY,
      offset_ms bigint NOT NULL CHECK (offset_ms >= 0),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
})
