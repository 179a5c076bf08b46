/**
 * Migration 4: a write path without a global lock, one statement per unit of work.
 *
 * - Global order becomes (transaction id, position): readers take only events
 *   of transactions older than every running one and order them by
 *   `(transaction_id, global_position)` (index `events_commit_order`). The
 *   position-reservation functions of migrations 1 and 2, and the lock they
 *   took, are dropped.
 * - `read_models.revision`: every write of a document draws a new value from
 *   `read_model_revisions`, so a document can be read outside any transaction
 *   and written back only if nobody wrote it since (a stale revision can never
 *   match again, not even after a rebuild).
 * - `snapshots`: the latest snapshot of a long stream's state (see
 *   PgEventStore.ts); derived data, safe to delete at any time.
 * - `commit_unit(unit jsonb)` (created right after the migrations by
 *   `Migrations.run`, from `CommitUnitFunction.ts`, whose current text is
 *   re-created at every start): the whole unit of work (every stream's events
 *   with its expected version, the read-model documents with their expected
 *   revisions, the outbox rows, the snapshots) applied by one call, so one
 *   statement and one implicit transaction. Conflicts raise:
 *     PP001 version conflict   DETAIL {"streamId","expected","actual"}
 *     PP002 document conflict  DETAIL {"collection","id"}
 *     PP003 event id already recorded in another stream  DETAIL {"streamId"}
 *   and roll everything back. Every call holds the shared advisory lock
 *   `rebuildLockKey` until it commits; a projection rebuild takes it
 *   exclusively (PgDomain.rebuildProjections), so it never runs beside a commit.
 *
 * Unit JSON: { streams: [{ id, type, expected: "none" | "any" | <version>,
 *   events: [{ eventId, eventType, schemaVersion, data, metadata }] }],
 *   documents: [{ collection, id, expected: "absent" | "any" | <revision>,
 *   delete?: true, partnerId, keys, sortKey, data }], outbox: [{ id, partnerId,
 *   eventType, data, position }], snapshots: [{ streamId, streamVersion,
 *   schemaVersion, state }] }.
 * Result JSON: { transactionId, streams: [{ version, lastPosition, replayed }] }
 * in the order of `streams`.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

/** Shared by every commit, exclusive for a rebuild (the old position-lock key, now free). */
export const rebuildLockKey = 7460398523113402001n

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`CREATE INDEX events_commit_order ON events (transaction_id, global_position)`
  yield* sql`DROP FUNCTION IF EXISTS reserve_event_positions(integer)`
  yield* sql`DROP FUNCTION IF EXISTS lock_event_positions_until_commit()`
  yield* sql`ALTER TABLE read_models ADD COLUMN revision bigint NOT NULL DEFAULT 0`
  yield* sql`CREATE SEQUENCE read_model_revisions`
  yield* sql`
    CREATE TABLE snapshots (
      stream_id text PRIMARY KEY,
      stream_version integer NOT NULL CHECK (stream_version >= 1),
      schema_version integer NOT NULL,
      state jsonb NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
})
