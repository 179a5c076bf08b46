/**
 * Sealing and opening records by their personal fields
 * (`PersonalData.sealRecord` / `openRecord`) with the domain's declarations
 * (`PersonalDataMap`), over a fake vault that keeps plaintexts in a map (the
 * real AES-256-GCM vault is tested in adapters-pg).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as PersonalData from "../../src/infrastructure/PersonalData.ts"
import { fields } from "../../src/PersonalDataMap.ts"

/** A vault whose sealed values are opaque tokens; erasing a subject forgets its values. */
const fakeVault = () => {
  const values = new Map<string, { subject: string; plaintext: string }>()
  const erased = new Set<string>()
  let next = 0
  const vault: PersonalData.PersonalDataVault["Service"] = {
    seal: (subject, plaintext) =>
      Effect.sync(() => {
        const token = `sealed-${next++}`
        values.set(token, { subject, plaintext })
        return token
      }),
    open: (subject, sealed) =>
      Effect.sync(() => {
        const found = values.get(sealed)
        return found === undefined || found.subject !== subject || erased.has(subject)
          ? Option.none()
          : Option.some(found.plaintext)
      }),
    erase: (subject) => Effect.sync(() => !erased.has(subject) && erased.add(subject) !== undefined),
  }
  return vault
}

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
