/**
 * Migration 6: token revocation by generation (see PgTokenGenerations.ts).
 *
 * - `token_generation_seq`: one increasing counter shared by every subject, so
 *   a new generation is above every generation any subject ever had.
 * - `token_generations`: the current generation of each subject whose tokens
 *   were revoked (`partner:<id>`, `customer:<registration id>`); a subject
 *   without a row has generation 0. `updated_at` drives the other processes'
 *   polling and the pruning of rows older than every token still valid.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`CREATE SEQUENCE IF NOT EXISTS token_generation_seq`
  yield* sql`
    CREATE TABLE IF NOT EXISTS token_generations (
      subject text PRIMARY KEY,
      generation bigint NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX IF NOT EXISTS token_generations_updated_at ON token_generations (updated_at)`
})
