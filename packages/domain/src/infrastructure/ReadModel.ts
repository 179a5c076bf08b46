/**
 * Read models: JSON documents kept up to date from the event log, answering
 * the interface's queries (company status, payment history, consent list...).
 *
 * A `Projection` is pure: which document an event changes (`key`), the new
 * document (`apply`), and how the document is indexed (`index`: its partner
 * for tenant isolation, lookup keys, and a sort key for cursor pagination).
 * The `ReadModelStore` port stores documents; `layerMemory` here, PostgreSQL
 * in `@partnerpay/adapters-pg`. Because projections are pure functions of the
 * log, any read model can be rebuilt and the rebuilt one equals the live one.
 */
import { Context, Effect, Layer, Option, Schema } from "effect"
import * as Envelope from "./Envelope.ts"
import { EventStoreUnavailable } from "./EventStore.ts"

/** How a document is found: its owner, equality keys and the order of lists. */
export interface DocumentIndex {
  /** The partner owning the document: every query is scoped to one partner. */
  readonly partnerId: string
  /** Equality lookup keys, e.g. `{ companyReferenceId: "ACME-1" }` or `{ payerRegistrationId, listable: "true" }`. */
  readonly keys: Readonly<Record<string, string>>
  /** Order of the document in lists (e.g. an ISO creation instant); ties are broken by id. */
  readonly sortKey: string
}

/**
 * A read model, generic over the envelopes it reads (`Env`): an area declares its projections over
 * its own streams' envelopes; the event pipeline routes to each only the stream types it names.
 */
export interface Projection<Doc, Env extends Envelope.Any = Envelope.Any> {
  /** Collection name, also a table discriminator: `companies`, `payment_requests`... */
  readonly collection: string
  /** JSON codec of the document. */
  readonly document: Schema.Codec<Doc, unknown>
  /** The stream types whose events this projection reads (omitted: all); events of others are never routed to it. */
  readonly streamTypes?: ReadonlyArray<Env["streamType"]>
  /**
   * The stream type whose aggregate id is the document's id (e.g. a payment request's document is
   * keyed by the request's id): a store may read the document together with that aggregate's stream.
   */
  readonly ownedBy?: Env["streamType"]
  /**
   * Event types (`_tag`) that start a document: `apply` makes it from the event alone, and the
   * document cannot exist before (its id is new), so it is not read first.
   */
  readonly creates?: ReadonlyArray<string>
  /** The id of the document an event changes, or undefined when this projection ignores the event. */
  readonly key: (event: Env) => string | undefined
  /** The document after the event; undefined deletes it. */
  readonly apply: (current: Doc | undefined, event: Env) => Doc | undefined
  readonly index: (document: Doc) => DocumentIndex
}

/**
 * The streams of a projection with one document per aggregate, whose id is the aggregate's (a payment
 * request's document is keyed by the request's id): it reads `streamType` alone, is owned by it, and
 * keys each event by the aggregate's id, `idOf(event)`.
 */
export const perAggregate = <Env extends Envelope.Any>(
  streamType: Env["streamType"],
  idOf: (event: Env["event"]) => string,
): Pick<Projection<unknown, Env>, "streamTypes" | "ownedBy" | "key"> => ({
  streamTypes: [streamType],
  ownedBy: streamType,
  key: (envelope) => (envelope.streamType === streamType ? idOf(envelope.event) : undefined),
})

/** A projection of any document type (the pipeline only moves JSON between them). */
// biome-ignore lint/suspicious/noExplicitAny: projections are invariant in their document type and contravariant in their envelope; the pipeline is generic over both.
export type AnyProjection = Projection<any, any>

/** A stored document with its index. */
export interface StoredDocument {
  readonly collection: string
  readonly id: string
  readonly data: unknown
  readonly index: DocumentIndex
}

export interface Query {
  readonly partnerId: string
  /** Every key must match exactly. */
  readonly keys?: Readonly<Record<string, string>>
  /** Inclusive bounds on the sort key. */
  readonly sortKeyFrom?: string
  readonly sortKeyTo?: string
  /** Cursor: the id of the last document of the previous page. */
  readonly startingAfter?: string
  readonly limit: number
  /** Default "desc": newest first, like most payment APIs. */
  readonly order?: "asc" | "desc"
}

export interface Page {
  readonly items: ReadonlyArray<StoredDocument>
  readonly hasMore: boolean
}

export class ReadModelStore extends Context.Service<
  ReadModelStore,
  {
    get(collection: string, id: string): Effect.Effect<Option.Option<StoredDocument>, EventStoreUnavailable>
    find(collection: string, query: Query): Effect.Effect<Page, EventStoreUnavailable>
    put(document: StoredDocument): Effect.Effect<void, EventStoreUnavailable>
    delete(collection: string, id: string): Effect.Effect<void, EventStoreUnavailable>
    /** Removes every document of a collection (before a rebuild). */
    clear(collection: string): Effect.Effect<void, EventStoreUnavailable>
  }
>()("partnerpay/domain/ReadModelStore") {
  static readonly layerMemory: Layer.Layer<ReadModelStore> = Layer.sync(ReadModelStore, () => makeMemory())
}

/** Orders documents by (sortKey, id). */
const compareDocuments = (a: StoredDocument, b: StoredDocument): number =>
  a.index.sortKey < b.index.sortKey
    ? -1
    : a.index.sortKey > b.index.sortKey
      ? 1
      : a.id < b.id
        ? -1
        : a.id > b.id
          ? 1
          : 0

/** Selects one page of documents matching a query (shared by the in-memory store and tests). */
export const selectPage = (documents: Iterable<StoredDocument>, query: Query): Page => {
  const matching = [...documents].filter(
    (doc) =>
      doc.index.partnerId === query.partnerId &&
      Object.entries(query.keys ?? {}).every(([key, value]) => doc.index.keys[key] === value) &&
      (query.sortKeyFrom === undefined || doc.index.sortKey >= query.sortKeyFrom) &&
      (query.sortKeyTo === undefined || doc.index.sortKey <= query.sortKeyTo),
  )
  matching.sort(compareDocuments)
  if ((query.order ?? "desc") === "desc") matching.reverse()
  let start = 0
  if (query.startingAfter !== undefined) {
    const cursor = matching.findIndex((doc) => doc.id === query.startingAfter)
    start = cursor === -1 ? matching.length : cursor + 1
  }
  const items = matching.slice(start, start + query.limit)
  return { items, hasMore: start + query.limit < matching.length }
}

export const makeMemory = (): ReadModelStore["Service"] => {
  const collections = new Map<string, Map<string, StoredDocument>>()
  const collectionOf = (name: string) => {
    let collection = collections.get(name)
    if (collection === undefined) {
      collection = new Map()
      collections.set(name, collection)
    }
    return collection
  }
  return ReadModelStore.of({
    get: (collection, id) => Effect.sync(() => Option.fromUndefinedOr(collectionOf(collection).get(id))),
    find: (collection, query) => Effect.sync(() => selectPage(collectionOf(collection).values(), query)),
    put: (document) =>
      Effect.sync(() => {
        collectionOf(document.collection).set(document.id, document)
      }),
    delete: (collection, id) =>
      Effect.sync(() => {
        collectionOf(collection).delete(id)
      }),
    clear: (collection) =>
      Effect.sync(() => {
        collections.delete(collection)
      }),
  })
}

interface DocumentCodecs {
  readonly decode: (data: unknown) => unknown
  readonly encode: (document: unknown) => unknown
  /** Documents decoded from data a store keeps (frozen), by that data: see `decodeDocument`. */
  readonly decoded: WeakMap<object, unknown>
}

const documentCodecs = new WeakMap<object, DocumentCodecs>()

/** A projection's document codecs, built once. */
const codecsOf = (projection: AnyProjection): DocumentCodecs => {
  let codecs = documentCodecs.get(projection)
  if (codecs === undefined) {
    codecs = {
      decode: Schema.decodeUnknownSync(projection.document),
      encode: Schema.encodeSync(projection.document),
      decoded: new WeakMap(),
    }
    documentCodecs.set(projection, codecs)
  }
  return codecs
}

/** Applies one event to one projection through the store. Pure decisions, effectful storage. */
export const applyProjection = Effect.fnUntraced(function* <Doc, Env extends Envelope.Any>(
  projection: Projection<Doc, Env>,
  event: Env,
): Effect.fn.Return<void, EventStoreUnavailable, ReadModelStore> {
  const id = projection.key(event)
  if (id === undefined) return
  const store = yield* ReadModelStore
  const codecs = codecsOf(projection)
  let current: Doc | undefined
  if (projection.creates === undefined || !projection.creates.includes(event.event._tag)) {
    const stored = yield* store.get(projection.collection, id)
    if (Option.isSome(stored)) {
      try {
        current = codecs.decode(stored.value.data) as Doc
      } catch (cause) {
        return yield* new EventStoreUnavailable({
          reason: `read model ${projection.collection}/${id} is corrupt`,
          cause,
        })
      }
    }
  }
  const next = projection.apply(current, event)
  if (next === undefined) {
    if (current !== undefined) yield* store.delete(projection.collection, id)
    return
  }
  yield* store.put({
    collection: projection.collection,
    id,
    data: codecs.encode(next),
    index: projection.index(next),
  })
})

/** The collections whose documents are keyed by the aggregate id of `streamType` (see `Projection.ownedBy`). */
export const collectionsOwnedBy = (
  projections: ReadonlyArray<AnyProjection>,
): ((streamType: string) => ReadonlyArray<string>) => {
  const byStreamType = new Map<string, Array<string>>()
  for (const projection of projections) {
    if (projection.ownedBy === undefined) continue
    const list = byStreamType.get(projection.ownedBy) ?? []
    list.push(projection.collection)
    byStreamType.set(projection.ownedBy, list)
  }
  return (streamType) => byStreamType.get(streamType) ?? []
}

/** Applies events, in order, to every projection that reads them. */
export const applyAll = (
  projections: ReadonlyArray<AnyProjection>,
  events: ReadonlyArray<Envelope.Any>,
): Effect.Effect<void, EventStoreUnavailable, ReadModelStore> =>
  Effect.forEach(
    events,
    (event) =>
      Effect.forEach(
        Envelope.routed(projections, event.streamType),
        (projection) => applyProjection(projection, event),
        {
          discard: true,
        },
      ),
    { discard: true },
  )

/**
 * Decodes a stored document with its projection's codec.
 *
 * Data a store keeps between reads comes frozen (the PostgreSQL store keeps a document with its
 * revision; its personal fields are opened to a frozen record while they stay the same): its
 * decoded document is kept with it, so a document read again unchanged is not decoded again.
 * Documents are immutable values; the one answered may be shared by concurrent readers.
 */
export const decodeDocument = <Doc, Env extends Envelope.Any>(
  projection: Projection<Doc, Env>,
  document: StoredDocument,
): Doc => {
  const codecs = codecsOf(projection)
  const data = document.data
  if (typeof data !== "object" || data === null || !Object.isFrozen(data)) return codecs.decode(data) as Doc
  const known = codecs.decoded.get(data)
  if (known !== undefined) return known as Doc
  const decoded = codecs.decode(data)
  codecs.decoded.set(data, decoded)
  return decoded as Doc
}

/**
 * The partner's document `id` of `projection`, decoded; none when it is missing or another partner's
 * (to a partner, another partner's documents do not exist).
 */
export const partnerDocument = <Doc, Env extends Envelope.Any>(
  projection: Projection<Doc, Env>,
  partnerId: string,
  id: string,
): Effect.Effect<Option.Option<Doc>, EventStoreUnavailable, ReadModelStore> =>
  Effect.map(
    Effect.flatMap(Effect.service(ReadModelStore), (store) => store.get(projection.collection, id)),
    (stored) =>
      Option.isSome(stored) && stored.value.index.partnerId === partnerId
        ? Option.some(decodeDocument(projection, stored.value))
        : Option.none(),
  )

/** The partner's document of `projection` with the index `keys` (the newest, should several have them), decoded. */
export const firstPartnerDocument = <Doc, Env extends Envelope.Any>(
  projection: Projection<Doc, Env>,
  partnerId: string,
  keys: Readonly<Record<string, string>>,
): Effect.Effect<Option.Option<Doc>, EventStoreUnavailable, ReadModelStore> =>
  Effect.map(
    Effect.flatMap(Effect.service(ReadModelStore), (store) =>
      store.find(projection.collection, { partnerId, keys, limit: 1 }),
    ),
    (page) => Option.map(Option.fromNullishOr(page.items[0]), (first) => decodeDocument(projection, first)),
  )
