/**
 * The authorization evidence as a legal record (`AuthorizationEvidenceRetention`): its address and
 * user agent sealed under a retention key of their own (per payer and day), which a customer's
 * erasure keeps, and which the purge destroys two years after `acceptedAt`, not a moment before.
 * Sealing over the fake vault (`fixtures/SealedMemory.ts`) with the domain's declarations.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Layer } from "effect"
import fc from "fast-check"
import { fields } from "../../src/composition/PersonalDataMap.ts"
import * as PersonalData from "../../src/infrastructure/PersonalData.ts"
import * as AuthorizationEvidenceRetention from "../../src/payments/AuthorizationEvidenceRetention.ts"
import { PropertyParams } from "../../src/testing/index.ts"
import { fakeVault } from "../fixtures/SealedMemory.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(2026112801)

const registrationId = "3b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a64"
const evidence = {
  acceptedAt: "2026-03-01T10:00:00.000Z",
  ipAddress: "203.0.113.77",
  userAgent: "evidence-app/7.7",
  text: "I authorize the company named to debit my linked bank account.",
  textVersion: "debit-authorization/2026-11-28",
}
const debitAuthSet = {
  _tag: "DebitAuthSet",
  debitAuthId: "0b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a60",
  partnerId: "1b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a61",
  companyId: "2b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a62",
  registrationId,
  authorization: evidence,
  limit: { minorUnits: 50_000, currency: "USD" },
  at: evidence.acceptedAt,
}
const subject = `authorization-evidence:2026-03-01:${registrationId}`
const customer = `customer:${registrationId}`

const sealAndOpen = (vault: PersonalData.PersonalDataVault["Service"]) =>
  Effect.gen(function* () {
    const sealed = yield* PersonalData.sealRecord(
      vault,
      fields.events.DebitAuth!.DebitAuthSet,
      debitAuthSet,
      "DebitAuth-0b8c",
    )
    return { sealed, opened: (yield* PersonalData.openRecord(vault, sealed)) as typeof debitAuthSet }
  })

const withVault = (vault: PersonalData.PersonalDataVault["Service"]) =>
  Effect.provide(Layer.succeed(PersonalData.PersonalDataVault, vault))

describe("an evidence recorded with an authorization", () => {
  it.effect("is sealed under the payer's evidence key of the day, the text kept plain", () =>
    Effect.gen(function* () {
      const { sealed, opened } = yield* sealAndOpen(fakeVault())
      const text = JSON.stringify(sealed)
      assert.notInclude(text, evidence.ipAddress)
      assert.notInclude(text, evidence.userAgent)
      assert.include(text, evidence.textVersion)
      assert.deepStrictEqual(PersonalData.subjectsOf(sealed), [subject])
      assert.deepStrictEqual(opened, debitAuthSet)
    }),
  )

  it.effect("stays readable when the customer is erased", () =>
    Effect.gen(function* () {
      const vault = fakeVault()
      const { sealed } = yield* sealAndOpen(vault)
      yield* vault.erase(customer)
      assert.deepStrictEqual(yield* PersonalData.openRecord(vault, sealed), debitAuthSet)
    }),
  )

  it.effect("an event without evidence is stored as it is", () =>
    Effect.gen(function* () {
      const { authorization: _, ...without } = debitAuthSet
      const sealed = yield* PersonalData.sealRecord(fakeVault(), fields.events.DebitAuth!.DebitAuthSet, without, "x")
      assert.deepStrictEqual(sealed, without)
    }),
  )
})

describe("an evidence key two years old", () => {
  it.effect("given an evidence of 2026-03-01, when purged on 2028-03-01, then it is kept", () =>
    Effect.gen(function* () {
      const vault = fakeVault()
      const { sealed } = yield* sealAndOpen(vault)
      const destroyed = yield* Effect.flatMap(AuthorizationEvidenceRetention.keys(), (keys) =>
        AuthorizationEvidenceRetention.purge(keys, DateTime.makeUnsafe("2028-03-01T23:59:59.999Z")),
      ).pipe(withVault(vault))
      assert.deepStrictEqual(destroyed, [])
      assert.deepStrictEqual(yield* PersonalData.openRecord(vault, sealed), debitAuthSet)
    }),
  )

  it.effect("given an evidence of 2026-03-01, when purged on 2028-03-02, then its address and agent read erased", () =>
    Effect.gen(function* () {
      const vault = fakeVault()
      const { sealed } = yield* sealAndOpen(vault)
      const destroyed = yield* Effect.flatMap(AuthorizationEvidenceRetention.keys(), (keys) =>
        AuthorizationEvidenceRetention.purge(keys, DateTime.makeUnsafe("2028-03-02T00:00:00.000Z")),
      ).pipe(withVault(vault))
      assert.deepStrictEqual(destroyed, [subject])
      assert.deepStrictEqual(yield* PersonalData.openRecord(vault, sealed), {
        ...debitAuthSet,
        authorization: { ...evidence, ipAddress: "[erased]", userAgent: "[erased]" },
      })
      // Purging again changes nothing.
      assert.deepStrictEqual(
        yield* Effect.flatMap(AuthorizationEvidenceRetention.keys(), (keys) =>
          AuthorizationEvidenceRetention.purge(keys, DateTime.makeUnsafe("2030-01-01T00:00:00.000Z")),
        ).pipe(withVault(vault)),
        [],
      )
    }),
  )

  it("no evidence key is destroyed before two years after any evidence it sealed", () => {
    const day = fc
      .date({ min: new Date("2020-01-01T00:00:00Z"), max: new Date("2040-12-31T23:59:59Z"), noInvalidDate: true })
      .map((date) => date.toISOString())
    fc.assert(
      fc.property(day, fc.integer({ min: -5, max: 5 * 86_400_000 }), (acceptedAt, afterTwoYears) => {
        const key = { subject: AuthorizationEvidenceRetention.subjectOf(registrationId, acceptedAt), partnerId: "" }
        const twoYears = DateTime.add(DateTime.makeUnsafe(acceptedAt), { years: 2 })
        const now = DateTime.add(twoYears, { milliseconds: afterTwoYears })
        const purged = AuthorizationEvidenceRetention.expired([key], now).length === 1
        if (purged) assert.isTrue(DateTime.isGreaterThanOrEqualTo(now, twoYears))
        // At most one day late.
        if (afterTwoYears >= 86_400_000) assert.isTrue(purged)
      }),
      seeded(),
    )
  })

  it("a subject that is not an evidence key is never purged", () => {
    const now = DateTime.makeUnsafe("2099-01-01T00:00:00.000Z")
    assert.deepStrictEqual(
      AuthorizationEvidenceRetention.expired(
        [customer, "authorization-evidence:garbage", "authorization-evidence:2020-01-01"].map((subject) => ({
          subject,
          partnerId: "",
        })),
        now,
      ),
      [],
    )
  })
})
