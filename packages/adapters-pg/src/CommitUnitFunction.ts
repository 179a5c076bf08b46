/**
 * The current definition of `commit_unit(unit jsonb)`, the one statement that
 * writes a whole unit of work (see the README, "Write path", and migration
 * 0004 for the unit JSON, the result and the error codes).
 *
 * A function is code, not schema: migration 0004 created the first version,
 * and `Migrations.run` re-creates it from this text at every start (in the
 * migration transaction, under the migration lock), so a database always runs
 * the function of the code that opened it, without a new migration per change.
 *
 * Kept cheap for the common cases: the unit's arrays are walked by index
 * (PL/pgSQL evaluates those as simple expressions; a FOR over a SELECT would
 * start a query per loop); an append expecting a version (or no
 * stream) checks for an idempotent replay only when the version check fails
 * (a replay of a committed append always fails it, since the stream moved
 * on); only `Any` checks first. A single event is inserted with VALUES, a
 * batch from the JSON array, notifications one VALUES row each (units have
 * one or a few); the outbox and snapshot statements run only when the unit
 * has rows for them. A notification takes
 * its causing event's position from the events the unit inserted (collected
 * only when the unit has notifications), so the common case looks nothing up;
 * a notification of an earlier unit's event keeps the position it was given,
 * or is looked up by its id.
 *
 * A unit that answers an Idempotency-Key stores the answer first, if the key
 * is still held by the unit's claim (`PgIdempotencyStore`): the answer and the
 * request's writes commit together or not at all.
 *
 * Partner ids (the distribution column of a sharded deployment, docs/scaling.md): a stream
 * created by the unit is filed under the partner the unit gives for it (`partner`), an existing
 * stream keeps its own, and its events and snapshot take their stream's; a data key and the
 * Idempotency-Key answer carry the partner of the request that made them (`partnerId`).
 *
 * Commit order per stream: `readAll` orders the log by (transaction id,
 * position), and PostgreSQL gives a transaction its id at its first write, so
 * a stream's versions must be written by transactions whose ids grow with
 * them. A unit takes, before it writes anything, a transaction lock per
 * stream it appends to (sorted, so two units cannot deadlock on them): the
 * unit that appends after another on the same stream waits for it to end
 * and only then gets its id (without the lock, two appends expecting any
 * version could race for a new stream's row, and the one that lost the race
 * hold the older id: its later version would be read first). A transaction
 * that wrote before it calls `commit_unit` (an outer transaction of the
 * caller's) already holds its id: its append to a stream whose previous
 * event was committed by a newer transaction is refused as a version
 * conflict (PP001), to be retried in a new transaction.
 *
 * Error codes: PP001 version conflict, PP002 document conflict, PP003 event id
 * in another stream, PP004 a data key made by the unit for a subject that has
 * one already (`PgPersonalDataVault`), PP005 the unit's Idempotency-Key is no
 * longer held by its claim.
 */
import { rebuildLockKey } from "./migrations/0004_commit_unit.ts"

/** The seed of the advisory lock keys of the streams a unit appends to (schema and stream id hashed). */
export const streamLockSeed = 7460398523113402002n

export const definition = `
CREATE OR REPLACE FUNCTION commit_unit(unit jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $fn$
DECLARE
  s jsonb;
  d jsonb;
  e jsonb;
  items jsonb;
  i integer;
  n integer;
  expected text;
  new_version integer;
  actual integer;
  first_id uuid;
  hit record;
  last_position bigint;
  affected integer;
  replayed boolean;
  results jsonb := '[]'::jsonb;
  notifying boolean := jsonb_array_length(COALESCE(unit -> 'outbox', '[]'::jsonb)) > 0;
  positions jsonb := '{}'::jsonb;
  batch_positions jsonb;
  stream_partner text;
  prior_id xid8 := pg_current_xact_id_if_assigned();
  previous_id xid8;
BEGIN
  PERFORM pg_advisory_xact_lock_shared(hashtextextended(current_schema(), ${rebuildLockKey}));

  -- Each stream appended to is locked before the first write (which gives the transaction its id).
  items := COALESCE(unit -> 'streams', '[]'::jsonb);
  IF jsonb_array_length(items) = 1 THEN
    PERFORM pg_advisory_xact_lock(hashtextextended(current_schema() || '/' || (items -> 0 ->> 'id'), ${streamLockSeed}));
  ELSIF jsonb_array_length(items) > 1 THEN
    PERFORM pg_advisory_xact_lock(k.key)
    FROM (SELECT DISTINCT hashtextextended(current_schema() || '/' || (x.value ->> 'id'), ${streamLockSeed}) AS key
          FROM jsonb_array_elements(items) AS x(value)
          ORDER BY 1) AS k;
  END IF;

  -- The answer of the request holding an Idempotency-Key: stored with the writes, if still held by its claim.
  IF unit ? 'idempotency' THEN
    d := unit -> 'idempotency';
    UPDATE idempotency_keys
    SET status = (d ->> 'status')::integer, content_type = d ->> 'contentType',
        body = decode(d ->> 'body', 'base64'), completed_at = now(), holder = NULL
    WHERE partner_id = COALESCE(d ->> 'partnerId', '') AND scope = d ->> 'scope' AND key = d ->> 'key'
      AND claim = d ->> 'claim' AND status IS NULL;
    GET DIAGNOSTICS affected = ROW_COUNT;
    IF affected = 0 THEN
      RAISE EXCEPTION 'idempotency key no longer held' USING ERRCODE = 'PP005',
        DETAIL = jsonb_build_object('key', d ->> 'key')::text;
    END IF;
  END IF;

  -- Data keys made by the unit for subjects that had none: a subject that got one meanwhile is a conflict.
  items := COALESCE(unit -> 'dataKeys', '[]'::jsonb);
  FOR i IN 0 .. jsonb_array_length(items) - 1 LOOP
    d := items -> i;
    INSERT INTO personal_data_keys (subject, wrapped_key, master_key_id, partner_id)
    VALUES (d ->> 'subject', d ->> 'wrapped', d ->> 'masterKeyId', COALESCE(d ->> 'partnerId', ''))
    ON CONFLICT (subject) DO NOTHING;
    GET DIAGNOSTICS affected = ROW_COUNT;
    IF affected = 0 THEN
      RAISE EXCEPTION 'data key conflict' USING ERRCODE = 'PP004',
        DETAIL = jsonb_build_object('subject', d ->> 'subject')::text;
    END IF;
  END LOOP;

  items := COALESCE(unit -> 'streams', '[]'::jsonb);
  FOR i IN 0 .. jsonb_array_length(items) - 1 LOOP
    s := items -> i;
    n := jsonb_array_length(s -> 'events');
    first_id := (s -> 'events' -> 0 ->> 'eventId')::uuid;
    expected := s ->> 'expected';
    new_version := NULL;
    replayed := false;
    -- The stream's partner: the stored one for a stream that exists, else the one the unit gives.
    stream_partner := COALESCE(s ->> 'partner', '');
    IF expected = 'any' THEN
      SELECT stream_id, stream_version INTO hit FROM events WHERE event_id = first_id;
      IF FOUND THEN
        replayed := true;
      ELSE
        INSERT INTO streams (stream_id, stream_type, version, partner_id)
        VALUES (s ->> 'id', s ->> 'type', n, stream_partner)
        ON CONFLICT (stream_id) DO UPDATE SET version = streams.version + EXCLUDED.version, updated_at = now()
        RETURNING version, partner_id INTO new_version, stream_partner;
      END IF;
    ELSE
      IF expected = 'none' THEN
        INSERT INTO streams (stream_id, stream_type, version, partner_id)
        VALUES (s ->> 'id', s ->> 'type', n, stream_partner)
        ON CONFLICT (stream_id) DO NOTHING RETURNING version INTO new_version;
      ELSE
        UPDATE streams SET version = version + n, updated_at = now()
        WHERE stream_id = s ->> 'id' AND version = expected::integer
        RETURNING version, partner_id INTO new_version, stream_partner;
      END IF;
      IF new_version IS NULL THEN
        -- The stream is not where the append expects it: a replay of a committed append, or a conflict.
        SELECT stream_id, stream_version INTO hit FROM events WHERE event_id = first_id;
        IF NOT FOUND THEN
          SELECT version INTO actual FROM streams WHERE stream_id = s ->> 'id';
          RAISE EXCEPTION 'version conflict' USING ERRCODE = 'PP001',
            DETAIL = jsonb_build_object('streamId', s ->> 'id', 'expected', expected, 'actual', COALESCE(actual, 0))::text;
        END IF;
        replayed := true;
      END IF;
    END IF;

    IF replayed THEN
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

    IF prior_id IS NOT NULL AND new_version > n THEN
      -- A transaction that had its id before this call: the stream's previous event must be older.
      SELECT transaction_id INTO previous_id FROM events
      WHERE stream_id = s ->> 'id' AND stream_version = new_version - n;
      IF previous_id > prior_id THEN
        RAISE EXCEPTION 'version conflict' USING ERRCODE = 'PP001',
          DETAIL = jsonb_build_object('streamId', s ->> 'id', 'expected', expected, 'actual', new_version - n)::text;
      END IF;
    END IF;

    IF n = 1 THEN
      e := s -> 'events' -> 0;
      INSERT INTO events (stream_id, stream_type, stream_version, event_id, event_type, schema_version, data, metadata,
                          partner_id)
      VALUES (s ->> 'id', s ->> 'type', new_version, first_id, e ->> 'eventType', (e ->> 'schemaVersion')::integer,
              e -> 'data', COALESCE(e -> 'metadata', '{}'::jsonb), stream_partner)
      RETURNING global_position INTO last_position;
      IF notifying THEN
        positions := positions || jsonb_build_object(first_id::text, last_position);
      END IF;
    ELSE
      WITH inserted AS (
        INSERT INTO events (stream_id, stream_type, stream_version, event_id, event_type, schema_version, data, metadata,
                            partner_id)
        SELECT s ->> 'id', s ->> 'type', new_version - n + x.ord::integer, (x.value ->> 'eventId')::uuid,
               x.value ->> 'eventType', (x.value ->> 'schemaVersion')::integer, x.value -> 'data',
               COALESCE(x.value -> 'metadata', '{}'::jsonb), stream_partner
        FROM jsonb_array_elements(s -> 'events') WITH ORDINALITY AS x(value, ord)
        ORDER BY x.ord
        RETURNING event_id, global_position
      )
      SELECT max(global_position), CASE WHEN notifying THEN jsonb_object_agg(event_id::text, global_position) END
      INTO last_position, batch_positions
      FROM inserted;
      IF notifying THEN
        positions := positions || batch_positions;
      END IF;
    END IF;
    results := results || jsonb_build_object('version', new_version, 'lastPosition', last_position, 'replayed', false);
  END LOOP;

  items := COALESCE(unit -> 'documents', '[]'::jsonb);
  FOR i IN 0 .. jsonb_array_length(items) - 1 LOOP
    d := items -> i;
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

  IF notifying THEN
    -- A notification's id is its causing event's id, and its position that event's: taken from the
    -- events this unit inserted, else the one given, else looked up (an event of an earlier unit).
    -- Worked out in simple expressions, so that the INSERT's plan stays generic (a COALESCE over
    -- a sub-select in the statement made PostgreSQL plan it again at every call).
    items := unit -> 'outbox';
    FOR i IN 0 .. jsonb_array_length(items) - 1 LOOP
      d := items -> i;
      last_position := COALESCE((positions ->> (d ->> 'id'))::bigint, NULLIF((d ->> 'position')::bigint, 0));
      IF last_position IS NULL
         AND (d ->> 'id') ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' THEN
        SELECT ev.global_position INTO last_position FROM events ev WHERE ev.event_id = (d ->> 'id')::uuid;
      END IF;
      INSERT INTO outbox (id, partner_id, event_type, data, position)
      VALUES (d ->> 'id', d ->> 'partnerId', d ->> 'eventType', d -> 'data', COALESCE(last_position, 0))
      ON CONFLICT (id) DO NOTHING;
    END LOOP;
  END IF;

  IF jsonb_array_length(COALESCE(unit -> 'snapshots', '[]'::jsonb)) > 0 THEN
    INSERT INTO snapshots (stream_id, stream_version, schema_version, state, partner_id)
    SELECT x.value ->> 'streamId', (x.value ->> 'streamVersion')::integer, (x.value ->> 'schemaVersion')::integer,
           x.value -> 'state',
           COALESCE((SELECT st.partner_id FROM streams st WHERE st.stream_id = x.value ->> 'streamId'), '')
    FROM jsonb_array_elements(unit -> 'snapshots') AS x(value)
    ON CONFLICT (stream_id) DO UPDATE SET stream_version = EXCLUDED.stream_version,
      schema_version = EXCLUDED.schema_version, state = EXCLUDED.state, updated_at = now()
    WHERE snapshots.stream_version < EXCLUDED.stream_version OR snapshots.schema_version <> EXCLUDED.schema_version;
  END IF;

  RETURN jsonb_build_object('transactionId', pg_current_xact_id()::text, 'streams', results);
END
$fn$`
