/**
 * Personal data sealed per data subject and erased by key: the protected
 * stores (`PersonalData.protectEventStore` / `protectReadModels`) over the
 * in-memory stores with the in-memory vault, and the PostgreSQL vault on
 * PGlite (keys table, erasure, master key rotation).
 */
import { assert, describe, it } from "@effect/vitest"
import {
  CommandHandler,
  Customer,
  CustomersProjection,
  EventPipeline,
  EventStore,
  IdGenerator,
  type Ids,
  Outbox,
  PersonalData,
  PersonalDataMap,
  Policies,
  ReadModel,
  Tenancy,
  UnitOfWork,
} from "@partnerpay/domain"
import { DateTime, Effect, Exit, Layer, Option } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../src/Migrations.ts"
import * as PgDatabase from "../src/PgDatabase.ts"
import * as PgPersonalDataVault from "../src/PgPersonalDataVault.ts"
import * as PgUnitOfWork from "../src/PgUnitOfWork.ts"

const master = PgPersonalDataVault.parseMasterKey(PgPersonalDataVault.newMasterKeyText())
const registrationId = "0b6f3c1e-1111-4c2a-9d3e-5f6a7b8c9d01" as Ids.RegistrationId
const partnerId = "1b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a61" as Ids.PartnerId
const phoneNumber = "+14155550163"
const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
const identity = {
  profileName: "",
  firstName: "Grace",
  lastName: "Hopper",
  birthDate: "1906-12-09",
  ssnLastFourDigits: "4242",
  emailAddress: "grace.hopper@example.com",
  phoneNumber,
} as Customer.PersonalData & object
const plaintexts = [phoneNumber, "Grace", "Hopper", "1906-12-09", '"4242"', "grace.hopper@example.com"]

/** The in-memory stack, protected, with access to what the raw stores hold. */
const makeStack = Effect.gen(function* () {
  const vault = PgPersonalDataVault.makeMemory(master)
  const rawDocuments = ReadModel.makeMemory()
  const documents = PersonalData.protectReadModels(rawDocuments, vault, PersonalDataMap.fields)
  const outbox = yield* Effect.provide(
    Effect.gen(function* () {
      return yield* Outbox.Outbox
    }),
    Outbox.Outbox.layerMemory,
  )
  const hook = yield* EventPipeline.makeHook().pipe(
    Effect.provideService(ReadModel.ReadModelStore, documents),
    Effect.provideService(Outbox.Outbox, outbox),
  )
  const rawEvents = EventStore.makeMemory({ onAppend: hook })
  const events = PersonalData.protectEventStore(rawEvents, vault, PersonalDataMap.fields)
  const layer = Layer.mergeAll(
    Layer.succeed(EventStore.EventStore, events),
    Layer.succeed(ReadModel.ReadModelStore, documents),
    IdGenerator.IdGenerator.layerRandom,
    Policies.layer.pipe(Layer.provide(Layer.succeed(ReadModel.ReadModelStore, documents))),
  )
  return { vault, rawDocuments, rawEvents, layer }
})

const registerAndVerify = Effect.gen(function* () {
  yield* CommandHandler.handle(Customer.aggregate, registrationId, {
    _tag: "RegisterCustomer",
    registrationId,
    partnerId,
    phoneNumber,
    at,
  })
  yield* CommandHandler.handle(Customer.aggregate, registrationId, {
    _tag: "StartKyc",
    tokenId: "5d1c0b7a-2222-4c2a-9d3e-5f6a7b8c9d02",
    expiration: DateTime.add(at, { hours: 1 }),
    at,
  })
  yield* CommandHandler.handle(Customer.aggregate, registrationId, {
    _tag: "RecordKycResult",
    outcome: "Verified",
    referenceId: "5d1c0b7a-2222-4c2a-9d3e-5f6a7b8c9d02",
    personalData: identity,
    at,
  })
})

const leaks = (stored: unknown): ReadonlyArray<string> => {
  const text = JSON.stringify(stored)
  return plaintexts.filter((value) => text.includes(value))
}

const customerDocument = Effect.gen(function* () {
  const stored = yield* (yield* ReadModel.ReadModelStore).get(CustomersProjection.collection, registrationId)
  return ReadModel.decodeDocument(CustomersProjection.projection, Option.getOrThrow(stored))
})

describe("a customer on the protected in-memory stores", () => {
  it.effect("is stored sealed and read back in plain", () =>
    Effect.gen(function* () {
      const stack = yield* makeStack
      yield* registerAndVerify.pipe(Effect.provide(stack.layer))
      const raw = yield* stack.rawEvents.readAll({ after: 0, limit: 100 })
      assert.strictEqual(raw.length, 3)
      assert.deepStrictEqual(leaks(raw.map((event) => event.data)), [])
      assert.deepStrictEqual(PersonalData.subjectsOf(raw[0]!.data), [`customer:${registrationId}`])
      const rawDocument = yield* stack.rawDocuments.get(CustomersProjection.collection, registrationId)
      assert.deepStrictEqual(leaks(Option.getOrThrow(rawDocument).data), [])
      const { state } = yield* CommandHandler.load(Customer.aggregate, registrationId).pipe(Effect.provide(stack.layer))
      assert.deepStrictEqual(Customer.personalData(state), identity)
      const document = yield* customerDocument.pipe(Effect.provide(stack.layer))
      assert.strictEqual(document.phoneNumber, phoneNumber)
      assert.deepStrictEqual(document.personalData, identity)
    }),
  )

  it.effect("reads as erased in every personal field once its key is deleted, and still decodes and rebuilds", () =>
    Effect.gen(function* () {
      const stack = yield* makeStack
      yield* registerAndVerify.pipe(Effect.provide(stack.layer))
      assert.isTrue(yield* stack.vault.erase(`customer:${registrationId}`))
      assert.isFalse(yield* stack.vault.erase(`customer:${registrationId}`))
      const { state } = yield* CommandHandler.load(Customer.aggregate, registrationId).pipe(Effect.provide(stack.layer))
      const erasedIdentity = Object.fromEntries(Object.keys(identity).map((key) => [key, "[erased]"]))
      assert.deepStrictEqual(Customer.personalData(state), erasedIdentity)
      assert.strictEqual(Customer.kycStatus(state), "Verified")
      const document = yield* customerDocument.pipe(Effect.provide(stack.layer))
      assert.strictEqual(document.phoneNumber, "[erased]")
      assert.deepStrictEqual(document.personalData, erasedIdentity)
      // Logging in again with the same phone (same challenge, same id) keeps the customer as is.
      const again = yield* CommandHandler.handle(Customer.aggregate, registrationId, {
        _tag: "RegisterCustomer",
        registrationId,
        partnerId,
        phoneNumber,
        at,
      }).pipe(Effect.provide(stack.layer))
      assert.deepStrictEqual(again.events, [])
      // A rebuild replays the log: the rebuilt document holds the erased form, in plain, and no new key is made.
      const replayed = yield* EventPipeline.rebuild([CustomersProjection.projection]).pipe(Effect.provide(stack.layer))
      assert.strictEqual(replayed, 3)
      const rebuilt = yield* stack.rawDocuments.get(CustomersProjection.collection, registrationId)
      assert.deepStrictEqual(PersonalData.subjectsOf(Option.getOrThrow(rebuilt).data), [])
      assert.strictEqual((Option.getOrThrow(rebuilt).data as { phoneNumber: string }).phoneNumber, "[erased]")
    }),
  )
})

describe("the vault's key cache", () => {
  it.effect("holds at most maxCachedKeys subjects: the oldest is read from the table again", () =>
    Effect.gen(function* () {
      const table = PgPersonalDataVault.memoryTable()
      const reads: Array<string> = []
      const counting: PgPersonalDataVault.KeyTable = {
        ...table,
        get: (subject) =>
          Effect.andThen(
            Effect.sync(() => reads.push(subject)),
            table.get(subject),
          ),
      }
      const vault = PgPersonalDataVault.make(master, counting, { maxCachedKeys: 2 })
      const sealed = yield* Effect.forEach(["a", "b", "c"], (subject) => vault.seal(`customer:${subject}`, subject))
      reads.length = 0
      // "b" and "c" are cached; "a" was evicted when "c" came.
      assert.deepStrictEqual(yield* vault.open("customer:c", sealed[2]!), Option.some("c"))
      assert.deepStrictEqual(yield* vault.open("customer:b", sealed[1]!), Option.some("b"))
      assert.deepStrictEqual(reads, [])
      assert.deepStrictEqual(yield* vault.open("customer:a", sealed[0]!), Option.some("a"))
      assert.deepStrictEqual(reads, ["customer:a"])
    }),
  )
  it.effect("forgets the values a key opened with the key: another process's erasure is seen once it expires", () =>
    Effect.gen(function* () {
      const table = PgPersonalDataVault.memoryTable()
      const reader = PgPersonalDataVault.make(master, table, { cacheMillis: -1 })
      const other = PgPersonalDataVault.make(master, table)
      const sealed = yield* other.seal("customer:a", "Grace Hopper")
      assert.deepStrictEqual(yield* reader.open("customer:a", sealed), Option.some("Grace Hopper"))
      assert.deepStrictEqual(yield* reader.open("customer:a", sealed), Option.some("Grace Hopper"))
      yield* other.erase("customer:a")
      yield* other.seal("customer:a", "new data")
      assert.deepStrictEqual(yield* reader.open("customer:a", sealed), Option.none())
    }),
  )

  it.effect("keeps at most maxOpenedPerKey opened values per subject, each still read right", () =>
    Effect.gen(function* () {
      const vault = PgPersonalDataVault.makeMemory(master)
      const texts = Array.from({ length: PgPersonalDataVault.maxOpenedPerKey * 2 + 1 }, (_, i) => `value ${i}`)
      const sealed = yield* Effect.forEach(texts, (text) => vault.seal("customer:a", text))
      for (let round = 0; round < 2; round++) {
        const opened = yield* Effect.forEach(sealed, (value) => vault.open("customer:a", value))
        assert.deepStrictEqual(opened, texts.map(Option.some))
      }
      yield* vault.erase("customer:a")
      assert.deepStrictEqual(yield* vault.open("customer:a", sealed[0]!), Option.none())
    }),
  )
})

describe("a full key cache", () => {
  it("evictOldest deletes the given number of entries cached longest ago, in insertion order", () => {
    const cache = new Map(["a", "b", "c", "d"].map((key) => [key, key]))
    cache.delete("b")
    cache.set("b", "b")
    PgPersonalDataVault.evictOldest(cache, 2)
    assert.deepStrictEqual([...cache.keys()], ["d", "b"])
  })
})

describe("the PostgreSQL vault (on PGlite)", () => {
  const database = Layer.provideMerge(Migrations.layer, PgDatabase.layerPglite())

  it.effect(
    "seals, opens, erases; a new subject's key is stored wrapped, never in plain",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient
        const vault = PgPersonalDataVault.make(master, PgPersonalDataVault.sqlTable(sql))
        const sealed = yield* vault.seal("customer:a", "Grace Hopper")
        assert.notInclude(sealed, "Grace")
        assert.deepStrictEqual(yield* vault.open("customer:a", sealed), Option.some("Grace Hopper"))
        // Another process (no cache) agrees on the key.
        const other = PgPersonalDataVault.make(master, PgPersonalDataVault.sqlTable(sql))
        assert.deepStrictEqual(yield* other.open("customer:a", sealed), Option.some("Grace Hopper"))
        const rows = yield* sql<{ wrapped_key: string; master_key_id: string }>`
        SELECT wrapped_key, master_key_id FROM personal_data_keys WHERE subject = 'customer:a'`
        assert.strictEqual(rows.length, 1)
        assert.strictEqual(rows[0]!.master_key_id, PgPersonalDataVault.masterKeyId(master))
        assert.isTrue(yield* vault.erase("customer:a"))
        assert.deepStrictEqual(yield* vault.open("customer:a", sealed), Option.none())
        // Data sealed again after erasure gets a new key: the old values stay unreadable.
        const fresh = yield* vault.seal("customer:a", "new data")
        assert.deepStrictEqual(yield* vault.open("customer:a", fresh), Option.some("new data"))
        assert.deepStrictEqual(yield* vault.open("customer:a", sealed), Option.none())
      }).pipe(Effect.provide(database)),
    30_000,
  )

  it.effect(
    "lists the subjects with a key by prefix, in order, with the partner each is filed under",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient
        const vault = PgPersonalDataVault.make(master, PgPersonalDataVault.sqlTable(sql))
        for (const subject of ["evidence:2026-01-02:b", "evidence:2026-01-01:a", "customer:a", "partner:p-1"])
          yield* vault.seal(subject, "x")
        assert.deepStrictEqual(yield* vault.subjects("evidence:"), [
          { subject: "evidence:2026-01-01:a", partnerId: "" },
          { subject: "evidence:2026-01-02:b", partnerId: "" },
        ])
        assert.deepStrictEqual(yield* vault.subjects("partner:"), [{ subject: "partner:p-1", partnerId: "p-1" }])
        yield* vault.erase("evidence:2026-01-01:a")
        assert.deepStrictEqual(yield* vault.subjects("evidence:2026-01-01"), [])
        // A partner's request sees its own keys only.
        const scoped = yield* vault.subjects("partner:").pipe(Effect.provideService(Tenancy.CurrentPartner, "p-2"))
        assert.deepStrictEqual(scoped, [])
      }).pipe(Effect.provide(database)),
    30_000,
  )

  it.effect(
    "master key rotation re-wraps every key: the new master opens old data, the old one no longer can",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient
        const before = PgPersonalDataVault.make(master, PgPersonalDataVault.sqlTable(sql))
        const sealedA = yield* before.seal("customer:a", "A's phone")
        const sealedB = yield* before.seal("company-owner:b", "B's birth date")
        const next = PgPersonalDataVault.parseMasterKey(PgPersonalDataVault.newMasterKeyText())
        assert.strictEqual(yield* PgPersonalDataVault.rotateMaster(master, next), 2)
        assert.strictEqual(yield* PgPersonalDataVault.rotateMaster(master, next), 0)
        const after = PgPersonalDataVault.make(next, PgPersonalDataVault.sqlTable(sql))
        assert.deepStrictEqual(yield* after.open("customer:a", sealedA), Option.some("A's phone"))
        assert.deepStrictEqual(yield* after.open("company-owner:b", sealedB), Option.some("B's birth date"))
        const stale = PgPersonalDataVault.make(master, PgPersonalDataVault.sqlTable(sql))
        const exit = yield* Effect.exit(stale.open("customer:a", sealedA))
        assert.isTrue(Exit.hasDies(exit))
      }).pipe(Effect.provide(database)),
    30_000,
  )

  describe("a key made during a unit of work", () => {
    const unitOfWork = PgUnitOfWork.layer.pipe(Layer.provideMerge(database))
    const keyRows = (subject: string) =>
      Effect.flatMap(
        Effect.service(SqlClient),
        (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM personal_data_keys WHERE subject = ${subject}`,
      ).pipe(Effect.map((rows) => rows[0]!.n))

    it.effect(
      "is stored by the unit's commit, not before",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient
          const units = yield* UnitOfWork.UnitOfWork
          const vault = PgPersonalDataVault.make(master, PgPersonalDataVault.sqlTable(sql))
          const sealed = yield* units.transactional(
            Effect.gen(function* () {
              const value = yield* vault.seal("company-owner:new", "Ada", { likelyNew: true })
              assert.strictEqual(yield* keyRows("company-owner:new"), 0)
              // What the unit sealed opens within the unit, before its commit.
              assert.deepStrictEqual(yield* vault.open("company-owner:new", value), Option.some("Ada"))
              return value
            }),
          )
          assert.strictEqual(yield* keyRows("company-owner:new"), 1)
          const other = PgPersonalDataVault.make(master, PgPersonalDataVault.sqlTable(sql))
          assert.deepStrictEqual(yield* other.open("company-owner:new", sealed), Option.some("Ada"))
        }).pipe(Effect.provide(unitOfWork)),
      30_000,
    )

    it.effect(
      "is not stored when the unit fails",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient
          const units = yield* UnitOfWork.UnitOfWork
          const vault = PgPersonalDataVault.make(master, PgPersonalDataVault.sqlTable(sql))
          const exit = yield* Effect.exit(
            units.transactional(
              Effect.andThen(vault.seal("customer:refused", "Grace", { likelyNew: true }), Effect.fail("refused")),
            ),
          )
          assert.isTrue(Exit.isFailure(exit))
          assert.strictEqual(yield* keyRows("customer:refused"), 0)
        }).pipe(Effect.provide(unitOfWork)),
      30_000,
    )

    it.effect(
      "conflicts when the subject got a key meanwhile, and the retry seals with that key",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient
          const units = yield* UnitOfWork.UnitOfWork
          const elsewhere = PgPersonalDataVault.make(master, PgPersonalDataVault.sqlTable(sql))
          const first = yield* elsewhere.seal("customer:raced", "first")
          const vault = PgPersonalDataVault.make(master, PgPersonalDataVault.sqlTable(sql))
          const attempt = units.transactional(vault.seal("customer:raced", "second", { likelyNew: true }))
          const conflict = yield* Effect.flip(attempt)
          assert.strictEqual(conflict._tag, "VersionConflict")
          const second = yield* attempt
          assert.strictEqual(yield* keyRows("customer:raced"), 1)
          assert.deepStrictEqual(yield* elsewhere.open("customer:raced", second), Option.some("second"))
          assert.deepStrictEqual(yield* vault.open("customer:raced", first), Option.some("first"))
        }).pipe(Effect.provide(unitOfWork)),
      30_000,
    )
  })
})
