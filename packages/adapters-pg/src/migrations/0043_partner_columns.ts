/**
 * Migration 43: every table holding a partner's data carries the partner id
 * (issue 27 section 4; docs/scaling.md, "Past one PostgreSQL"): the column a
 * sharded deployment (Citus) distributes by, and the filter of every query of
 * a partner's request.
 *
 * Adds `partner_id text NOT NULL DEFAULT ''` to `streams`, `events`,
 * `snapshots`, `idempotency_keys`, `personal_data_keys` and
 * `token_generations` ('' for a row of no partner, e.g. the streams of an
 * operator's own work), and backfills it from the owning row:
 * - a stream: the first `partnerId` of its events' metadata, else of their
 *   data, else the partner of the read-model document named after its
 *   aggregate id (`<Type>-<id>`);
 * - an event and a snapshot: their stream's;
 * - an Idempotency-Key: its scope (`partner:<id>` or `customer:<id>:<registration>`);
 * - a data key and a token generation: their subject, `partner:<id>` and
 *   `partner-webhook:<id>` naming the partner, any other `<kind>:<id>` the
 *   partner of the document or stream of that id.
 * From now on the writers fill it (`commit_unit`, the stores).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  for (const table of [
    "streams",
    "events",
    "snapshots",
    "idempotency_keys",
    "personal_data_keys",
    "token_generations",
  ]) {
    yield* sql`ALTER TABLE ${sql(table)} ADD COLUMN IF NOT EXISTS partner_id text NOT NULL DEFAULT ''`
  }
  yield* sql`
    UPDATE streams s SET partner_id = found.partner_id
    FROM (
      SELECT DISTINCT ON (stream_id) stream_id, COALESCE(metadata ->> 'partnerId', data ->> 'partnerId') AS partner_id
      FROM events
      WHERE COALESCE(metadata ->> 'partnerId', data ->> 'partnerId') IS NOT NULL
      ORDER BY stream_id, stream_version
    ) found
    WHERE s.stream_id = found.stream_id AND s.partner_id = ''`
  yield* sql`
    UPDATE streams s SET partner_id = doc.partner_id
    FROM read_models doc
    WHERE s.partner_id = '' AND doc.id = substr(s.stream_id, length(s.stream_type) + 2)
      AND s.stream_id = s.stream_type || '-' || doc.id AND doc.partner_id <> ''`
  yield* sql`
    UPDATE events e SET partner_id = s.partner_id FROM streams s
    WHERE e.stream_id = s.stream_id AND s.partner_id <> '' AND e.partner_id = ''`
  yield* sql`
    UPDATE snapshots n SET partner_id = s.partner_id FROM streams s
    WHERE n.stream_id = s.stream_id AND s.partner_id <> '' AND n.partner_id = ''`
  yield* sql`
    UPDATE idempotency_keys SET partner_id = split_part(scope, ':', 2)
    WHERE partner_id = '' AND (scope LIKE 'partner:%' OR scope LIKE 'customer:%')`
  for (const table of ["personal_data_keys", "token_generations"]) {
    yield* sql`
      UPDATE ${sql(table)} SET partner_id = split_part(subject, ':', 2)
      WHERE partner_id = '' AND (subject LIKE 'partner:%' OR subject LIKE 'partner-webhook:%')`
    yield* sql`
      UPDATE ${sql(table)} t SET partner_id = owner.partner_id
      FROM (
        SELECT DISTINCT ON (id) id, partner_id FROM read_models WHERE partner_id <> '' ORDER BY id, collection
      ) owner
      WHERE t.partner_id = '' AND owner.id = substr(t.subject, strpos(t.subject, ':') + 1)`
    yield* sql`
      UPDATE ${sql(table)} t SET partner_id = s.partner_id
      FROM streams s
      WHERE t.partner_id = '' AND s.partner_id <> ''
        AND s.stream_id = s.stream_type || '-' || substr(t.subject, strpos(t.subject, ':') + 1)`
  }
})
