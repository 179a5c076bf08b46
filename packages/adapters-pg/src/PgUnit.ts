/**
 * A unit of work in flight on PostgreSQL: everything it will write, kept in
 * memory until it ends, then sent as ONE statement (`commit_unit`, migration
 * 0004), i.e. one round trip and one implicit transaction.
 *
 * While the unit runs, the adapters read through it: `PgEventStore` returns a
 * stream's pending events after its stored ones (and does not read a stream
 * this unit created), `PgReadModelStore` answers `get` from the unit's copy of
 * a document it already read or wrote. Every document read is remembered with
 * its revision, and written back only if that revision is still current, so a
 * document can be read outside any transaction: a concurrent writer makes the
 * commit fail (document conflict) exactly like a stream's expected version.
 *
 * The commit checks every expected version and revision inside the database
 * and raises on the first mismatch, rolling the whole unit back; the caller's
 * bounded retry re-reads and decides again (`VersionConflict`).
 */
import type { KeyObject } from "node:crypto"
import { EventStore, type IdempotencyStore, type Outbox, type ReadModel, Traced } from "@partnerpay/domain"
import { Context, Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import { SqlError } from "effect/sql/SqlError"
import { logFailure } from "./SqlErrors.ts"

/** The events one unit appends to one stream, with the expectation checked at commit. */
export interface PendingStream {
  readonly streamId: string
  readonly streamType: string
  /** The partner a stream the unit creates is filed under ('' for none); an existing stream keeps its own. */
  readonly partnerId: string
  /** The expectation of the unit's first append to this stream. */
  readonly expected: EventStore.ExpectedVersion
  /** The stream's version before the unit (known unless the first append expected Any). */
  readonly baseVersion: number | undefined
  readonly events: Array<EventStore.NewEvent>
  /** The same events as the adapters show them before the commit (positions 0: not drawn yet). */
  readonly recorded: Array<EventStore.RecordedEvent>
}

/** What a document must still be at commit for the unit's write to apply. */
export type DocumentExpectation =
  | { readonly _tag: "Absent" }
  | { readonly _tag: "Revision"; readonly revision: string }
  | { readonly _tag: "Any" }

/** A document the unit read or wrote: its expectation and its content as the unit sees it. */
export interface PendingDocument {
  readonly collection: string
  readonly id: string
  readonly expected: DocumentExpectation
  current: ReadModel.StoredDocument | undefined
  dirty: boolean
}

/** A stream's state snapshot written with the unit. */
export interface PendingSnapshot {
  readonly streamId: string
  readonly streamVersion: number
  readonly schemaVersion: number
  readonly state: unknown
}

/**
 * A data key made during the unit for a subject that had none (`PgPersonalDataVault`): inserted by
 * the commit, which fails with a conflict (`PP004`) if the subject got a key meanwhile, so that
 * no value is ever committed sealed with a key that is not its subject's.
 */
export interface PendingDataKey {
  readonly subject: string
  /** The subject's partner ('' for none). */
  readonly partnerId: string
  readonly wrapped: string
  readonly masterKeyId: string
  /** The key itself, for what the unit seals and opens before its commit. */
  readonly key: KeyObject
  /** Told once the commit stored the key. */
  readonly stored: () => void
  /** Told when the commit found that the subject already had a key. */
  readonly taken: () => void
}

/** The answer of the request that holds an Idempotency-Key, stored by the unit's commit (`PgIdempotencyStore`). */
export interface PendingIdempotency {
  /** The partner of the request holding the key ('' for none). */
  readonly partnerId: string
  readonly scope: string
  readonly key: string
  /** The claim the request holds: the commit fails (PP005) if the key is no longer held by it. */
  readonly claim: string
  readonly response: IdempotencyStore.StoredResponse
}

export class Unit {
  /** Set when the unit completes an Idempotency-Key: its answer commits with the unit's writes. */
  idempotency: PendingIdempotency | undefined = undefined
  readonly streams = new Map<string, PendingStream>()
  /** Kept when a nested unit fails: a key stored for nothing seals nothing (as a key made outside a unit). */
  readonly dataKeys = new Map<string, PendingDataKey>()
  readonly documents = new Map<string, PendingDocument>()
  readonly outbox: Array<Outbox.Webhook> = []
  readonly snapshots = new Map<string, PendingSnapshot>()

  static documentKey(collection: string, id: string): string {
    return `${collection}\u0000${id}`
  }

  document(collection: string, id: string): PendingDocument | undefined {
    return this.documents.get(Unit.documentKey(collection, id))
  }

  remember(document: PendingDocument): void {
    this.documents.set(Unit.documentKey(document.collection, document.id), document)
  }

  /** Everything the unit holds now, to go back to if a nested unit fails (an in-memory savepoint). */
  mark(): UnitMark {
    return {
      streams: new Map([...this.streams].map(([id, stream]) => [id, stream.events.length])),
      documents: new Map([...this.documents].map(([key, doc]) => [key, { current: doc.current, dirty: doc.dirty }])),
      outbox: this.outbox.length,
      snapshots: new Map(this.snapshots),
      idempotency: this.idempotency,
    }
  }

  /** Goes back to `mark`: what was added since is forgotten, documents read since stay known (unchanged). */
  restore(mark: UnitMark): void {
    for (const [id, stream] of this.streams) {
      const length = mark.streams.get(id)
      if (length === undefined) this.streams.delete(id)
      else {
        stream.events.length = length
        stream.recorded.length = length
      }
    }
    for (const [key, doc] of this.documents) {
      const before = mark.documents.get(key)
      if (before === undefined) {
        if (doc.dirty) this.documents.delete(key)
      } else {
        doc.current = before.current
        doc.dirty = before.dirty
      }
    }
    this.outbox.length = mark.outbox
    this.idempotency = mark.idempotency
    this.snapshots.clear()
    for (const [id, snapshot] of mark.snapshots) this.snapshots.set(id, snapshot)
  }

  get isEmpty(): boolean {
    return (
      this.idempotency === undefined &&
      this.streams.size === 0 &&
      this.dataKeys.size === 0 &&
      this.outbox.length === 0 &&
      this.snapshots.size === 0 &&
      ![...this.documents.values()].some((doc) => doc.dirty)
    )
  }
}

/** A unit's contents at one moment (see `Unit.mark`). */
export interface UnitMark {
  readonly streams: ReadonlyMap<string, number>
  readonly documents: ReadonlyMap<
    string,
    { readonly current: ReadModel.StoredDocument | undefined; readonly dirty: boolean }
  >
  readonly outbox: number
  readonly snapshots: ReadonlyMap<string, PendingSnapshot>
  readonly idempotency: PendingIdempotency | undefined
}

/** The unit of work the current fiber runs in, if any. */
export const CurrentUnit = Context.Reference<Unit | undefined>("partnerpay/adapters-pg/CurrentUnit", {
  defaultValue: () => undefined,
})

/** The outcome of a commit for each stream, in the order the streams were first appended. */
export interface Committed {
  readonly transactionId: string
  readonly streams: ReadonlyArray<{
    readonly version: number
    readonly lastPosition: number
    readonly replayed: boolean
  }>
}

const expectationJson = (expected: EventStore.ExpectedVersion): string | number =>
  expected._tag === "NoStream" ? "none" : expected._tag === "Any" ? "any" : expected.version

const metadataKeys = ["partnerId", "correlationId", "causationId", "idempotencyKey"] as const

/** The stored metadata: only the known keys that are set. */
export const metadataJson = (metadata: EventStore.NewEvent["metadata"]): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const key of metadataKeys) {
    const field = metadata[key]
    if (field !== undefined) out[key] = field
  }
  return out
}

const idempotencyJson = ({ partnerId, scope, key, claim, response }: PendingIdempotency) => ({
  partnerId,
  scope,
  key,
  claim,
  status: response.status,
  contentType: response.contentType ?? null,
  body: Buffer.from(response.body.buffer, response.body.byteOffset, response.body.byteLength).toString("base64"),
})

/** The JSON argument of `commit_unit` for a unit. */
export const payload = (unit: Unit): string => {
  const streams = [...unit.streams.values()].map((stream) => ({
    id: stream.streamId,
    type: stream.streamType,
    partner: stream.partnerId,
    expected: expectationJson(stream.expected),
    events: stream.events.map((event) => ({
      eventId: event.eventId,
      eventType: event.eventType,
      schemaVersion: event.schemaVersion,
      data: event.data,
      metadata: metadataJson(event.metadata),
    })),
  }))
  const documents: Array<unknown> = []
  for (const doc of unit.documents.values()) {
    if (!doc.dirty) continue
    const expected =
      doc.expected._tag === "Absent" ? "absent" : doc.expected._tag === "Any" ? "any" : doc.expected.revision
    if (doc.current === undefined) {
      // Deleting a document that was absent when read: nothing to do.
      if (doc.expected._tag !== "Absent")
        documents.push({ collection: doc.collection, id: doc.id, expected, delete: true })
      continue
    }
    documents.push({
      collection: doc.collection,
      id: doc.id,
      expected,
      partnerId: doc.current.index.partnerId,
      keys: doc.current.index.keys,
      sortKey: doc.current.index.sortKey,
      data: doc.current.data,
    })
  }
  return JSON.stringify({
    dataKeys: [...unit.dataKeys.values()].map((key) => ({
      subject: key.subject,
      partnerId: key.partnerId,
      wrapped: key.wrapped,
      masterKeyId: key.masterKeyId,
    })),
    streams,
    documents,
    outbox: unit.outbox,
    snapshots: [...unit.snapshots.values()],
    ...(unit.idempotency === undefined ? {} : { idempotency: idempotencyJson(unit.idempotency) }),
  })
}

interface PgErrorFields {
  readonly code?: string
  readonly detail?: string
  readonly constraint?: string
}

const pgFields = (error: SqlError): PgErrorFields => {
  const cause = (error.reason as { readonly cause?: unknown }).cause
  return typeof cause === "object" && cause !== null ? (cause as PgErrorFields) : {}
}

const parseDetail = (detail: string | undefined): Record<string, unknown> => {
  try {
    const parsed: unknown = JSON.parse(detail ?? "{}")
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

/** A commit's SqlError as the domain sees it: a conflict to retry, or the store being unavailable. */
export const commitFailure = (
  error: SqlError,
): Effect.Effect<never, EventStore.VersionConflict | EventStore.EventStoreUnavailable> => {
  const fields = pgFields(error)
  const detail = parseDetail(fields.detail)
  switch (fields.code) {
    case "PP001":
      return Effect.fail(
        new EventStore.VersionConflict({
          streamId: String(detail.streamId ?? ""),
          expected: describeExpectation(detail.expected),
          actual: Number(detail.actual ?? 0),
        }),
      )
    case "PP002":
      // A document this unit read was written meanwhile: the unit decided on stale data; retry it.
      return Effect.fail(
        new EventStore.VersionConflict({
          streamId: `read model ${String(detail.collection ?? "")}/${String(detail.id ?? "")}`,
          expected: "the revision read",
          actual: -1,
        }),
      )
    case "PP004":
      // A subject this unit made a data key for got one meanwhile: decide again with that key.
      return Effect.fail(
        new EventStore.VersionConflict({
          streamId: `data key ${String(detail.subject ?? "")}`,
          expected: "no key",
          actual: -1,
        }),
      )
    case "PP005":
      // The Idempotency-Key this unit answers is no longer held by its request (its holder was taken
      // for dead, and another request took the key): nothing is written; the caller looks again.
      return Effect.fail(
        new EventStore.VersionConflict({
          streamId: `idempotency key ${String(detail.key ?? "")}`,
          expected: "the request's claim",
          actual: -1,
        }),
      )
    case "PP003":
      return Effect.fail(
        new EventStore.EventStoreUnavailable({ reason: "event id already recorded in another stream" }),
      )
  }
  if (error.reason._tag === "UniqueViolation" && fields.constraint === "events_event_id_key") {
    return Effect.fail(new EventStore.EventStoreUnavailable({ reason: "event id already recorded in another stream" }))
  }
  return logFailure("event store commit", error).pipe(
    Effect.andThen(
      Effect.fail(new EventStore.EventStoreUnavailable({ reason: `database error (${error.reason._tag})` })),
    ),
  )
}

const describeExpectation = (expected: unknown): string =>
  expected === "none" ? "no stream" : expected === "any" ? "any" : `version ${String(expected)}`

interface CommitRow {
  readonly result: Committed | string
}

/** Sends the unit as one `commit_unit` call. An empty unit sends nothing. */
export const commit = (
  sql: SqlClient,
  unit: Unit,
): Effect.Effect<Committed, EventStore.VersionConflict | EventStore.EventStoreUnavailable> => {
  if (unit.isEmpty) return Effect.succeed({ transactionId: "", streams: [] })
  return sql<CommitRow>`SELECT commit_unit(${payload(unit)}::jsonb) AS result`.pipe(
    Effect.map((rows) => {
      const raw = rows[0]?.result
      const parsed: Committed = typeof raw === "string" ? JSON.parse(raw) : (raw as Committed)
      return {
        transactionId: String(parsed.transactionId),
        streams: parsed.streams.map((stream) => ({
          version: Number(stream.version),
          lastPosition: Number(stream.lastPosition),
          replayed: stream.replayed === true,
        })),
      }
    }),
    Effect.tap(() =>
      Effect.sync(() => {
        for (const key of unit.dataKeys.values()) key.stored()
      }),
    ),
    Effect.catchIf(
      (error): error is SqlError => error instanceof SqlError,
      (error) => {
        const fields = pgFields(error)
        if (fields.code === "PP004") unit.dataKeys.get(String(parseDetail(fields.detail).subject ?? ""))?.taken()
        return commitFailure(error)
      },
    ),
    Traced.withSpan("PgUnit.commit"),
  )
}
