/**
 * The domain `EventStore` port on PostgreSQL (a server, or PGlite through the
 * same client). Schema: migrations 0001 and 0004; design: the package README,
 * "Write path".
 *
 * Appends. An append inside a unit of work (`PgUnitOfWork`) is kept in the
 * unit (`PgUnit.ts`) and written when the unit ends, together with the unit's
 * other appends, read-model documents and outbox rows, by ONE call of the
 * `commit_unit` function: one statement, one implicit transaction. An append
 * outside a unit is a unit of its own. The append hook (projections and
 * notifications, `onAppend`) runs when the append is made, so the unit's later
 * reads see its documents; its writes go into the unit too.
 *
 * Expected version: `commit_unit` checks each stream with a conditional write
 * on its `streams` row (UPDATE ... WHERE version = expected, INSERT ... ON
 * CONFLICT DO NOTHING for NoStream). Racing writers queue on the row lock; the
 * loser matches no row and the commit raises with the actual version
 * (`VersionConflict`); nothing of the unit is written. Inside one unit, a
 * second append to the same stream is checked against the unit's own pending
 * version at once.
 *
 * Idempotency: when a stream's first event id is already stored in that
 * stream, that stream's append is a replay: nothing is written for it and the
 * stored outcome is returned (also when a racing duplicate wins first).
 *
 * Global order (readAll) without a global lock: positions come from a
 * sequence and transactions commit in any order, so the order of the log is
 * (transaction id, position): `readAll` returns only events of transactions
 * older than every running one (`transaction_id < pg_snapshot_xmin(
 * pg_current_snapshot())`), ordered by `(transaction_id, global_position)`,
 * strictly after the checkpoint `(transaction_id, global_position)` of the
 * event at position `after`. A transaction whose id is below the horizon has
 * ended, so its events are all visible or all gone; a transaction that ends
 * later has an id at or above the horizon of every earlier read, so it sorts
 * after every checkpoint taken so far: nothing is skipped. Positions stay
 * unique, and increase within a transaction, but not across transactions in
 * this order. Within a stream this order is the version order: `commit_unit`
 * locks the unit's streams before its first write (which gives the
 * transaction its id), and refuses an append of a transaction that had its
 * id before a newer one extended the stream (`CommitUnitFunction.ts`).
 *
 * Errors: every database failure becomes `EventStoreUnavailable` with a short
 * reason (the SQL error is logged, never returned).
 */

import { EventStore, Held, Traced } from "@partnerpay/domain"
import { Clock, Context, DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as PartnerScope from "./PartnerScope.ts"
import * as PgReadModelStore from "./PgReadModelStore.ts"
import * as PgUnit from "./PgUnit.ts"
import { logFailure, redact } from "./SqlErrors.ts"

/**
 * Extra work done with an append, in its unit of work (e.g. projections,
 * outbox rows). It sees the recorded events (positions are 0 until the unit
 * commits); read models and outbox rows it writes through the adapters of this
 * package join the unit. A failure fails the append (reported as
 * `EventStoreUnavailable`). Not called for idempotent replays.
 */
export type OnAppend = (events: ReadonlyArray<EventStore.RecordedEvent>) => Effect.Effect<void, unknown, SqlClient>

export interface Options {
  readonly onAppend?: OnAppend
  /**
   * The read-model collections whose documents are keyed by the aggregate id of a stream type
   * (`ReadModel.collectionsOwnedBy`): inside a unit of work, reading such a stream also reads those
   * documents, in the stream's own statement, for the append's hook to use.
   */
  readonly ownedCollections?: (streamType: string) => ReadonlyArray<string>
}

interface EventRow {
  readonly global_position: bigint | number | string
  readonly stream_id: string
  readonly stream_type: string
  readonly stream_version: number
  readonly event_id: string
  readonly event_type: string
  readonly schema_version: number
  readonly data: unknown
  readonly metadata: unknown
  readonly recorded_at: Date
}

const columns = `global_position, stream_id, stream_type, stream_version, event_id, event_type, schema_version, data, metadata, recorded_at`

const metadataKeys = ["partnerId", "correlationId", "causationId", "idempotencyKey"] as const

const toMetadata = (value: unknown): EventStore.EventMetadata => {
  const out: Record<string, string> = {}
  if (typeof value === "object" && value !== null) {
    for (const key of metadataKeys) {
      const field = (value as Record<string, unknown>)[key]
      if (typeof field === "string") out[key] = field
    }
  }
  return out
}

/** Bigint columns arrive as JS bigint: positions are converted here, at the edge. */
const toRecorded = (row: EventRow): EventStore.RecordedEvent => ({
  eventId: row.event_id,
  eventType: row.event_type,
  schemaVersion: Number(row.schema_version),
  data: row.data,
  metadata: toMetadata(row.metadata),
  streamId: row.stream_id,
  streamType: row.stream_type,
  streamVersion: Number(row.stream_version),
  globalPosition: Number(row.global_position),
  recordedAt: DateTime.makeUnsafe(row.recorded_at.getTime()),
})

/** The columns a statement adds to event rows for the owned documents it also reads (NULL in event rows). */
interface DocumentColumns {
  readonly doc_partner: string | null
  readonly doc_sort_key: string | null
}

/** An owned document's row, read in the event rows' columns (see `ownedDocuments`). */
const toDocumentRow = (row: EventRow & DocumentColumns): PgReadModelStore.OwnedRow => ({
  collection: row.stream_type,
  revision: row.global_position,
  id: row.stream_id,
  partner_id: row.doc_partner ?? "",
  keys: row.metadata as Record<string, string>,
  sort_key: row.doc_sort_key ?? "",
  data: row.data,
})

const describeSqlError = (error: SqlError): string => `database error (${error.reason._tag})`

const unavailable = (reason: string) => (error: SqlError) =>
  logFailure("event store", error).pipe(Effect.andThen(Effect.fail(new EventStore.EventStoreUnavailable({ reason }))))

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * Set by a caller holding the commit lock exclusively (a projection rebuild): no unit can be writing
 * events then, so every event in the table is committed and `readAll` reads without its horizon, which
 * waits for every older transaction of the whole server (other databases' included).
 */
export const CommitsExcluded = Context.Reference<boolean>("partnerpay/adapters-pg/PgEventStore/CommitsExcluded", {
  defaultValue: () => false,
})

/** Builds the store on the `SqlClient` in context. */
export const make = Traced.fn("PgEventStore.make")(function* (options: Options = {}) {
  const sql = yield* SqlClient
  const onAppend = options.onAppend

  const mapSqlErrors = <A>(effect: Effect.Effect<A, SqlError>): Effect.Effect<A, EventStore.EventStoreUnavailable> =>
    Effect.catchTag(effect, "SqlError", (error) => unavailable(describeSqlError(error))(error))

  const storedVersion = (streamId: string, partner: string | undefined) =>
    mapSqlErrors(
      Effect.map(
        sql<{
          version: number
        }>`SELECT version FROM streams WHERE stream_id = ${streamId} ${PartnerScope.and(sql, partner)}`,
        (rows) => Number(rows[0]?.version ?? 0),
      ),
    )

  /** Records `events` in `unit`: checks a second append against the pending version, runs the hook. */
  const appendToUnit = Traced.fn("PgEventStore.appendToUnit")(function* (
    unit: PgUnit.Unit,
    streamId: string,
    streamType: string,
    expected: EventStore.ExpectedVersion,
    events: ReadonlyArray<EventStore.NewEvent>,
    options: EventStore.AppendOptions | undefined,
  ) {
    const pending = unit.streams.get(streamId)
    const first = events[0]!
    if (pending !== undefined) {
      const replayAt = pending.events.findIndex((event) => event.eventId === first.eventId)
      if (replayAt >= 0) {
        const last = pending.recorded[Math.min(replayAt + events.length, pending.recorded.length) - 1]!
        return { streamVersion: last.streamVersion, lastPosition: 0 } satisfies EventStore.AppendResult
      }
    }
    let base: number
    let stream: PgUnit.PendingStream
    if (pending === undefined) {
      const partner = yield* PartnerScope.current
      base =
        expected._tag === "NoStream"
          ? 0
          : expected._tag === "Exact"
            ? expected.version
            : yield* storedVersion(streamId, partner)
      stream = {
        streamId,
        streamType,
        partnerId: PartnerScope.forNewStream(partner, events),
        expected,
        baseVersion: expected._tag === "Any" ? undefined : base,
        events: [],
        recorded: [],
      }
    } else {
      stream = pending
      base = (pending.baseVersion ?? 0) + pending.events.length
      if (!EventStore.ExpectedVersion.matches(expected, base)) {
        return yield* new EventStore.VersionConflict({
          streamId,
          expected: EventStore.ExpectedVersion.describe(expected),
          actual: base,
        })
      }
    }
    const recordedAt = DateTime.makeUnsafe(yield* Clock.currentTimeMillis)
    const recorded = events.map(
      (event, index): EventStore.RecordedEvent => ({
        ...event,
        streamId,
        streamType,
        streamVersion: base + index + 1,
        globalPosition: 0,
        recordedAt,
      }),
    )
    if (onAppend !== undefined) {
      yield* onAppend(recorded).pipe(
        // The command's fiber holds both already, as a rule: then no overlay is added (`Held`).
        Held.provideService(SqlClient, sql),
        Held.provideService(PgUnit.CurrentUnit, unit),
        Effect.catch((cause) =>
          Effect.logWarning("append hook failed", redact(cause)).pipe(
            Effect.andThen(Effect.fail(new EventStore.EventStoreUnavailable({ reason: "append hook failed" }))),
          ),
        ),
      )
    }
    if (pending === undefined) unit.streams.set(streamId, stream)
    stream.events.push(...events)
    stream.recorded.push(...recorded)
    const snapshot = options?.snapshot
    if (snapshot !== undefined && snapshot.streamVersion === base + events.length) {
      unit.snapshots.set(streamId, { streamId, ...snapshot })
    }
    return { streamVersion: base + events.length, lastPosition: 0 } satisfies EventStore.AppendResult
  })

  const append: EventStore.EventStore["Service"]["append"] = Traced.fn("PgEventStore.append")(function* (
    streamId: string,
    streamType: string,
    expected: EventStore.ExpectedVersion,
    events: ReadonlyArray<EventStore.NewEvent>,
    options?: EventStore.AppendOptions,
  ) {
    if (events.length === 0) {
      // In a partner's request, the position is the stream's last (the partner's own order, docs/scaling.md).
      const partner = yield* PartnerScope.current
      const rows = yield* mapSqlErrors(
        partner === undefined
          ? sql<{ version: number | null; position: bigint | null }>`
          SELECT (SELECT version FROM streams WHERE stream_id = ${streamId}) AS version,
                 (SELECT max(global_position) FROM events) AS position`
          : sql<{ version: number | null; position: bigint | null }>`
          SELECT (SELECT version FROM streams WHERE stream_id = ${streamId} AND partner_id = ${partner}) AS version,
                 (SELECT max(global_position) FROM events WHERE stream_id = ${streamId} AND partner_id = ${partner})
                   AS position`,
      )
      return { streamVersion: Number(rows[0]?.version ?? 0), lastPosition: Number(rows[0]?.position ?? 0) }
    }
    if (!events.every((event) => uuidPattern.test(event.eventId))) {
      return yield* new EventStore.EventStoreUnavailable({ reason: "event ids must be UUIDs" })
    }
    const outer = yield* PgUnit.CurrentUnit
    if (outer !== undefined) return yield* appendToUnit(outer, streamId, streamType, expected, events, options)
    // A unit of its own: record, then commit at once.
    const unit = new PgUnit.Unit()
    yield* appendToUnit(unit, streamId, streamType, expected, events, options)
    const committed = yield* PgUnit.commit(sql, unit)
    const outcome = committed.streams[0]!
    return { streamVersion: outcome.version, lastPosition: outcome.lastPosition }
  })

  /**
   * Inside a unit: the documents owned by the stream's aggregate that the unit does not know yet
   * (see Options), read in the stream's own statement; none outside a unit.
   */
  const ownedToRead = (
    unit: PgUnit.Unit | undefined,
    streamId: string,
  ): { readonly unit: PgUnit.Unit; readonly id: string; readonly collections: ReadonlyArray<string> } | undefined => {
    if (unit === undefined || options.ownedCollections === undefined) return undefined
    const dash = streamId.indexOf("-")
    if (dash <= 0) return undefined
    const id = streamId.slice(dash + 1)
    const collections = PgReadModelStore.unknownTo(unit, options.ownedCollections(streamId.slice(0, dash)), id)
    return collections.length === 0 ? undefined : { unit, id, collections }
  }

  /**
   * The owned documents as rows of kind 2 after a stream's rows, in the event rows' columns: the
   * revision as `global_position`, the id as `stream_id`, the collection as `stream_type`, the keys
   * as `metadata`; `doc_partner` and `doc_sort_key` are NULL in the event rows.
   */
  const ownedDocuments = (owned: NonNullable<ReturnType<typeof ownedToRead>>, partner: string | undefined) => sql`
    UNION ALL
    SELECT 2, revision, id, collection, NULL, NULL, NULL, NULL, data, keys, NULL, partner_id, sort_key
    FROM read_models
    WHERE id = ${owned.id} AND collection IN ${sql.in(owned.collections)} ${PartnerScope.andDocuments(sql, partner)}`

  /** Splits a statement's rows: the owned documents (kind 2) go into the unit, the others are answered. */
  const keepOwned = <R extends EventRow & DocumentColumns & { readonly kind: number | string }>(
    owned: ReturnType<typeof ownedToRead>,
    rows: ReadonlyArray<R>,
  ): ReadonlyArray<R> => {
    if (owned === undefined) return rows
    const first = rows.findIndex((row) => Number(row.kind) === 2)
    const documents = first < 0 ? [] : rows.slice(first)
    PgReadModelStore.rememberRead(owned.unit, owned.collections, owned.id, documents.map(toDocumentRow))
    return first < 0 ? rows : rows.slice(0, first)
  }

  /** A stream's stored events after `afterVersion`, with the unit's unknown owned documents (one statement). */
  const readStored = (streamId: string, afterVersion: number, partner: string | undefined, unit?: PgUnit.Unit) => {
    const owned = ownedToRead(unit, streamId)
    return mapSqlErrors(
      Effect.map(
        sql<EventRow & DocumentColumns & { readonly kind: number }>`
          SELECT 1 AS kind, ${sql.literal(columns)}, NULL::text AS doc_partner, NULL::text AS doc_sort_key FROM events
          WHERE stream_id = ${streamId} AND stream_version > ${afterVersion} ${PartnerScope.and(sql, partner)}
          ${owned === undefined ? sql.literal("") : ownedDocuments(owned, partner)}
          ORDER BY kind, stream_version`,
        (rows) => keepOwned(owned, rows).map(toRecorded),
      ),
    )
  }

  const readStream: EventStore.EventStore["Service"]["readStream"] = Traced.fn("PgEventStore.readStream")(function* (
    streamId: string,
    options?: { readonly afterVersion?: number },
  ) {
    const afterVersion = options?.afterVersion ?? 0
    const unit = yield* PgUnit.CurrentUnit
    const partner = yield* PartnerScope.current
    const pending = unit?.streams.get(streamId)
    if (pending === undefined) return yield* readStored(streamId, afterVersion, partner, unit)
    // Stored events up to the unit's base version (none for a stream the unit creates), then the pending ones.
    const stored =
      pending.baseVersion === 0
        ? []
        : (yield* readStored(streamId, afterVersion, partner)).filter(
            (event) => pending.baseVersion === undefined || event.streamVersion <= pending.baseVersion,
          )
    return [...stored, ...pending.recorded.filter((event) => event.streamVersion > afterVersion)]
  })

  /**
   * The snapshot row (kind 0, its state in `data`) and the events after it (kind 1), in one statement.
   * A stream the unit already appended to (a batch appending twice to one stream, e.g. a company's
   * balance) is read from the stored snapshot too, when it is not newer than the unit's base version:
   * the stored events up to that version, then the unit's own; else (no base version, or a snapshot
   * another unit stored meanwhile) the whole stream as `readStream` gives it.
   */
  const readFromSnapshot = Traced.fn("PgEventStore.readFromSnapshot")(function* (
    streamId: string,
    schemaVersion: number,
  ) {
    const unit = yield* PgUnit.CurrentUnit
    const pending = unit?.streams.get(streamId)
    if (pending !== undefined) {
      const base = pending.baseVersion
      if (base === undefined || base === 0) return { snapshot: undefined, events: yield* readStream(streamId) }
      const stored = yield* storedFromSnapshot(streamId, schemaVersion, undefined)
      if (stored.snapshot !== undefined && stored.snapshot.streamVersion > base)
        return { snapshot: undefined, events: yield* readStream(streamId) }
      return {
        snapshot: stored.snapshot,
        events: [...stored.events.filter((event) => event.streamVersion <= base), ...pending.recorded],
      }
    }
    return yield* storedFromSnapshot(streamId, schemaVersion, unit)
  })

  /** The stored snapshot and the stored events after it, in one statement (with the owned documents). */
  const storedFromSnapshot = Effect.fnUntraced(function* (
    streamId: string,
    schemaVersion: number,
    unit: PgUnit.Unit | undefined,
  ) {
    const partner = yield* PartnerScope.current
    const owned = ownedToRead(unit, streamId)
    const rows = keepOwned(
      owned,
      yield* mapSqlErrors(
        sql<EventRow & DocumentColumns & { readonly kind: number }>`
        SELECT 0 AS kind, NULL::bigint AS global_position, stream_id, NULL AS stream_type, stream_version,
               NULL::uuid AS event_id, NULL AS event_type, schema_version, state AS data, NULL::jsonb AS metadata,
               updated_at AS recorded_at, NULL::text AS doc_partner, NULL::text AS doc_sort_key
        FROM snapshots WHERE stream_id = ${streamId} AND schema_version = ${schemaVersion} ${PartnerScope.and(sql, partner)}
        UNION ALL
        SELECT 1, ${sql.literal(columns)}, NULL, NULL FROM events
        WHERE stream_id = ${streamId} ${PartnerScope.and(sql, partner)} AND stream_version > COALESCE(
          (SELECT stream_version FROM snapshots
           WHERE stream_id = ${streamId} AND schema_version = ${schemaVersion} ${PartnerScope.and(sql, partner)}), 0)
        ${owned === undefined ? sql.literal("") : ownedDocuments(owned, partner)}
        ORDER BY kind, stream_version`,
      ),
    )
    const head = rows[0]
    const snapshot =
      head !== undefined && Number(head.kind) === 0
        ? { streamVersion: Number(head.stream_version), schemaVersion, state: head.data }
        : undefined
    return { snapshot, events: (snapshot === undefined ? rows : rows.slice(1)).map(toRecorded) }
  })

  const readAll: EventStore.EventStore["Service"]["readAll"] = ({ after, limit }) =>
    mapSqlErrors(
      Effect.flatMap(Effect.service(CommitsExcluded), (excluded) => {
        const horizon = sql.literal(excluded ? "TRUE" : "transaction_id < pg_snapshot_xmin(pg_current_snapshot())")
        return Effect.map(
          after <= 0
            ? sql<EventRow>`
              SELECT ${sql.literal(columns)} FROM events
              WHERE ${horizon}
              ORDER BY transaction_id, global_position
              LIMIT ${limit}::int`
            : sql<EventRow>`
              SELECT ${sql.literal(columns)} FROM events
              WHERE ${horizon}
                AND (transaction_id, global_position) >
                    (SELECT c.transaction_id, c.global_position FROM events c WHERE c.global_position = ${after}::bigint)
              ORDER BY transaction_id, global_position
              LIMIT ${limit}::int`,
          (rows) => rows.map(toRecorded),
        )
      }),
    ).pipe(Traced.withSpan("PgEventStore.readAll", { attributes: { after, limit } }))

  return EventStore.EventStore.of({ append, readStream, readFromSnapshot, readAll })
})

/** `EventStore` on the `SqlClient` in context (migrations must have run: see `Migrations.layer`). */
export const layer = (options: Options = {}): Layer.Layer<EventStore.EventStore, never, SqlClient> =>
  Layer.effect(EventStore.EventStore, make(options))
