/**
 * The domain `PersonalDataVault` port: data keys per data subject, wrapped by
 * the master key, in the table `personal_data_keys` (migration 0008), or in
 * memory (`makeMemory`: tests and embedders). Crypto: `@partnerpay/secrets`
 * `PersonalDataCrypto` (AES-256-GCM, node:crypto).
 *
 * - `seal(subject, text, { likelyNew })`: the subject's key from the current
 *   unit of work (a key it made), the cache, or the table. A subject without
 *   a key gets a new one; during a unit (`PgUnit`), the key is inserted by
 *   the unit's commit, in the same statement as the data it seals, and the
 *   commit fails with a conflict (retried by the caller) if the subject got
 *   a key meanwhile. `likelyNew` (the append creates the subject's stream)
 *   skips the lookup: a new company or customer costs no statement here.
 *   Outside a unit the key is inserted at once (racing writers agree on the
 *   first).
 * - `open(subject, sealed)`: `None` when the subject has no key (erased), or
 *   when its value does not open with the current key (the subject was erased
 *   and came back: a new key). A key that does not unwrap with the master key
 *   is a configuration error (wrong PARTNERPAY_DATA_KEY): a defect, loud.
 * - `erase(subject)`: deletes the row and forgets the cached key.
 * - `subjects(prefix)`: the subjects with a key whose name starts with `prefix`, and the partner each row
 *   is filed under (a retention job's list: `AuthorizationEvidenceRetention`).
 *
 * Cache: unwrapped keys are kept `cacheMillis` (default 30 s), so another
 * process's erasure is seen by this one within that time, for at most
 * `maxCachedKeys` subjects (default 10,000). When it is full, the oldest
 * sixteenth goes at once (`evictOldest`): a `Map` keeps the entries it deleted
 * until it is rehashed, and every `keys().next()` walks past them, so evicting
 * one entry per new key cost about 10 µs at 10,000 keys (three per new company).
 * With its key, a cached subject keeps the last values it opened (at most `maxOpenedPerKey`):
 * a read of the same document again costs no AES-GCM open (about 10 µs of a 200 µs read). They
 * live and go with the key (expiry, eviction, `erase`), so nothing is readable longer than the
 * key that opens it is held.
 */

import type { KeyObject } from "node:crypto"
import { EventStore, PersonalData, Traced } from "@partnerpay/domain"
import { PersonalDataCrypto } from "@partnerpay/secrets"
import { Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as PartnerScope from "./PartnerScope.ts"
import * as PgUnit from "./PgUnit.ts"
import { unavailable } from "./SqlErrors.ts"

/** Where wrapped keys are kept. */
export interface KeyTable {
  /** The subject's wrapped key, if any. */
  readonly get: (subject: string) => Effect.Effect<Option.Option<string>, EventStore.EventStoreUnavailable>
  /** Inserts `wrapped` unless the subject already has a key; answers the key the subject has now. */
  readonly insert: (
    subject: string,
    wrapped: string,
    masterKeyId: string,
  ) => Effect.Effect<string, EventStore.EventStoreUnavailable>
  /** Deletes the subject's key; true if there was one. */
  readonly delete: (subject: string) => Effect.Effect<boolean, EventStore.EventStoreUnavailable>
  /** The subjects starting with `prefix` that have a key, with the partner each is filed under, in order. */
  readonly subjects: (
    prefix: string,
  ) => Effect.Effect<ReadonlyArray<PersonalData.SubjectKey>, EventStore.EventStoreUnavailable>
  /**
   * The unit of work in flight, if the table takes part in units (the SQL table): a key made
   * during a unit is inserted by the unit's commit, in the same statement as what it seals.
   */
  readonly currentUnit?: Effect.Effect<PgUnit.Unit | undefined>
}

export interface Options {
  readonly cacheMillis?: number
  /** At most this many unwrapped keys are cached (default `maxCachedKeys`); the oldest goes first. */
  readonly maxCachedKeys?: number
}

/** The default bound of the key cache: 10,000 subjects (about 2 MB). */
export const maxCachedKeys = 10_000

/**
 * Deletes the `count` oldest entries of `map` (insertion order) in one walk: the walk passes the
 * entries deleted earlier once per batch, not once per entry.
 */
export const evictOldest = (map: Map<string, unknown>, count: number): void => {
  let left = count
  for (const key of map.keys()) {
    if (left <= 0) return
    map.delete(key)
    left--
  }
}

/** At most this many opened values are kept with a cached key (a subject's name, e-mail, phone, ...). */
export const maxOpenedPerKey = 4

/** A cached key, and the values it opened last (sealed text -> plaintext), made at the first open. */
interface CachedKey {
  readonly key: KeyObject
  readonly until: number
  opened: Map<string, string> | undefined
}

/** At most this many subjects are remembered as "has a key" after a wrong `likelyNew` guess. */
const maxKnownTaken = 10_000

/** The vault on a key table, with the master key. */
export const make = (
  master: Redacted.Redacted<Uint8Array>,
  table: KeyTable,
  options: Options = {},
): PersonalData.PersonalDataVault["Service"] => {
  const cacheMillis = options.cacheMillis ?? 30_000
  const cacheSize = Math.max(1, options.maxCachedKeys ?? maxCachedKeys)
  /** How many keys go at once when the cache is full (a sixteenth of it, at least one). */
  const evictionBatch = Math.max(1, Math.floor(cacheSize / 16))
  const masterKey = PersonalDataCrypto.keyObject(Redacted.value(master))
  const masterId = PersonalDataCrypto.masterKeyId(Redacted.value(master))
  const cache = new Map<string, CachedKey>()
  /** Subjects guessed new that had a key: looked up from now on. */
  const taken = new Set<string>()
  const noUnit: Effect.Effect<PgUnit.Unit | undefined> = Effect.succeed(undefined)
  const currentUnit = table.currentUnit ?? noUnit

  const unwrap = (subject: string, wrapped: string): KeyObject => {
    try {
      return PersonalDataCrypto.keyObject(PersonalDataCrypto.unwrapDataKey(masterKey, subject, wrapped))
    } catch {
      throw new Error(`the data key of ${subject} does not unwrap with the configured master key (PARTNERPAY_DATA_KEY)`)
    }
  }

  const remember = (subject: string, key: KeyObject) => {
    cache.delete(subject)
    // Bounded: the entries cached longest ago go, a batch at a time (expired ones are dropped when read).
    if (cache.size >= cacheSize) evictOldest(cache, evictionBatch)
    const entry: CachedKey = { key, until: Date.now() + cacheMillis, opened: undefined }
    cache.set(subject, entry)
    return entry
  }

  const cachedEntry = (subject: string): CachedKey | undefined => {
    const hit = cache.get(subject)
    if (hit === undefined) return undefined
    if (hit.until < Date.now()) {
      cache.delete(subject)
      return undefined
    }
    return hit
  }

  const cached = (subject: string): KeyObject | undefined => cachedEntry(subject)?.key

  /**
   * A new key for `subject`, to be inserted by `unit`'s commit, filed under the request's partner, else
   * the partner the subject names, else the partner of the streams the unit writes.
   */
  const pendingKey = (unit: PgUnit.Unit, subject: string, partner: string | undefined): KeyObject => {
    const fresh = PersonalDataCrypto.newDataKey()
    const key = PersonalDataCrypto.keyObject(fresh)
    let partnerId = PartnerScope.forSubject(partner, subject)
    if (partnerId === "") {
      for (const stream of unit.streams.values()) if (partnerId === "") partnerId = stream.partnerId
    }
    unit.dataKeys.set(subject, {
      subject,
      partnerId,
      wrapped: PersonalDataCrypto.wrapDataKey(masterKey, subject, fresh),
      masterKeyId: masterId,
      key,
      stored: () => {
        remember(subject, key)
      },
      taken: () => {
        if (taken.size >= maxKnownTaken) taken.clear()
        taken.add(subject)
      },
    })
    return key
  }

  /** The key that opens `subject`'s values (with its opened values when cached); undefined when it has none. */
  const existing = Effect.fnUntraced(function* (subject: string) {
    const pending = (yield* currentUnit)?.dataKeys.get(subject)
    if (pending !== undefined) return { key: pending.key, opened: undefined }
    const hit = cachedEntry(subject)
    if (hit !== undefined) return hit
    const found = yield* table.get(subject)
    return Option.isSome(found) ? remember(subject, unwrap(subject, found.value)) : undefined
  })

  const openWith = (
    entry: { readonly key: KeyObject; opened: Map<string, string> | undefined },
    subject: string,
    sealed: string,
  ) => {
    const known = entry.opened?.get(sealed)
    if (known !== undefined) return Option.some(known)
    let text: string
    try {
      text = PersonalDataCrypto.open(entry.key, subject, sealed)
    } catch {
      return Option.none()
    }
    if (entry.opened === undefined) entry.opened = new Map()
    else if (entry.opened.size >= maxOpenedPerKey) entry.opened.clear()
    entry.opened.set(sealed, text)
    return Option.some(text)
  }

  const keyFor = Effect.fnUntraced(function* (subject: string, sealOptions: PersonalData.SealOptions | undefined) {
    const unit = yield* currentUnit
    const pending = unit?.dataKeys.get(subject)
    if (pending !== undefined) return pending.key
    const hit = cached(subject)
    if (hit !== undefined) return hit
    // A subject whose stream the unit creates has no key yet (or the commit says otherwise): no lookup.
    const partner = yield* PartnerScope.current
    if (unit !== undefined && sealOptions?.likelyNew === true && !taken.has(subject)) {
      return pendingKey(unit, subject, partner)
    }
    const found = yield* table.get(subject)
    if (Option.isSome(found)) return remember(subject, unwrap(subject, found.value)).key
    if (unit !== undefined) return pendingKey(unit, subject, partner)
    const fresh = PersonalDataCrypto.newDataKey()
    const wrapped = PersonalDataCrypto.wrapDataKey(masterKey, subject, fresh)
    const stored = yield* table.insert(subject, wrapped, masterId)
    return remember(subject, stored === wrapped ? PersonalDataCrypto.keyObject(fresh) : unwrap(subject, stored)).key
  })

  return PersonalData.PersonalDataVault.of({
    seal: (subject, plaintext, sealOptions) =>
      Effect.map(keyFor(subject, sealOptions), (key) => PersonalDataCrypto.seal(key, subject, plaintext)),
    open: (subject, sealed) =>
      Effect.map(existing(subject), (entry) =>
        entry === undefined ? Option.none() : openWith(entry, subject, sealed),
      ),
    erase: (subject) =>
      Effect.suspend(() => {
        cache.delete(subject)
        return table.delete(subject)
      }),
    subjects: (prefix) => table.subjects(prefix),
  })
}

/** Wrapped keys in memory: tests and embedders (lost on exit, so is everything sealed with them). */
export const memoryTable = (): KeyTable => {
  const rows = new Map<string, string>()
  return {
    get: (subject) => Effect.sync(() => Option.fromUndefinedOr(rows.get(subject))),
    insert: (subject, wrapped) =>
      Effect.sync(() => {
        const current = rows.get(subject)
        if (current !== undefined) return current
        rows.set(subject, wrapped)
        return wrapped
      }),
    delete: (subject) => Effect.sync(() => rows.delete(subject)),
    subjects: (prefix) =>
      Effect.sync(() =>
        [...rows.keys()]
          .filter((subject) => subject.startsWith(prefix))
          .sort()
          .map((subject) => ({ subject, partnerId: "" })),
      ),
  }
}

/** The vault with keys in memory. */
export const makeMemory = (
  master: Redacted.Redacted<Uint8Array>,
  options: Options = {},
): PersonalData.PersonalDataVault["Service"] => make(master, memoryTable(), options)

/** The `personal_data_keys` table on the `SqlClient` in context. */
export const sqlTable = (sql: SqlClient): KeyTable => ({
  get: (subject) =>
    Effect.flatMap(
      PartnerScope.current,
      (partner) =>
        sql<{ wrapped_key: string }>`
        SELECT wrapped_key FROM personal_data_keys WHERE subject = ${subject} ${PartnerScope.and(sql, partner)}`,
    ).pipe(
      Effect.map((rows) => Option.fromUndefinedOr(rows[0]?.wrapped_key)),
      unavailable("reading a data key"),
    ),
  insert: (subject, wrapped, masterKeyId) =>
    Effect.flatMap(PartnerScope.current, (current) => {
      const partner = PartnerScope.forSubject(current, subject)
      return sql<{ wrapped_key: string }>`
      WITH inserted AS (
        INSERT INTO personal_data_keys (subject, wrapped_key, master_key_id, partner_id)
        VALUES (${subject}, ${wrapped}, ${masterKeyId}, ${partner})
        ON CONFLICT (subject) DO NOTHING
        RETURNING wrapped_key)
      SELECT wrapped_key FROM inserted
      UNION ALL SELECT wrapped_key FROM personal_data_keys WHERE subject = ${subject} AND partner_id = ${partner}
      LIMIT 1`
    }).pipe(
      Effect.flatMap((rows) => {
        if (rows[0] !== undefined) return Effect.succeed(rows[0].wrapped_key)
        // Another session inserted the key meanwhile: its row is not in this statement's snapshot
        // (ON CONFLICT DO NOTHING saw it, the SELECT did not). A new statement reads it.
        return Effect.flatMap(PartnerScope.current, (current) => {
          const partner = PartnerScope.forSubject(current, subject)
          return sql<{ wrapped_key: string }>`
            SELECT wrapped_key FROM personal_data_keys WHERE subject = ${subject} AND partner_id = ${partner}`
        }).pipe(
          Effect.flatMap((again) =>
            again[0] === undefined
              ? Effect.fail(new EventStore.EventStoreUnavailable({ reason: "a data key could not be stored" }))
              : Effect.succeed(again[0].wrapped_key),
          ),
        )
      }),
      unavailable("storing a data key"),
    ),
  delete: (subject) =>
    Effect.flatMap(
      PartnerScope.current,
      (partner) => sql<{ subject: string }>`
        DELETE FROM personal_data_keys WHERE subject = ${subject} ${PartnerScope.and(sql, partner)} RETURNING subject`,
    ).pipe(
      Effect.map((rows) => rows.length > 0),
      unavailable("erasing a data key"),
    ),
  subjects: (prefix) =>
    Effect.flatMap(
      PartnerScope.current,
      (partner) => sql<{ subject: string; partner_id: string }>`
        SELECT subject, partner_id FROM personal_data_keys
        WHERE starts_with(subject, ${prefix}) ${PartnerScope.and(sql, partner)}
        ORDER BY subject`,
    ).pipe(
      Effect.map((rows) => rows.map((row) => ({ subject: row.subject, partnerId: row.partner_id }))),
      unavailable("listing data keys"),
    ),
  currentUnit: Effect.service(PgUnit.CurrentUnit),
})

/** The vault on PostgreSQL (migrations must have run). */
export const layer = (
  master: Redacted.Redacted<Uint8Array>,
  options: Options = {},
): Layer.Layer<PersonalData.PersonalDataVault, never, SqlClient> =>
  Layer.effect(
    PersonalData.PersonalDataVault,
    Effect.gen(function* () {
      return make(master, sqlTable(yield* SqlClient), options)
    }),
  )

/**
 * Master key rotation: re-wraps every data key from `from` to `to` in one
 * transaction (the data sealed with the data keys is untouched). Keys already
 * wrapped by `to` are left as they are, so a rerun after a failure is safe.
 * Answers how many keys were re-wrapped. Run it with the service stopped (or
 * expect the service to fail on keys it cannot unwrap until it restarts with
 * the new key).
 */
export const rotateMaster = Traced.fn("PgPersonalDataVault.rotateMaster")(function* (
  from: Redacted.Redacted<Uint8Array>,
  to: Redacted.Redacted<Uint8Array>,
): Effect.fn.Return<number, SqlError, SqlClient> {
  const sql = yield* SqlClient
  const oldKey = Redacted.value(from)
  const newKey = Redacted.value(to)
  const newId = PersonalDataCrypto.masterKeyId(newKey)
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      const rows = yield* sql<{ subject: string; wrapped_key: string }>`
          SELECT subject, wrapped_key FROM personal_data_keys WHERE master_key_id <> ${newId} FOR UPDATE`
      for (const row of rows) {
        const dataKey = PersonalDataCrypto.unwrapDataKey(oldKey, row.subject, row.wrapped_key)
        const rewrapped = PersonalDataCrypto.wrapDataKey(newKey, row.subject, dataKey)
        yield* sql`
            UPDATE personal_data_keys SET wrapped_key = ${rewrapped}, master_key_id = ${newId}
            WHERE subject = ${row.subject}`
      }
      return rows.length
    }),
  )
})

/** Parses a master key written as text (base64 of 32 bytes, or 64 hex digits); throws with a reason. */
export const parseMasterKey = (text: string): Redacted.Redacted<Uint8Array> =>
  Redacted.make(PersonalDataCrypto.parseMasterKey(text))

/** A new random master key as text (for the sandbox key file, or for an operator to store). */
export const newMasterKeyText = (): string => PersonalDataCrypto.newMasterKey()

/** The secret of the phone number index (`PhoneIndex`), derived from the master key (HKDF). */
export const phoneIndexSecret = (master: Redacted.Redacted<Uint8Array>): Redacted.Redacted<string> =>
  Redacted.make(
    Buffer.from(PersonalDataCrypto.deriveKey(Redacted.value(master), "partnerpay/phone-index/v1")).toString("hex"),
  )

/** The public fingerprint of a master key (which key wrapped the stored data keys). */
export const masterKeyId = (master: Redacted.Redacted<Uint8Array>): string =>
  PersonalDataCrypto.masterKeyId(Redacted.value(master))
