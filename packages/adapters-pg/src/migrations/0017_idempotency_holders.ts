/**
 * Migration 17: an Idempotency-Key's claim lives as long as the process that
 * holds it, not for a fixed time (see PgIdempotencyStore.ts).
 *
 * - `service_instances`: one row per running service process, seen again by
 *   its heartbeat every second (`PgServiceInstance`); a process that died
 *   stops being seen, and its claims are free a few seconds later.
 * - `idempotency_keys.claim`: the token of the attempt that holds the key,
 *   checked by the commit that stores the answer with the request's writes
 *   (`commit_unit`); `holder`: the instance running it. In-progress rows of
 *   older versions have neither, so they are free at once.
 * - `idempotency_keys_held`: in-progress claims by holder, for the cleanup of
 *   an instance's abandoned claims.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`
    CREATE TABLE IF NOT EXISTS service_instances (
      instance_id uuid PRIMARY KEY,
      started_at timestamptz NOT NULL DEFAULT now(),
      seen_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`ALTER TABLE idempotency_keys ADD COLUMN IF NOT EXISTS claim text, ADD COLUMN IF NOT EXISTS holder uuid`
  yield* sql`CREATE INDEX IF NOT EXISTS idempotency_keys_held ON idempotency_keys (holder) WHERE status IS NULL`
})
