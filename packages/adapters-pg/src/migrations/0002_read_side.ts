/**
 * Migration 2: the read side and what commits with it.
 *
 * - `read_models`: every projection's documents, one table keyed by
 *   (collection, id), indexed for tenant-scoped cursor pagination
 *   (collection, partner_id, sort_key, id) and for equality lookups on `keys`
 *   (GIN, `jsonb_path_ops`, serving `keys @> $1`).
 * - `outbox`: notifications (webhooks) recorded in the append's transaction,
 *   claimed and delivered by dispatchers (see PgOutbox.ts).
 * - `partners`: partner credentials (scrypt hashes only) and webhook settings.
 * - `lock_event_positions_until_commit()`: taken by appends that run inside a
 *   caller's transaction (a unit of work), see PgEventStore.ts.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`
    CREATE TABLE read_models (
      collection text NOT NULL,
      id text NOT NULL,
      partner_id text NOT NULL,
      keys jsonb NOT NULL DEFAULT '{}'::jsonb,
      sort_key text NOT NULL,
      data jsonb NOT NULL,
      PRIMARY KEY (collection, id)
    )`
  // COLLATE "C": byte order, the same order as JavaScript's string comparison
  // used by the in-memory store (ISO instants and ids sort identically anyway).
  yield* sql`CREATE INDEX read_models_page ON read_models (collection, partner_id, sort_key COLLATE "C", id COLLATE "C")`
  yield* sql`CREATE INDEX read_models_keys ON read_models USING gin (keys jsonb_path_ops)`
  yield* sql`
    CREATE TABLE outbox (
      id text PRIMARY KEY,
      partner_id text NOT NULL,
      event_type text NOT NULL,
      data jsonb NOT NULL,
      position bigint NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivering', 'delivered', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      last_error text,
      claimed_by text,
      claimed_until timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      delivered_at timestamptz
    )`
  // Undelivered rows per partner in commit order: the claim's ordering rule and its scan.
  yield* sql`CREATE INDEX outbox_open ON outbox (partner_id, position) WHERE status IN ('pending', 'delivering')`
  yield* sql`CREATE INDEX outbox_status ON outbox (status, created_at)`
  yield* sql`
    CREATE TABLE partners (
      partner_id uuid PRIMARY KEY,
      name text NOT NULL,
      client_id text NOT NULL UNIQUE,
      secret_hash text NOT NULL,
      webhook_url text,
      webhook_secret text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  // Holds the position-reservation lock (the key of reserve_event_positions)
  // until the transaction ends. Refuses when the transaction already has an xid
  // without holding the lock: its xid would predate positions drawn later.
  yield* sql.unsafe(`
    CREATE FUNCTION lock_event_positions_until_commit() RETURNS void
    LANGUAGE plpgsql AS $fn$
    BEGIN
      IF EXISTS (
        SELECT 1 FROM pg_locks
        WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted AND mode = 'ExclusiveLock'
          AND objsubid = 1
          AND ((classid::bigint << 32) | objid::bigint) = 7460398523113402001
      ) THEN
        RETURN;
      END IF;
      IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
        RAISE EXCEPTION 'an append inside a unit of work must come before any other write of its transaction'
          USING ERRCODE = 'P0001';
      END IF;
      PERFORM pg_advisory_xact_lock(7460398523113402001);
      PERFORM pg_current_xact_id();
    END
    $fn$`)
})
