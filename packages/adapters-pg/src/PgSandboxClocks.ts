/**
 * The sandbox clocks of the partners on PostgreSQL (table `sandbox_clocks`,
 * migration 0013): one offset in milliseconds per partner that advanced its
 * sandbox time. Read at start and then every few seconds by each instance
 * (`loadAll`), moved at each advance by an atomic increment (`advance`, so
 * two instances advancing one partner at once add both), brought back to 0
 * by a reset that starts a new epoch (`reset`, migration 0060: within an
 * epoch offsets only grow). Every database failure becomes `EventStoreUnavailable`.
 */
import { Traced } from "@partnerpay/domain"
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { unavailable } from "./SqlErrors.ts"

/** One partner's offset. */
export interface PartnerOffset {
  readonly partnerId: string
  readonly offsetMillis: number
  /** Counts the resets of the partner's clock. */
  readonly epoch: number
}

/** A partner's offset after a change. */
export interface Stored {
  readonly offsetMillis: number
  readonly epoch: number
}

/** Every stored offset. */
export const loadAll = Effect.gen(function* () {
  const sql = yield* SqlClient
  const rows = yield* sql<{ partner_id: string; offset_ms: string | number; epoch: string | number }>`
    SELECT partner_id, offset_ms, epoch FROM sandbox_clocks`
  return rows.map(
    (row): PartnerOffset => ({
      partnerId: row.partner_id,
      offsetMillis: Number(row.offset_ms),
      epoch: Number(row.epoch),
    }),
  )
}).pipe(unavailable("load sandbox clocks"))

/** Moves a partner's offset forward by `millis` (atomically, whatever other instances do); answers the new offset. */
export const advance = Traced.fn("PgSandboxClocks.advance")(function* (partnerId: string, millis: number) {
  const sql = yield* SqlClient
  const [row] = yield* sql<{ offset_ms: string | number; epoch: string | number }>`
      INSERT INTO sandbox_clocks (partner_id, offset_ms) VALUES (${partnerId}, ${millis})
      ON CONFLICT (partner_id) DO UPDATE
      SET offset_ms = sandbox_clocks.offset_ms + EXCLUDED.offset_ms, updated_at = now()
      RETURNING offset_ms, epoch`
  const stored: Stored = { offsetMillis: Number(row?.offset_ms ?? millis), epoch: Number(row?.epoch ?? 0) }
  return stored
}, unavailable("advance a sandbox clock"))

/** Brings a partner's offset back to 0 and starts a new epoch; answers it. */
export const reset = Traced.fn("PgSandboxClocks.reset")(function* (partnerId: string) {
  const sql = yield* SqlClient
  const [row] = yield* sql<{ offset_ms: string | number; epoch: string | number }>`
      INSERT INTO sandbox_clocks (partner_id, offset_ms, epoch) VALUES (${partnerId}, 0, 1)
      ON CONFLICT (partner_id) DO UPDATE
      SET offset_ms = 0, epoch = sandbox_clocks.epoch + 1, updated_at = now()
      RETURNING offset_ms, epoch`
  const stored: Stored = { offsetMillis: Number(row?.offset_ms ?? 0), epoch: Number(row?.epoch ?? 1) }
  return stored
}, unavailable("reset a sandbox clock"))
