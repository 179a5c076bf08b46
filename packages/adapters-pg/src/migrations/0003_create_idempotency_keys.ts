/**
 * Migration 50: the idempotency keys table (see PgIdempotencyStore.ts).
 *
 * One row per (scope, key): the hash of the request that claimed the key,
 * when it started and when it expires (24 h later), and, once completed,
 * the stored response (status, content type, raw body bytes). The primary
 * key makes claiming race-safe; `expires_at` is indexed for the periodic
 * purge of expired rows.
 *
 * Numbered 50 (not 3) so that it cannot collide with the read-side
 * migrations being added in parallel; the migrator runs ids in order.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`
    CREATE TABLE idempotency_keys (
      scope text NOT NULL,
      key text NOT NULL CHECK (char_length(key) BETWEEN 1 AND 255),
      request_hash text NOT NULL,
      started_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      status integer CHECK (status BETWEEN 100 AND 599),
      content_type text,
      body bytea,
      completed_at timestamptz,
      PRIMARY KEY (scope, key)
    )`
  yield* sql`CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at)`
})
