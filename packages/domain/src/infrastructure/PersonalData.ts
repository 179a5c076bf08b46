/**
 * Personal data at rest: sealed per data subject, erasable by key
 * (crypto-shredding). See docs/personal-data.md.
 *
 * - `PersonalDataVault` (port): seals a text for a subject with the subject's
 *   data key, opens it again (`None` once the subject is erased), erases a
 *   subject (deletes its key). Implemented with node:crypto by the adapters.
 * - `PhoneIndex` (port): the keyed hash of a phone number, used wherever a
 *   phone number would be an id or a lookup key (login challenge streams).
 * - `PersonalFields`: where the personal fields are: for an event (by stream
 *   type and event type), a snapshot (by stream type) or a read-model document
 *   (by collection), which subjects own which fields (paths such as
 *   `owner.dateOfBirth` or `employees.*.name`). The areas declare them
 *   (`CompanyPersonalData.ts`, `CustomerPersonalData.ts`).
 * - `protectEventStore` / `protectReadModels`: decorators of the store ports
 *   that seal those fields on the way in and open them on the way out, so the
 *   deciders, projections and use cases see plain (or erased) values and the
 *   database only ever sees sealed ones. Every store (memory, PostgreSQL,
 *   PGlite) is protected the same way.
 *
 * A sealed record keeps its non-personal fields as they were; each personal
 * field is removed and collected, per subject, into one sealed value under
 * `$personal`: `[{ subject, paths, sealed }]`, where `paths` (field names,
 * not personal) lists the removed fields. Opening puts them back, or, when
 * the subject is erased, sets each listed field to "[erased]". Records
 * written before sealing existed (no `$personal`) open unchanged.
 *
 * The append hook (projections, notifications) runs inside the decorated
 * store: it must get the typed events (`NewEvent.event`, which the command
 * handler always passes), since the stored `data` is sealed by then.
 */
import { Context, Effect, Option, Redacted } from "effect"
import * as Hmac from "../kernel/Hmac.ts"
import { erased } from "../kernel/Personal.ts"
import type {
  AppendOptions,
  EventStore,
  EventStoreUnavailable,
  ExpectedVersion,
  NewEvent,
  RecordedEvent,
  Snapshot,
} from "./EventStore.ts"
import type { ReadModelStore, StoredDocument } from "./ReadModel.ts"

/** The data keys of data subjects ("customer:<registrationId>", "company-owner:<companyId>"...). */
export class PersonalDataVault extends Context.Service<
  PersonalDataVault,
  {
    /** `plaintext` sealed under `subject`'s data key (created on first use). */
    readonly seal: (
      subject: string,
      plaintext: string,
      options?: SealOptions,
    ) => Effect.Effect<string, EventStoreUnavailable>
    /** The plaintext of a value sealed for `subject`, or `None` when the subject has been erased. */
    readonly open: (subject: string, sealed: string) => Effect.Effect<Option.Option<string>, EventStoreUnavailable>
    /** Deletes the subject's data key: everything sealed for it is unreadable from now on. True if a key existed. */
    readonly erase: (subject: string) => Effect.Effect<boolean, EventStoreUnavailable>
    /**
     * The subjects starting with `prefix` that have a key, with the partner each key is filed under ("" for
     * none): how a retention job finds the keys it may destroy (`AuthorizationEvidenceRetention.ts`).
     */
    readonly subjects: (prefix: string) => Effect.Effect<ReadonlyArray<SubjectKey>, EventStoreUnavailable>
  }
>()("partnerpay/domain/PersonalDataVault") {}

/** A subject that has a data key, and the partner the key is filed under ("" when none). */
export interface SubjectKey {
  readonly subject: string
  readonly partnerId: string
}

/** What the caller knows about a subject it seals for. */
export interface SealOptions {
  /**
   * The subject very likely has no key yet: its data arrives with the append that creates its
   * stream. A vault may then make the key without looking for one first; it must still seal with
   * the subject's one key if the hint is wrong (a subject erased and registered again, a race).
   */
  readonly likelyNew?: boolean
}

const testPhoneIndexKey = Redacted.make("partnerpay-test-phone-index-key-not-secret")

/** HMAC-SHA256 (Web Crypto) of a phone number, lowercase hex. */
const makePhoneIndex = (secret: Redacted.Redacted<string>): PhoneIndexShape => {
  let key: Promise<Hmac.Key> | undefined
  return {
    of: (phoneNumber) =>
      Effect.promise(async () => {
        key ??= Hmac.importKey(Redacted.value(secret))
        return Hmac.hexDigest(await key, phoneNumber)
      }),
  }
}

export interface PhoneIndexShape {
  /** The keyed hash of an E.164 phone number: equal numbers give equal hashes; the number cannot be read back. */
  readonly of: (phoneNumber: string) => Effect.Effect<string>
}

/**
 * The phone number index key. The service provides one derived from the data
 * master key (`PhoneIndex.make(secret)`); the default, a public test key, is
 * for tests and embedders only.
 */
export const PhoneIndex = Context.Reference<PhoneIndexShape>("partnerpay/domain/PhoneIndex", {
  defaultValue: () => makePhoneIndex(testPhoneIndexKey),
})

/** A phone index keyed with `secret` (at least 32 characters, derived from the master key, never stored). */
export const makePhoneIndexWith = makePhoneIndex

/** Which fields of one record belong to one subject. */
export interface SubjectFields {
  readonly subject: string
  /** Dotted paths of text fields; `*` walks every element of an array. */
  readonly paths: ReadonlyArray<string>
}

/** The personal fields of a record (its encoded JSON), or none. */
export type FieldsOf = (record: Readonly<Record<string, unknown>>, streamId: string) => ReadonlyArray<SubjectFields>

/** Where personal data is, for every kind of stored record. */
export interface PersonalFields {
  /** By stream type, then event type. */
  readonly events: Readonly<Record<string, Readonly<Record<string, FieldsOf>>>>
  /** Aggregate snapshots' states, by stream type. */
  readonly snapshots: Readonly<Record<string, FieldsOf>>
  /** Read-model documents, by collection. */
  readonly documents: Readonly<Record<string, FieldsOf>>
}

/** The key under which a sealed record keeps its sealed fields. */
export const sealedKey = "$personal"

interface SealedGroup {
  readonly subject: string
  readonly paths: ReadonlyArray<ReadonlyArray<string | number>>
  readonly sealed: string
}

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

type Path = ReadonlyArray<string | number>

/** Dotted field patterns, split once. */
const patterns = new Map<string, ReadonlyArray<string>>()
const patternOf = (dotted: string): ReadonlyArray<string> => {
  let pattern = patterns.get(dotted)
  if (pattern === undefined) {
    pattern = dotted.split(".")
    if (patterns.size < 10_000) patterns.set(dotted, pattern)
  }
  return pattern
}

/** Adds to `found` the concrete paths of `pattern` (from `depth`) in `value` whose value is text not already erased. */
const expand = (
  value: unknown,
  pattern: ReadonlyArray<string>,
  depth: number,
  prefix: Array<string | number>,
  found: Array<Path>,
): void => {
  if (depth === pattern.length) {
    if (typeof value === "string" && value !== erased) found.push(prefix.slice())
    return
  }
  const head = pattern[depth]!
  if (head === "*") {
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        prefix.push(index)
        expand(value[index], pattern, depth + 1, prefix, found)
        prefix.pop()
      }
    }
    return
  }
  if (isObject(value) && head in value) {
    prefix.push(head)
    expand(value[head], pattern, depth + 1, prefix, found)
    prefix.pop()
  }
}

const getAt = (value: unknown, path: Path): unknown => {
  let current = value
  for (const key of path) current = (current as Record<string | number, unknown>)[key]
  return current
}

const isIndexOf = (array: ReadonlyArray<unknown>, key: string | number): key is number =>
  typeof key === "number" && key >= 0 && key < array.length

/**
 * Copy-on-write edits of a JSON value: `edit(path, replace)` copies only the containers along
 * `path` that this editor has not copied yet, so many edits cost one copy of each touched container
 * and the input is never changed (unless `owned`: a fresh copy the caller hands over, edited in place).
 */
const editor = (input: unknown, owned = false) => {
  // The containers this editor made (a `Set`: the editor lives as long as one record's edits).
  const copies = new Set<object>()
  const copy = (container: unknown): unknown => {
    if (Array.isArray(container)) {
      if (copies.has(container)) return container
      const fresh = container.slice()
      copies.add(fresh)
      return fresh
    }
    if (isObject(container)) {
      if (copies.has(container)) return container
      const fresh = { ...container }
      copies.add(fresh)
      return fresh
    }
    return container
  }
  let root = owned ? input : copy(input)
  if (owned && typeof input === "object" && input !== null) copies.add(input)
  return {
    /** Replaces the value at `path` (`remove`: deletes an object's key; an array element stays). */
    edit: (path: Path, replacement: unknown, remove = false) => {
      if (path.length === 0) {
        if (!remove) root = replacement
        return
      }
      let parent = root as Record<string | number, unknown>
      for (let i = 0; i < path.length - 1; i++) {
        if (Array.isArray(parent) ? !isIndexOf(parent, path[i]!) : !isObject(parent)) return
        const child = copy(parent[path[i]!])
        parent[path[i]!] = child
        parent = child as Record<string | number, unknown>
      }
      const last = path[path.length - 1]!
      if (Array.isArray(parent)) {
        if (!remove && isIndexOf(parent, last)) parent[last] = replacement
      } else if (isObject(parent)) {
        if (remove) delete parent[last]
        else parent[last] = replacement
      }
    },
    result: () => root,
  }
}

/**
 * Whether `subject` is named after the stream `streamId` (`customer:<id>` of `Customer-<id>`,
 * `login:<stream id>` of a challenge): only such a subject can be new when its stream is. The payer of a
 * `Transfer-<id>` stream is not.
 */
const namedAfter = (subject: string, streamId: string): boolean =>
  subject.endsWith(`:${streamId}`) || subject.endsWith(`:${streamId.slice(streamId.indexOf("-") + 1)}`)

/**
 * Seals the personal fields of `data` (encoded JSON) as `fieldsOf` says; other values are returned as they
 * are. `options.likelyNew` is passed on for the subjects named after the stream only.
 */
export const sealRecord = Effect.fnUntraced(function* (
  vault: PersonalDataVault["Service"],
  fieldsOf: FieldsOf | undefined,
  data: unknown,
  streamId: string,
  options?: SealOptions,
): Effect.fn.Return<unknown, EventStoreUnavailable> {
  if (fieldsOf === undefined || !isObject(data) || sealedKey in data) return data
  let out: ReturnType<typeof editor> | undefined
  const groups: Array<SealedGroup> = []
  for (const { subject, paths } of fieldsOf(data, streamId)) {
    const concrete: Array<Path> = []
    for (const path of paths) expand(data, patternOf(path), 0, [], concrete)
    if (concrete.length === 0) continue
    const values = concrete.map((path) => getAt(data, path))
    out ??= editor(data)
    for (const path of concrete) out.edit(path, undefined, true)
    const hint = options?.likelyNew === true && !namedAfter(subject, streamId) ? undefined : options
    groups.push({ subject, paths: concrete, sealed: yield* vault.seal(subject, JSON.stringify(values), hint) })
  }
  return out === undefined ? data : { ...(out.result() as Json), [sealedKey]: groups }
})

/** A sealed record as opened, with the plaintexts it was opened from (undefined: an erased subject's). */
interface OpenedRecord {
  readonly plaintexts: ReadonlyArray<string | undefined>
  readonly record: unknown
}

/** The record `data` with each group's fields set from its plaintext (or "[erased]"). */
const withOpened = (
  data: Readonly<Record<string, unknown>>,
  groups: ReadonlyArray<SealedGroup>,
  plaintexts: ReadonlyArray<string | undefined>,
): unknown => {
  const { [sealedKey]: _sealed, ...rest } = data
  // `rest` is a fresh copy already: edited in place.
  const out = editor(rest, true)
  groups.forEach((group, g) => {
    const plaintext = plaintexts[g]
    const values: ReadonlyArray<unknown> =
      plaintext === undefined ? group.paths.map(() => erased) : (JSON.parse(plaintext) as ReadonlyArray<unknown>)
    group.paths.forEach((path, index) => {
      out.edit(path, values[index] ?? erased)
    })
  })
  return out.result()
}

const samePlaintexts = (a: ReadonlyArray<string | undefined>, b: ReadonlyArray<string | undefined>): boolean =>
  a.length === b.length && a.every((plaintext, index) => plaintext === b[index])

/**
 * Opens a record sealed by `sealRecord`: its fields back, or "[erased]" for an erased subject's fields.
 *
 * With `opened`, a frozen record (one a store keeps: `ReadModelStore`) opened before to the same
 * plaintexts answers the same frozen object again, so that what is derived from it can be kept with
 * it (`ReadModel.decodeDocument`). The vault is asked every time: a subject erased since opens to
 * "[erased]" and the record is opened anew.
 */
export const openRecord = Effect.fnUntraced(function* (
  vault: PersonalDataVault["Service"],
  data: unknown,
  opened?: WeakMap<object, OpenedRecord>,
): Effect.fn.Return<unknown, EventStoreUnavailable> {
  if (!isObject(data) || !(sealedKey in data)) return data
  const groups = data[sealedKey] as ReadonlyArray<SealedGroup>
  const plaintexts: Array<string | undefined> = []
  for (const group of groups) plaintexts.push(Option.getOrUndefined(yield* vault.open(group.subject, group.sealed)))
  const kept = opened !== undefined && Object.isFrozen(data)
  const before = kept ? opened.get(data) : undefined
  if (before !== undefined && samePlaintexts(before.plaintexts, plaintexts)) return before.record
  const record = withOpened(data, groups, plaintexts)
  if (kept) opened.set(data, { plaintexts, record: Object.freeze(record) })
  return record
})

/** The subjects whose data a stored record holds (sealed), for audits and tests. */
export const subjectsOf = (data: unknown): ReadonlyArray<string> =>
  isObject(data) && Array.isArray(data[sealedKey])
    ? (data[sealedKey] as ReadonlyArray<SealedGroup>).map((group) => group.subject)
    : []

/** A stored record (event, document) with `data` as its data: the record itself when that is unchanged. */
const withData =
  <Stored extends { readonly data: unknown }>(record: Stored) =>
  (data: unknown): Stored =>
    data === record.data ? record : { ...record, data }

/** A stored record with its personal fields opened. */
const openData = <Stored extends { readonly data: unknown }>(vault: PersonalDataVault["Service"], record: Stored) =>
  Effect.map(openRecord(vault, record.data), withData(record))

/** An event store that seals personal fields of events and snapshots on append and opens them on read. */
export const protectEventStore = (
  store: EventStore["Service"],
  vault: PersonalDataVault["Service"],
  fields: PersonalFields,
): EventStore["Service"] => {
  const openEvents = (events: ReadonlyArray<RecordedEvent>) => Effect.forEach(events, (event) => openData(vault, event))
  const sealSnapshot = (streamId: string, streamType: string, snapshot: Snapshot) =>
    Effect.map(
      sealRecord(vault, fields.snapshots[streamType], snapshot.state, streamId),
      (state): Snapshot => ({ ...snapshot, state }),
    )
  const readFromSnapshot = store.readFromSnapshot
  return {
    readStream: (streamId, options) => Effect.flatMap(store.readStream(streamId, options), openEvents),
    readAll: (options) => Effect.flatMap(store.readAll(options), openEvents),
    append: Effect.fnUntraced(function* (
      streamId: string,
      streamType: string,
      expected: ExpectedVersion,
      events: ReadonlyArray<NewEvent>,
      options?: AppendOptions,
    ) {
      const byType = fields.events[streamType]
      // A subject's data first comes with the append that creates its stream when the subject is named after
      // its stream (customer:<registrationId>, company-owner:<companyId>, login:<stream id>; `sealRecord`
      // passes the hint on for those only: a transfer's payer is not new with the transfer).
      const sealOptions: SealOptions = { likelyNew: expected._tag === "NoStream" }
      const sealed =
        byType === undefined
          ? events
          : yield* Effect.forEach(events, (event) =>
              Effect.map(
                sealRecord(vault, byType[event.eventType], event.data, streamId, sealOptions),
                withData(event),
              ),
            )
      const snapshot = options?.snapshot
      const sealedOptions =
        snapshot === undefined || fields.snapshots[streamType] === undefined
          ? options
          : { ...options, snapshot: yield* sealSnapshot(streamId, streamType, snapshot) }
      return yield* store.append(streamId, streamType, expected, sealed, sealedOptions)
    }),
    ...(readFromSnapshot === undefined
      ? {}
      : {
          readFromSnapshot: Effect.fnUntraced(function* (streamId: string, schemaVersion: number) {
            const { snapshot, events } = yield* readFromSnapshot(streamId, schemaVersion)
            const state = snapshot === undefined ? undefined : yield* openRecord(vault, snapshot.state)
            return {
              snapshot: snapshot === undefined ? undefined : { ...snapshot, state },
              events: yield* openEvents(events),
            }
          }),
        }),
  }
}

/** A read-model store that seals personal fields of documents on put and opens them on get and find. */
export const protectReadModels = (
  store: ReadModelStore["Service"],
  vault: PersonalDataVault["Service"],
  fields: PersonalFields,
): ReadModelStore["Service"] => {
  const openDocument = (document: StoredDocument) => openData(vault, document)
  // Documents the store keeps (frozen) as opened, while their plaintexts stay the same (`openRecord`).
  const opened = new WeakMap<object, OpenedRecord>()
  return {
    get: (collection, id) =>
      Effect.flatMap(store.get(collection, id), (found) =>
        Option.isNone(found)
          ? Effect.succeed(found)
          : Effect.map(openRecord(vault, found.value.data, opened), (data) => Option.some(withData(found.value)(data))),
      ),
    find: (collection, query) =>
      Effect.flatMap(store.find(collection, query), (page) =>
        Effect.map(Effect.forEach(page.items, openDocument), (items) => ({ ...page, items })),
      ),
    put: (document) =>
      Effect.flatMap(
        Effect.map(
          sealRecord(vault, fields.documents[document.collection], document.data, document.id),
          withData(document),
        ),
        store.put,
      ),
    delete: (collection, id) => store.delete(collection, id),
    clear: (collection) => store.clear(collection),
  }
}
