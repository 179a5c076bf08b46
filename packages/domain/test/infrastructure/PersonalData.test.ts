/**
 * Sealing and opening records by their personal fields
 * (`PersonalData.sealRecord` / `openRecord`) with the domain's declarations
 * (`PersonalDataMap`), over a fake vault that keeps plaintexts in a map
 * (`fixtures/SealedMemory.ts`; the real AES-256-GCM vault is tested in
 * adapters-pg).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import fc from "fast-check"
import { fields } from "../../src/composition/PersonalDataMap.ts"
import * as PersonalData from "../../src/infrastructure/PersonalData.ts"
import { ReadModelStore } from "../../src/infrastructure/ReadModel.ts"
import { PropertyParams } from "../../src/testing/index.ts"
import { fakeVault } from "../fixtures/SealedMemory.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(20261123)

const registered = (taxIdType: string) => ({
  _tag: "CompanyRegistered",
  companyId: "c-1",
  partnerId: "p-1",
  name: "Acme Coffee",
  taxId: "123456789",
  taxIdType,
  contactNumber: "+14155550199",
  owner: { name: "Ada Lovelace", emailAddress: "ada@example.com", documentType: "Passport", dateOfBirth: "1980-12-10" },
  employees: [
    { name: "Bob", emailAddress: "bob@example.com" },
    { name: "Eve", emailAddress: "eve@example.com" },
  ],
})

const companyFields = fields.events.Company!.CompanyRegistered

describe("a CompanyRegistered event", () => {
  it.effect("keeps business data plain and seals the owner and each employee under their subjects", () =>
    Effect.gen(function* () {
      const vault = fakeVault()
      const sealed = (yield* PersonalData.sealRecord(vault, companyFields, registered("EIN"), "Company-c-1")) as Record<
        string,
        unknown
      >
      const text = JSON.stringify(sealed)
      for (const value of ["Ada", "ada@example.com", "1980-12-10", "Bob", "eve@example.com"]) {
        assert.notInclude(text, value)
      }
      assert.strictEqual(sealed.name, "Acme Coffee")
      assert.strictEqual(sealed.taxId, "123456789")
      assert.strictEqual(sealed.contactNumber, "+14155550199")
      assert.deepStrictEqual((sealed.owner as Record<string, unknown>).documentType, "Passport")
      assert.deepStrictEqual(PersonalData.subjectsOf(sealed), ["company-owner:c-1", "company-employees:c-1"])
      assert.deepStrictEqual(yield* PersonalData.openRecord(vault, sealed), registered("EIN"))
    }),
  )

  it.effect("seals a tax id that is the owner's SSN or ITIN with the owner", () =>
    Effect.gen(function* () {
      for (const type of ["SSN", "ITIN"]) {
        const sealed = yield* PersonalData.sealRecord(fakeVault(), companyFields, registered(type), "Company-c-1")
        assert.notInclude(JSON.stringify(sealed), "123456789")
      }
    }),
  )

  it.effect("reads '[erased]' in exactly the erased subject's fields once it is erased", () =>
    Effect.gen(function* () {
      const vault = fakeVault()
      const sealed = yield* PersonalData.sealRecord(vault, companyFields, registered("SSN"), "Company-c-1")
      yield* vault.erase("company-owner:c-1")
      const opened = (yield* PersonalData.openRecord(vault, sealed)) as ReturnType<typeof registered>
      assert.deepStrictEqual(opened.owner, {
        name: "[erased]",
        emailAddress: "[erased]",
        documentType: "Passport",
        dateOfBirth: "[erased]",
      })
      assert.strictEqual(opened.taxId, "[erased]")
      assert.deepStrictEqual(opened.employees, registered("SSN").employees)
      // Sealing the erased form again seals nothing (no key is made for an erased subject).
      const resealed = yield* PersonalData.sealRecord(vault, companyFields, opened, "Company-c-1")
      assert.deepStrictEqual(PersonalData.subjectsOf(resealed), ["company-employees:c-1"])
    }),
  )
})

describe("a record without personal fields", () => {
  it.effect("is stored and read as it is", () =>
    Effect.gen(function* () {
      const vault = fakeVault()
      const event = { _tag: "CompanyVerified", companyId: "c-1", status: "Verified" }
      assert.strictEqual(yield* PersonalData.sealRecord(vault, undefined, event, "Company-c-1"), event)
      assert.strictEqual(yield* PersonalData.openRecord(vault, event), event)
    }),
  )
})

describe("a login challenge event", () => {
  it.effect("seals the phone number under the challenge's subject", () =>
    Effect.gen(function* () {
      const vault = fakeVault()
      const event = { _tag: "LoginCodeIssued", partnerId: "p-1", phoneNumber: "+14155550123", codeHash: "ab" }
      const sealed = yield* PersonalData.sealRecord(
        vault,
        fields.events.LoginChallenge!.LoginCodeIssued,
        event,
        "LoginChallenge-p-1:hash",
      )
      assert.notInclude(JSON.stringify(sealed), "+14155550123")
      assert.deepStrictEqual(PersonalData.subjectsOf(sealed), ["login:LoginChallenge-p-1:hash"])
    }),
  )
})

describe("a customer's devices and bank accounts", () => {
  const customerFields = fields.events.Customer!
  const state = {
    _tag: "Registered",
    registrationId: "reg-1",
    phoneNumber: "+14155550123",
    bankAccounts: [{ bankAccountId: "b-1", name: "Jane's savings", mask: "6789", linked: true }],
    pushTokens: [{ token: "device-token-1", expireAt: "2026-04-01T00:00:00.000Z" }],
  }

  it.effect("seal push tokens and account names under the customer, in events, snapshot and read model", () =>
    Effect.gen(function* () {
      const vault = fakeVault()
      const records: ReadonlyArray<readonly [PersonalData.FieldsOf | undefined, Record<string, unknown>]> = [
        [
          customerFields.PushTokenRegistered,
          { _tag: "PushTokenRegistered", registrationId: "reg-1", token: "device-token-1" },
        ],
        [
          customerFields.PushTokenRemoved,
          { _tag: "PushTokenRemoved", registrationId: "reg-1", token: "device-token-1" },
        ],
        [
          customerFields.BankAccountsLinked,
          { _tag: "BankAccountsLinked", registrationId: "reg-1", accounts: [{ name: "Jane's savings", mask: "6789" }] },
        ],
        [fields.snapshots.Customer, state],
        [fields.documents.customers, state],
      ]
      for (const [fieldsOf, record] of records) {
        const sealed = yield* PersonalData.sealRecord(vault, fieldsOf, record, "Customer-reg-1")
        const text = JSON.stringify(sealed)
        assert.notInclude(text, "device-token-1")
        assert.notInclude(text, "Jane's savings")
        assert.include(text, "reg-1")
        assert.deepStrictEqual(PersonalData.subjectsOf(sealed), ["customer:reg-1"])
        assert.deepStrictEqual(yield* PersonalData.openRecord(vault, sealed), record)
      }
    }),
  )
})

describe("a transfer", () => {
  const initiated = {
    _tag: "TransferInitiated",
    transferId: "t-1",
    paymentRequestId: "r-1",
    payerRegistrationId: "reg-1",
    senderName: "Grace Hopper",
    recipientName: "Acme Coffee",
    senderAccountMasked: "****6789",
  }

  it.effect("seals the sender's name under its payer's subject, in the event and in the read model", () =>
    Effect.gen(function* () {
      for (const [fieldsOf, record] of [
        [fields.events.Transfer!.TransferInitiated, initiated],
        [fields.documents.transfers, { ...initiated, status: "Settled" }],
      ] as const) {
        const vault = fakeVault()
        const sealed = (yield* PersonalData.sealRecord(vault, fieldsOf, record, "Transfer-t-1")) as Record<
          string,
          unknown
        >
        assert.notInclude(JSON.stringify(sealed), "Grace Hopper")
        assert.strictEqual(sealed.recipientName, "Acme Coffee")
        assert.strictEqual(sealed.senderAccountMasked, "****6789")
        assert.deepStrictEqual(PersonalData.subjectsOf(sealed), ["customer:reg-1"])
        assert.deepStrictEqual(yield* PersonalData.openRecord(vault, sealed), record)
        yield* vault.erase("customer:reg-1")
        assert.strictEqual(
          ((yield* PersonalData.openRecord(vault, sealed)) as Record<string, unknown>).senderName,
          "[erased]",
        )
      }
    }),
  )

  it.effect("read again from a store that keeps it opens to the same record, until its payer is erased", () =>
    Effect.gen(function* () {
      const vault = fakeVault()
      const document = { ...initiated, status: "Settled" }
      const sealed = Object.freeze(
        yield* PersonalData.sealRecord(vault, fields.documents.transfers, document, "Transfer-t-1"),
      )
      // A store that keeps the document between reads answers the same frozen data (PgReadModelStore).
      const keeping: ReadModelStore["Service"] = {
        ...(yield* ReadModelStore),
        get: (collection, id) =>
          Effect.succeed(
            Option.some({ collection, id, data: sealed, index: { partnerId: "p-1", keys: {}, sortKey: "a" } }),
          ),
      }
      const store = PersonalData.protectReadModels(keeping, vault, fields)
      const read = Effect.map(store.get("transfers", "t-1"), (found) => Option.getOrThrow(found).data)
      const first = yield* read
      assert.deepStrictEqual(first, document)
      assert.strictEqual(yield* read, first)
      assert.isTrue(Object.isFrozen(first))
      yield* vault.erase("customer:reg-1")
      assert.deepStrictEqual(yield* read, { ...document, senderName: "[erased]" })
    }).pipe(Effect.provide(ReadModelStore.layerMemory)),
  )

  it.effect("is sealed without the new-subject hint: its payer is not new with the transfer's stream", () =>
    Effect.gen(function* () {
      const hints: Array<readonly [string, boolean]> = []
      const inner = fakeVault()
      const vault: PersonalData.PersonalDataVault["Service"] = {
        ...inner,
        seal: (subject, plaintext, options) => {
          hints.push([subject, options?.likelyNew === true])
          return inner.seal(subject, plaintext, options)
        },
      }
      const likelyNew = { likelyNew: true }
      yield* PersonalData.sealRecord(
        vault,
        fields.events.Transfer!.TransferInitiated,
        initiated,
        "Transfer-t-1",
        likelyNew,
      )
      yield* PersonalData.sealRecord(
        vault,
        fields.events.Customer!.CustomerRegistered,
        { _tag: "CustomerRegistered", registrationId: "reg-1", phoneNumber: "+14155550123" },
        "Customer-reg-1",
        likelyNew,
      )
      yield* PersonalData.sealRecord(vault, companyFields, registered("EIN"), "Company-c-1", likelyNew)
      yield* PersonalData.sealRecord(
        vault,
        fields.events.LoginChallenge!.LoginCodeIssued,
        { _tag: "LoginCodeIssued", phoneNumber: "+14155550123" },
        "LoginChallenge-p-1:hash",
        likelyNew,
      )
      assert.deepStrictEqual(hints, [
        ["customer:reg-1", false],
        ["customer:reg-1", true],
        ["company-owner:c-1", true],
        ["company-employees:c-1", true],
        ["login:LoginChallenge-p-1:hash", true],
      ])
    }),
  )

  it.effect("initiated before payers were named keeps its sender's name as written", () =>
    Effect.gen(function* () {
      const { payerRegistrationId: _payer, ...older } = initiated
      const sealed = yield* PersonalData.sealRecord(
        fakeVault(),
        fields.events.Transfer!.TransferInitiated,
        older,
        "Transfer-t-1",
      )
      assert.strictEqual(sealed, older)
    }),
  )
})

describe("any record with personal fields", () => {
  // Nested objects and arrays of text, with fields named as the patterns below name them.
  const text = fc.string({ maxLength: 6 })
  const person = fc.record(
    { name: text, emailAddress: text, title: fc.oneof(text, fc.integer()) },
    { requiredKeys: ["name"] },
  )
  const record = fc.record(
    {
      id: text,
      owner: fc.oneof(person, fc.constant(null), text),
      employees: fc.oneof(fc.array(fc.oneof(person, text, fc.constant(null)), { maxLength: 4 }), person),
      notes: fc.array(text, { maxLength: 3 }),
    },
    { requiredKeys: ["id"] },
  )
  const fieldsOf: PersonalData.FieldsOf = () => [
    { subject: "owner", paths: ["owner.name", "owner.emailAddress", "owner.title"] },
    { subject: "staff", paths: ["employees.*.name", "employees.*.emailAddress"] },
  ]

  it.effect("opens to exactly the record that was sealed, and sealing leaves its input as it was", () =>
    Effect.sync(() =>
      fc.assert(
        fc.property(record, (input) => {
          const before = JSON.parse(JSON.stringify(input)) as unknown
          const vault = fakeVault()
          const sealed = Effect.runSync(PersonalData.sealRecord(vault, fieldsOf, input, "Stream-1"))
          assert.deepStrictEqual(input, before)
          assert.deepStrictEqual(Effect.runSync(PersonalData.openRecord(vault, sealed)), input)
        }),
        seeded({ numRuns: 300 }),
      ),
    ),
  )

  it.effect("keeps no personal text outside its sealed part", () =>
    Effect.sync(() =>
      fc.assert(
        fc.property(record, (input) => {
          const sealed = Effect.runSync(PersonalData.sealRecord(fakeVault(), fieldsOf, input, "Stream-1")) as Record<
            string,
            unknown
          >
          const { [PersonalData.sealedKey]: _groups, ...plain } = sealed
          const people = [plain.owner, ...(Array.isArray(plain.employees) ? plain.employees : [])]
          for (const person of people) {
            if (typeof person !== "object" || person === null) continue
            const fields = person as Record<string, unknown>
            assert.isFalse(typeof fields.name === "string" || typeof fields.emailAddress === "string")
          }
          const owner = plain.owner as Record<string, unknown> | null | undefined
          if (typeof owner === "object" && owner !== null) assert.notStrictEqual(typeof owner.title, "string")
        }),
        seeded({ numRuns: 300 }),
      ),
    ),
  )
})
