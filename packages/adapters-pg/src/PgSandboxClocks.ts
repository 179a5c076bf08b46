/**
 * The sandbox clocks of the partners on PostgreSQL (table `sandbox_clocks`,
 * migration 0013): one offset in milliseconds per partner that advanced its
 * sandbox time. Read once at start (`loadAll`), written at each advance
 * (`save`, an upsert that never moves an offset backwards). Every database
 * failure becomes `EventStoreUnavailable`.
 */
import { Traced } from "@partnerpay/domain"
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { unavailable } from "./SqlErrors.ts"

/** One partner's offset. */
export interface PartnerOffset {
  readonly partnerId: string
  readonly offsetMillis: number
}

/** Every stored offset. */
export const loadAll = Effect.gen(function* () {
  const sql = yield* SqlClient
  const rows = yield* sql<{ partner_id: string; offset_ms: string | number }>`
    SELECT partner_id, offset_ms FROM sandbox_clocks`
  return rows.map((row): PartnerOffset => ({ partnerId: row.partner_id, offsetMillis: Number(row.offset_ms) }))
}).pipe(unavailable("load sandbox clocks"))

/** Records a partner's offset (the larger of the stored and the given one). */
export const save = Traced.fn("PgSandboxClocks.save")(function* (partnerId: string, offsetMillis: number) {
  const sql = yield* SqlClient
  yield* sql`
      INSERT INTO sandbox_clocks (partner_id, offset_ms) VALUES (${partnerId}, ${offsetMillis})
      ON CONFLICT (partner_id) DO UPDATE
      SET offset_ms = GREATEST(sandbox_clocks.offset_ms, EXCLUDED.offset_ms), updated_at = now()`
}, unavailable("save a sandbox clock"))
