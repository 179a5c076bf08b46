/**
 * The domain `ReadModelStore` port on PostgreSQL: every projection's
 * documents in one table, `read_models` (migration 0002).
 *
 * `find` answers exactly like the in-memory store's `selectPage` (a shared
 * contract test runs the same cases on both): documents of one partner,
 * every key equal (`keys @> $keys`, served by a GIN index), inclusive sort-key
 * bounds, ordered by (sort_key, id) ascending or descending, cursor
 * `startingAfter` = the id of the last document of the previous page (seek
 * pagination on that document's (sort_key, id); a cursor that is not among
 * the matching documents gives an empty page), `hasMore` by fetching one row
 * more than the limit. Text comparisons use the "C" collation (byte order),
 * matching JavaScript string comparison for the ASCII keys and ids used.
 *
 * Units of work (`PgUnit.ts`): every document carries a `revision`, drawn
 * anew at each write (migration 0004). Inside a unit, `get` reads the
 * document once (a plain read, no lock, no transaction) and the unit keeps it
 * with its revision; later `get`s answer from the unit, `put` and `delete`
 * change the unit's copy, and the unit's commit writes the document back only
 * if its revision is still the one read (else the unit is retried). `find`
 * reads the database (it does not see the unit's own uncommitted documents).
 * Outside a unit, `put` and `delete` write at once, unconditionally (rebuilds).
 */
import { ReadModel, Tenancy, Traced } from "@partnerpay/domain"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as PartnerScope from "./PartnerScope.ts"
import * as PgUnit from "./PgUnit.ts"
import { unavailable } from "./SqlErrors.ts"

/** One document by (collection, id); in a partner's request, `PartnerScope.andDocuments` as written out. */
const readText =
  "SELECT revision, id, partner_id, keys, sort_key, data FROM read_models WHERE collection = $1 AND id = $2"
const readInPartnerText = `${readText} AND partner_id IN ($3, $4)`
/** The same, for a document whose data this store holds at revision $3: no data sent if it is still that one. */
const readKnownText =
  "SELECT revision, id, partner_id, keys, sort_key, CASE WHEN revision = $3 THEN NULL ELSE data END AS data " +
  "FROM read_models WHERE collection = $1 AND id = $2"
const readKnownInPartnerText = `${readKnownText} AND partner_id IN ($4, $5)`

/**
 * How many documents' data a store keeps with their revision (the most recently read first in, first
 * out), so that reading one again unchanged neither sends nor parses its data. Each is a parsed
 * document as stored (personal fields still sealed): a few KB.
 */
export const keptDocumentsMax = 512

interface Row {
  readonly revision?: bigint | number | string
  readonly id: string
  readonly partner_id: string
  readonly keys: Record<string, string>
  readonly sort_key: string
  readonly data: unknown
}

const toStored = (collection: string, row: Row): ReadModel.StoredDocument => ({
  collection,
  id: row.id,
  data: row.data,
  index: { partnerId: row.partner_id, keys: row.keys, sortKey: row.sort_key },
})

/** A document row read for a unit, with its collection. */
export interface OwnedRow extends Row {
  readonly collection: string
}

/** The collections among `collections` whose document `id` the unit does not know yet. */
export const unknownTo = (unit: PgUnit.Unit, collections: ReadonlyArray<string>, id: string): ReadonlyArray<string> =>
  collections.filter((collection) => unit.document(collection, id) === undefined)

/**
 * Remembers in `unit` the documents `id` of `wanted` as read (`rows`), with their revisions; a
 * collection without a row is remembered as absent, one the unit learnt meanwhile is left alone.
 * `PgEventStore` reads an aggregate's own documents in its stream's statement and files them here,
 * so the unit's later `get`s need no round trip.
 */
export const rememberRead = (
  unit: PgUnit.Unit,
  wanted: ReadonlyArray<string>,
  id: string,
  rows: ReadonlyArray<OwnedRow>,
): void => {
  for (const collection of wanted) {
    if (unit.document(collection, id) !== undefined) continue
    const row = rows.find((candidate) => candidate.collection === collection)
    unit.remember({
      collection,
      id,
      expected: row === undefined ? { _tag: "Absent" } : { _tag: "Revision", revision: String(row.revision ?? 0) },
      current: row === undefined ? undefined : toStored(collection, row),
      dirty: false,
    })
  }
}

/** Builds the store on the `SqlClient` in context (migrations must have run). */
export const make: Effect.Effect<ReadModel.ReadModelStore["Service"], never, SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient

  // The hottest statement of the service (every read of one document): its text written once, so that
  // a read costs no statement compilation (a template with a fragment is compiled at every call: about
  // 7 µs of a 20 µs statement, measured with 64 in flight). Same text, same parameters.
  //
  // A document read is kept with its revision (`kept`): every write draws a new revision from one
  // sequence (migration 0004), so a row still at the kept revision holds the kept data, whoever wrote
  // it and whichever instance reads it. The statement then asks for the data only if the revision
  // changed. Revision 0 is a row no write of this store made (a migration's): never kept. The data
  // is returned frozen (`ReadModel.decodeDocument` keeps its decoding with it).
  const kept = new Map<string, { readonly revision: string; readonly data: unknown }>()
  const keep = (key: string, revision: string, data: unknown) => {
    if (kept.size >= keptDocumentsMax && !kept.has(key)) {
      const oldest = kept.keys().next()
      if (oldest.done !== true) kept.delete(oldest.value)
    }
    // Frozen: shared by every later read, and the mark that lets readers keep what they derive from it.
    kept.set(key, { revision, data: Object.freeze(data) })
  }
  const statementOf = (
    collection: string,
    id: string,
    partner: string | undefined,
    known: { readonly revision: string } | undefined,
  ) =>
    known === undefined
      ? partner === undefined
        ? sql.unsafe<Row>(readText, [collection, id])
        : sql.unsafe<Row>(readInPartnerText, [collection, id, partner, Tenancy.systemTenant])
      : partner === undefined
        ? sql.unsafe<Row>(readKnownText, [collection, id, known.revision])
        : sql.unsafe<Row>(readKnownInPartnerText, [collection, id, known.revision, partner, Tenancy.systemTenant])
  const read = (collection: string, id: string) =>
    Effect.flatMap(PartnerScope.current, (partner) => {
      const key = `${collection}\u0000${id}`
      const known = kept.get(key)
      return Effect.map(statementOf(collection, id, partner, known), (rows): Row | undefined => {
        const row = rows[0]
        if (row === undefined) return undefined
        const revision = String(row.revision ?? 0)
        if (known !== undefined && revision === known.revision) return { ...row, data: known.data }
        if (revision !== "0") keep(key, revision, row.data)
        return row
      })
    })

  const get = Traced.fn("PgReadModelStore.get")(function* (collection: string, id: string) {
    const unit = yield* PgUnit.CurrentUnit
    if (unit === undefined) {
      const row = yield* read(collection, id)
      return Option.map(Option.fromUndefinedOr(row), (found) => toStored(collection, found))
    }
    const known = unit.document(collection, id)
    if (known !== undefined) return Option.fromUndefinedOr(known.current)
    const row = yield* read(collection, id)
    const current = row === undefined ? undefined : toStored(collection, row)
    unit.remember({
      collection,
      id,
      expected: row === undefined ? { _tag: "Absent" } : { _tag: "Revision", revision: String(row.revision ?? 0) },
      current,
      dirty: false,
    })
    return Option.fromUndefinedOr(current)
  }, unavailable("read model get"))

  const find = Traced.fn("PgReadModelStore.find")(function* (collection: string, query: ReadModel.Query) {
    const filters = [sql`collection = ${collection}`, sql`partner_id = ${query.partnerId}`]
    if (query.keys !== undefined && Object.keys(query.keys).length > 0) {
      filters.push(sql`keys @> ${JSON.stringify(query.keys)}::jsonb`)
    }
    if (query.sortKeyFrom !== undefined) filters.push(sql`sort_key COLLATE "C" >= ${query.sortKeyFrom}`)
    if (query.sortKeyTo !== undefined) filters.push(sql`sort_key COLLATE "C" <= ${query.sortKeyTo}`)
    const descending = (query.order ?? "desc") === "desc"
    if (query.startingAfter !== undefined) {
      // The cursor must itself match the query, as in `selectPage`.
      const cursor = yield* sql<{ sort_key: string; id: string }>`
          SELECT sort_key, id FROM read_models WHERE ${sql.and([...filters, sql`id = ${query.startingAfter}`])}`
      const at = cursor[0]
      if (at === undefined) return { items: [], hasMore: false }
      filters.push(
        descending
          ? sql`(sort_key COLLATE "C", id COLLATE "C") < (${at.sort_key}, ${at.id})`
          : sql`(sort_key COLLATE "C", id COLLATE "C") > (${at.sort_key}, ${at.id})`,
      )
    }
    const limit = Math.max(0, Math.floor(query.limit))
    const direction = sql.literal(descending ? "DESC" : "ASC")
    const rows = yield* sql<Row>`
        SELECT id, partner_id, keys, sort_key, data FROM read_models
        WHERE ${sql.and(filters)}
        ORDER BY sort_key COLLATE "C" ${direction}, id COLLATE "C" ${direction}
        LIMIT ${limit + 1}`
    return {
      items: rows.slice(0, limit).map((row) => toStored(collection, row)),
      hasMore: rows.length > limit,
    }
  }, unavailable("read model find"))

  /** The unit's entry for a document it writes (a write without a read expects nothing). */
  const entryFor = (unit: PgUnit.Unit, collection: string, id: string): PgUnit.PendingDocument => {
    const known = unit.document(collection, id)
    if (known !== undefined) return known
    const entry: PgUnit.PendingDocument = {
      collection,
      id,
      expected: { _tag: "Any" },
      current: undefined,
      dirty: false,
    }
    unit.remember(entry)
    return entry
  }

  const put = Traced.fn("PgReadModelStore.put")(function* (document: ReadModel.StoredDocument) {
    const unit = yield* PgUnit.CurrentUnit
    if (unit !== undefined) {
      const entry = entryFor(unit, document.collection, document.id)
      entry.current = document
      entry.dirty = true
      return
    }
    yield* sql`
      INSERT INTO read_models (collection, id, partner_id, keys, sort_key, data, revision)
      VALUES (${document.collection}, ${document.id}, ${document.index.partnerId},
              ${JSON.stringify(document.index.keys)}::jsonb, ${document.index.sortKey}, ${JSON.stringify(document.data)}::jsonb,
              nextval('read_model_revisions'))
      ON CONFLICT (collection, id) DO UPDATE SET
        partner_id = EXCLUDED.partner_id, keys = EXCLUDED.keys, sort_key = EXCLUDED.sort_key, data = EXCLUDED.data,
        revision = EXCLUDED.revision`
  }, unavailable("read model put"))

  const remove = Traced.fn("PgReadModelStore.delete")(function* (collection: string, id: string) {
    const unit = yield* PgUnit.CurrentUnit
    if (unit !== undefined) {
      const entry = entryFor(unit, collection, id)
      entry.current = undefined
      entry.dirty = true
      return
    }
    const partner = yield* PartnerScope.current
    yield* sql`DELETE FROM read_models WHERE collection = ${collection} AND id = ${id} ${PartnerScope.andDocuments(sql, partner)}`
  }, unavailable("read model delete"))

  const clear = (collection: string) =>
    sql`DELETE FROM read_models WHERE collection = ${collection}`.pipe(Effect.asVoid, unavailable("read model clear"))

  return ReadModel.ReadModelStore.of({ get, find, put, delete: remove, clear })
})

/** `ReadModelStore` on the `SqlClient` in context. */
export const layer: Layer.Layer<ReadModel.ReadModelStore, never, SqlClient> = Layer.effect(
  ReadModel.ReadModelStore,
  make,
)
