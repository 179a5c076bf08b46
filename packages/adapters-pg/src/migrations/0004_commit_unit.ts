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
 * - `commit_unit(unit jsonb)`: the whole unit of work (every stream's events
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
  yield* sql.unsafe(`
    CREATE FUNCTION commit_unit(unit jsonb) RETURNS jsonb
    LANGUAGE plpgsql AS $fn$
    DECLARE
      s jsonb;
      d jsonb;
      n integer;
      expected text;
      new_version integer;
      actual integer;
      first_id uuid;
      hit record;
      last_position bigint;
      affected integer;
      results jsonb := '[]'::jsonb;
    BEGIN
      PERFORM pg_advisory_xact_lock_shared(${rebuildLockKey});

      FOR s IN SELECT value FROM jsonb_array_elements(COALESCE(unit -> 'streams', '[]'::jsonb)) LOOP
        n := jsonb_array_length(s -> 'events');
        first_id := (s -> 'events' -> 0 ->> 'eventId')::uuid;
        expected := s ->> 'expected';
        new_version := NULL;
        SELECT stream_id, stream_version INTO hit FROM events WHERE event_id = first_id;
        IF NOT FOUND THEN
          IF expected = 'none' THEN
            INSERT INTO streams (stream_id, stream_type, version) VALUES (s ->> 'id', s ->> 'type', n)
            ON CONFLICT (stream_id) DO NOTHING RETURNING version INTO new_version;
          ELSIF expected = 'any' THEN
            INSERT INTO streams (stream_id, stream_type, version) VALUES (s ->> 'id', s ->> 'type', n)
            ON CONFLICT (stream_id) DO UPDATE SET version = streams.version + EXCLUDED.version, updated_at = now()
            RETURNING version INTO new_version;
          ELSE
            UPDATE streams SET version = version + n, updated_at = now()
            WHERE stream_id = s ->> 'id' AND version = expected::integer
            RETURNING version INTO new_version;
          END IF;
          IF new_version IS NULL THEN
            -- A racing append of the same events may have won meanwhile (this statement sees it now).
            SELECT stream_id, stream_version INTO hit FROM events WHERE event_id = first_id;
            IF NOT FOUND THEN
              SELECT version INTO actual FROM streams WHERE stream_id = s ->> 'id';
              RAISE EXCEPTION 'version conflict' USING ERRCODE = 'PP001',
                DETAIL = jsonb_build_object('streamId', s ->> 'id', 'expected', expected, 'actual', COALESCE(actual, 0))::text;
            END IF;
          END IF;
        END IF;

        IF new_version IS NULL THEN
          -- Idempotent replay: the first event is stored; answer with the stored outcome, write nothing.
          IF hit.stream_id <> s ->> 'id' THEN
            RAISE EXCEPTION 'event id already recorded in another stream' USING ERRCODE = 'PP003',
              DETAIL = jsonb_build_object('streamId', s ->> 'id')::text;
          END IF;
          SELECT stream_version, global_position INTO hit FROM events
          WHERE stream_id = s ->> 'id' AND stream_version BETWEEN hit.stream_version AND hit.stream_version + n - 1
          ORDER BY stream_version DESC LIMIT 1;
          results := results || jsonb_build_object('version', hit.stream_version, 'lastPosition', hit.global_position, 'replayed', true);
          CONTINUE;
        END IF;

        WITH inserted AS (
          INSERT INTO events (stream_id, stream_type, stream_version, event_id, event_type, schema_version, data, metadata)
          SELECT s ->> 'id', s ->> 'type', new_version - n + e.ord::integer, (e.value ->> 'eventId')::uuid,
                 e.value ->> 'eventType', (e.value ->> 'schemaVersion')::integer, e.value -> 'data',
                 COALESCE(e.value -> 'metadata', '{}'::jsonb)
          FROM jsonb_array_elements(s -> 'events') WITH ORDINALITY AS e(value, ord)
          ORDER BY e.ord
          RETURNING global_position
        )
        SELECT max(global_position) INTO last_position FROM inserted;
        results := results || jsonb_build_object('version', new_version, 'lastPosition', last_position, 'replayed', false);
      END LOOP;

      FOR d IN SELECT value FROM jsonb_array_elements(COALESCE(unit -> 'documents', '[]'::jsonb)) LOOP
        expected := d ->> 'expected';
        IF (d ->> 'delete') = 'true' THEN
          DELETE FROM read_models WHERE collection = d ->> 'collection' AND id = d ->> 'id'
            AND (expected = 'any' OR revision = expected::bigint);
          GET DIAGNOSTICS affected = ROW_COUNT;
          IF affected = 0 AND expected <> 'any' THEN
            RAISE EXCEPTION 'document conflict' USING ERRCODE = 'PP002',
              DETAIL = jsonb_build_object('collection', d ->> 'collection', 'id', d ->> 'id')::text;
          END IF;
        ELSIF expected = 'absent' THEN
          INSERT INTO read_models (collection, id, partner_id, keys, sort_key, data, revision)
          VALUES (d ->> 'collection', d ->> 'id', d ->> 'partnerId', d -> 'keys', d ->> 'sortKey', d -> 'data',
                  nextval('read_model_revisions'))
          ON CONFLICT (collection, id) DO NOTHING;
          GET DIAGNOSTICS affected = ROW_COUNT;
          IF affected = 0 THEN
            RAISE EXCEPTION 'document conflict' USING ERRCODE = 'PP002',
              DETAIL = jsonb_build_object('collection', d ->> 'collection', 'id', d ->> 'id')::text;
          END IF;
        ELSIF expected = 'any' THEN
          INSERT INTO read_models (collection, id, partner_id, keys, sort_key, data, revision)
          VALUES (d ->> 'collection', d ->> 'id', d ->> 'partnerId', d -> 'keys', d ->> 'sortKey', d -> 'data',
                  nextval('read_model_revisions'))
          ON CONFLICT (collection, id) DO UPDATE SET partner_id = EXCLUDED.partner_id, keys = EXCLUDED.keys,
            sort_key = EXCLUDED.sort_key, data = EXCLUDED.data, revision = EXCLUDED.revision;
        ELSE
          UPDATE read_models SET partner_id = d ->> 'partnerId', keys = d -> 'keys', sort_key = d ->> 'sortKey',
            data = d -> 'data', revision = nextval('read_model_revisions')
          WHERE collection = d ->> 'collection' AND id = d ->> 'id' AND revision = expected::bigint;
          GET DIAGNOSTICS affected = ROW_COUNT;
          IF affected = 0 THEN
            RAISE EXCEPTION 'document conflict' USING ERRCODE = 'PP002',
              DETAIL = jsonb_build_object('collection', d ->> 'collection', 'id', d ->> 'id')::text;
          END IF;
        END IF;
      END LOOP;

      -- A notification's id is its causing event's id: its position is that event's.
      INSERT INTO outbox (id, partner_id, event_type, data, position)
      SELECT o.value ->> 'id', o.value ->> 'partnerId', o.value ->> 'eventType', o.value -> 'data',
             COALESCE(
               (SELECT e.global_position FROM events e
                WHERE (o.value ->> 'id') ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'
                  AND e.event_id = (o.value ->> 'id')::uuid),
               (o.value ->> 'position')::bigint)
      FROM jsonb_array_elements(COALESCE(unit -> 'outbox', '[]'::jsonb)) WITH ORDINALITY AS o(value, ord)
      ORDER BY o.ord
      ON CONFLICT (id) DO NOTHING;

      INSERT INTO snapshots (stream_id, stream_version, schema_version, state)
      SELECT x.value ->> 'streamId', (x.value ->> 'streamVersion')::integer, (x.value ->> 'schemaVersion')::integer,
             x.value -> 'state'
      FROM jsonb_array_elements(COALESCE(unit -> 'snapshots', '[]'::jsonb)) AS x(value)
      ON CONFLICT (stream_id) DO UPDATE SET stream_version = EXCLUDED.stream_version,
        schema_version = EXCLUDED.schema_version, state = EXCLUDED.state, updated_at = now()
      WHERE snapshots.stream_version < EXCLUDED.stream_version OR snapshots.schema_version <> EXCLUDED.schema_version;

      RETURN jsonb_build_object('transactionId', pg_current_xact_id()::text, 'streams', results);
    END
    $fn$`)
})
