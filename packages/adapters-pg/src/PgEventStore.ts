/**
 * The domain `EventStore` port on PostgreSQL (a server, or PGlite through the
 * same client). Schema: `migrations/0001_create_events.ts`.
 *
 * Expected version: enforced by the `streams` row with a conditional write
 * (UPDATE ... WHERE version = expected, or INSERT ... ON CONFLICT DO NOTHING
 * for NoStream). The row lock makes racing writers of one stream queue up; the
 * second re-evaluates the condition against the committed winner and matches
 * no row, so it fails with `VersionConflict` and the actual version. Chosen
 * over relying on the unique (stream_id, stream_version) violation because it
 * does not abort the transaction (no savepoint needed, so an `onAppend` hook
 * can share the transaction), gives the actual version in one indexed read,
 * and also serialises `Any` appends. The unique constraint stays as a backstop.
 *
 * Global order (readAll): positions come from a sequence and transactions can
 * commit out of position order, so "read everything after my checkpoint" on
 * committed rows could skip an event that commits later with a lower position.
 * We use the transaction-id approach: readAll only returns events written by
 * transactions older than the oldest one still running
 * (`transaction_id < pg_snapshot_xmin(pg_current_snapshot())`), i.e. finished
 * ones. That alone is only safe if transaction-id order equals position
 * order, which PostgreSQL does not promise (an xid is assigned at a
 * transaction's first write, its positions later). So every append starts by
 * calling `reserve_event_positions(n)`: under a short advisory lock (released
 * before the function returns, never held across a commit, so commits stay
 * concurrent) it assigns the transaction's xid and draws its positions. Hence
 * xid order = position order: when an event is returned, every lower position
 * belongs to a finished transaction and is visible (or rolled back, leaving a
 * harmless gap). Cost: a long-running writing transaction anywhere in the
 * cluster delays readAll until it ends (never skips).
 *
 * Appends inside a caller's transaction (a unit of work: `PgUnitOfWork`, or
 * any `sql.withTransaction`): the append becomes a savepoint and reserves its
 * positions like any other, but a transaction that appends twice would have
 * an xid older than its second batch of positions; another transaction could
 * draw positions in between, commit after it, and a follower would skip them.
 * So an append that finds itself inside an outer transaction first calls
 * `lock_event_positions_until_commit()` at the outer level: it takes the
 * reservation lock as a transaction lock, held until the unit of work commits
 * or rolls back, and assigns the xid under it. No other transaction can draw
 * positions between the unit's xid and its last append, so xid order still
 * equals position order and the readAll rule above stays sound. The function
 * refuses (the append fails with `EventStoreUnavailable`) when the transaction
 * already wrote something before its first append (its xid would predate the
 * lock), or after a nested unit that held the lock rolled back (PostgreSQL
 * releases the lock with the savepoint). Cost: from its first append until it
 * ends, a unit of work blocks every other append of the database, so units of
 * work must stay short (no calls to providers inside them). Appends outside a
 * unit of work keep the short lock and commit concurrently.
 *
 * Errors: every database failure becomes `EventStoreUnavailable` with a short
 * reason (the SQL error is logged, never returned).
 */

import {
  type AppendResult,
  type EventMetadata,
  EventStore,
  EventStoreUnavailable,
  ExpectedVersion,
  type NewEvent,
  type RecordedEvent,
  VersionConflict,
} from "@partnerpay/domain"
import { DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { SqlError } from "effect/sql/SqlError"
import { InsideAppendHook } from "./AppendHookScope.ts"

/**
 * Extra work done in the same transaction as an append, after the events are
 * inserted (e.g. projections, outbox rows). It sees the recorded events with
 * their positions; queries it runs through `SqlClient` join the append's
 * transaction. A failure rolls the append back (reported as
 * `EventStoreUnavailable`). Not called for idempotent replays (nothing written).
 */
export type OnAppend = (events: ReadonlyArray<RecordedEvent>) => Effect.Effect<void, unknown, SqlClient>

export interface Options {
  readonly onAppend?: OnAppend
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

const toMetadata = (value: unknown): EventMetadata => {
  const out: Record<string, string> = {}
  if (typeof value === "object" && value !== null) {
    for (const key of metadataKeys) {
      const field = (value as Record<string, unknown>)[key]
      if (typeof field === "string") out[key] = field
    }
  }
  return out
}

const fromMetadata = (metadata: EventMetadata): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const key of metadataKeys) {
    const field = metadata[key]
    if (field !== undefined) out[key] = field
  }
  return out
}

/** Bigint columns arrive as JS bigint: positions are converted here, at the edge. */
const toRecorded = (row: EventRow): RecordedEvent => ({
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

const unavailable = (reason: string) => (cause: unknown) =>
  Effect.logWarning("event store failure", reason, cause).pipe(
    Effect.andThen(Effect.fail(new EventStoreUnavailable({ reason }))),
  )

const describeSqlError = (error: SqlError): string => `database error (${error.reason._tag})`

/** A replayed append whose first event is already stored. */
class Replayed {
  readonly result: { readonly streamVersion: number; readonly lastPosition: number }
  constructor(result: { readonly streamVersion: number; readonly lastPosition: number }) {
    this.result = result
  }
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Builds the store on the `SqlClient` in context. */
export const make = (options: Options = {}): Effect.Effect<EventStore["Service"], never, SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient
    const onAppend = options.onAppend

    const mapSqlErrors = <A>(effect: Effect.Effect<A, SqlError>): Effect.Effect<A, EventStoreUnavailable> =>
      Effect.catchTag(effect, "SqlError", (error) => unavailable(describeSqlError(error))(error))

    /** The stored outcome when `events[0]` is already in `streamId`. */
    const findReplay = (streamId: string, events: ReadonlyArray<NewEvent>) =>
      Effect.gen(function* () {
        const first = events[0]
        if (first === undefined) return undefined
        const found = yield* sql<{ stream_id: string; stream_version: number }>`
          SELECT stream_id, stream_version FROM events WHERE event_id = ${first.eventId}::uuid`
        const hit = found[0]
        if (hit === undefined || hit.stream_id !== streamId) return undefined
        // The last event of the original batch, or the first one when the batch was shorter.
        const last = yield* sql<{ stream_version: number; global_position: bigint }>`
          SELECT stream_version, global_position FROM events
          WHERE stream_id = ${streamId} AND stream_version BETWEEN ${hit.stream_version} AND ${hit.stream_version + events.length - 1}
          ORDER BY stream_version DESC LIMIT 1`
        const row = last[0]
        return row === undefined
          ? undefined
          : new Replayed({ streamVersion: Number(row.stream_version), lastPosition: Number(row.global_position) })
      })

    /** Claims `count` versions on the stream row if it is at the expected version; returns the new version. */
    const claimVersion = (streamId: string, streamType: string, expected: ExpectedVersion, count: number) =>
      Effect.gen(function* () {
        const claim: Effect.Effect<ReadonlyArray<{ readonly version: number }>, SqlError> = expected._tag === "NoStream"
          ? sql<{ version: number }>`
              INSERT INTO streams (stream_id, stream_type, version) VALUES (${streamId}, ${streamType}, ${count})
              ON CONFLICT (stream_id) DO NOTHING RETURNING version`
          : expected._tag === "Exact"
            ? sql<{ version: number }>`
              UPDATE streams SET version = version + ${count}, updated_at = now()
              WHERE stream_id = ${streamId} AND version = ${expected.version} RETURNING version`
            : sql<{ version: number }>`
              INSERT INTO streams (stream_id, stream_type, version) VALUES (${streamId}, ${streamType}, ${count})
              ON CONFLICT (stream_id) DO UPDATE SET version = streams.version + EXCLUDED.version, updated_at = now()
              RETURNING version`
        const row = (yield* claim)[0]
        if (row !== undefined) return Number(row.version)
        const current = yield* sql<{ version: number }>`SELECT version FROM streams WHERE stream_id = ${streamId}`
        return yield* Effect.fail(
          new VersionConflict({
            streamId,
            expected: ExpectedVersion.describe(expected),
            actual: Number(current[0]?.version ?? 0),
          }),
        )
      })

    const appendOnce = (
      streamId: string,
      streamType: string,
      expected: ExpectedVersion,
      events: ReadonlyArray<NewEvent>,
    ): Effect.Effect<
      { readonly streamVersion: number; readonly lastPosition: number },
      VersionConflict | SqlError | Replayed | { readonly _tag: "HookFailed"; readonly cause: unknown }
    > =>
      Effect.andThen(
        // Inside a caller's transaction: hold the reservation lock until it ends (see the module doc).
        Effect.flatMap(Effect.serviceOption(sql.transactionService), (outer) =>
          outer._tag === "Some" ? Effect.asVoid(sql`SELECT lock_event_positions_until_commit()`) : Effect.void,
        ),
        sql.withTransaction(
          Effect.gen(function* () {
            const replay = yield* findReplay(streamId, events)
            if (replay !== undefined) return yield* Effect.fail(replay)
            const reserved = yield* sql<{
              position: bigint
            }>`SELECT reserve_event_positions(${events.length}) AS position`
            const positions = reserved.map((row) => BigInt(row.position)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
            const version = yield* claimVersion(streamId, streamType, expected, events.length).pipe(
              Effect.catchTag(
                "VersionConflict",
                (conflict): Effect.Effect<never, VersionConflict | Replayed | SqlError> =>
                  // A racing append of the same events may just have won: then this is a replay.
                  Effect.flatMap(
                    findReplay(streamId, events),
                    (replayed): Effect.Effect<never, VersionConflict | Replayed> =>
                      replayed === undefined ? Effect.fail(conflict) : Effect.fail(replayed),
                  ),
              ),
            )
            const batch = events.map((event, index) => ({
              p: String(positions[index]),
              eventId: event.eventId,
              eventType: event.eventType,
              schemaVersion: event.schemaVersion,
              data: event.data,
              metadata: fromMetadata(event.metadata),
            }))
            const rows = yield* sql<EventRow>`
            INSERT INTO events (global_position, stream_id, stream_type, stream_version, event_id, event_type, schema_version, data, metadata)
            SELECT (e.value ->> 'p')::bigint, ${streamId}, ${streamType}, ${version - events.length}::int + e.ord::int,
                   (e.value ->> 'eventId')::uuid, e.value ->> 'eventType', (e.value ->> 'schemaVersion')::int,
                   e.value -> 'data', e.value -> 'metadata'
            FROM jsonb_array_elements(${JSON.stringify(batch)}::jsonb) WITH ORDINALITY AS e(value, ord)
            ORDER BY e.ord
            RETURNING ${sql.literal(columns)}`
            const recorded = rows.map(toRecorded).sort((a, b) => a.streamVersion - b.streamVersion)
            if (onAppend !== undefined) {
              yield* onAppend(recorded).pipe(
                Effect.mapError((cause) => ({ _tag: "HookFailed" as const, cause })),
                Effect.provideService(SqlClient, sql),
                Effect.provideService(InsideAppendHook, true),
              )
            }
            const last = recorded[recorded.length - 1]
            return { streamVersion: version, lastPosition: last?.globalPosition ?? 0 }
          }),
        ),
      )

    const append: EventStore["Service"]["append"] = (streamId, streamType, expected, events) => {
      if (events.length === 0) {
        return mapSqlErrors(
          Effect.map(
            sql<{ version: number | null; position: bigint | null }>`
              SELECT (SELECT version FROM streams WHERE stream_id = ${streamId}) AS version,
                     (SELECT max(global_position) FROM events) AS position`,
            (rows) => ({ streamVersion: Number(rows[0]?.version ?? 0), lastPosition: Number(rows[0]?.position ?? 0) }),
          ),
        )
      }
      if (!events.every((event) => uuidPattern.test(event.eventId))) {
        return Effect.fail(new EventStoreUnavailable({ reason: "event ids must be UUIDs" }))
      }
      return appendOnce(streamId, streamType, expected, events).pipe(
        Effect.catch((error): Effect.Effect<AppendResult, VersionConflict | EventStoreUnavailable> => {
          if (error instanceof Replayed) return Effect.succeed(error.result)
          if (error instanceof VersionConflict) return Effect.fail(error)
          if (error instanceof SqlError) {
            if (error.reason._tag === "UniqueViolation" && error.reason.constraint === "events_event_id_key") {
              // A racing append stored the same event id first (replay), or the id is used by another stream.
              return mapSqlErrors(findReplay(streamId, events)).pipe(
                Effect.flatMap((replayed) =>
                  replayed === undefined
                    ? Effect.fail(new EventStoreUnavailable({ reason: "event id already recorded in another stream" }))
                    : Effect.succeed(replayed.result),
                ),
              )
            }
            return unavailable(describeSqlError(error))(error)
          }
          return unavailable("append hook failed")(error.cause)
        }),
        Effect.withSpan("PgEventStore.append", { attributes: { streamId, count: events.length } }),
      )
    }

    const readStream: EventStore["Service"]["readStream"] = (streamId, options) =>
      mapSqlErrors(
        Effect.map(
          sql<EventRow>`
            SELECT ${sql.literal(columns)} FROM events
            WHERE stream_id = ${streamId} AND stream_version > ${options?.afterVersion ?? 0}
            ORDER BY stream_version`,
          (rows) => rows.map(toRecorded),
        ),
      ).pipe(Effect.withSpan("PgEventStore.readStream", { attributes: { streamId } }))

    const readAll: EventStore["Service"]["readAll"] = ({ after, limit }) =>
      mapSqlErrors(
        Effect.map(
          sql<EventRow>`
            SELECT ${sql.literal(columns)} FROM events
            WHERE global_position > ${after}::bigint
              AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
            ORDER BY global_position
            LIMIT ${limit}::int`,
          (rows) => rows.map(toRecorded),
        ),
      ).pipe(Effect.withSpan("PgEventStore.readAll", { attributes: { after, limit } }))

    return EventStore.of({ append, readStream, readAll })
  })

/** `EventStore` on the `SqlClient` in context (migrations must have run: see `Migrations.layer`). */
export const layer = (options: Options = {}): Layer.Layer<EventStore, never, SqlClient> =>
  Layer.effect(EventStore, make(options))
