/**
 * The optional business type of a company at creation (issue 35 §3): one of
 * llc, corporation, soleProprietorship, partnership, recorded with the
 * company; absent (or null) stays absent (the KYB provider is told corporation); any
 * other value is refused naming `businessType`.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import * as Company from "../../src/companies/Company.ts"
import { Fixtures } from "../../src/testing/index.ts"

const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
const body = (overrides: Record<string, unknown>) =>
  Fixtures.companyRegistrationBody({ locations: [], ...overrides }) as unknown as Company.RegistrationInput

describe("a company's business type at creation", () => {
  it("llc is recorded with the company", () => {
    const validated = Company.validateRegistration(body({ businessType: "llc" }), at)
    assert.strictEqual(validated._tag === "Success" ? validated.success.businessType : undefined, "llc")
  })
  it("absent stays absent", () => {
    const validated = Company.validateRegistration(body({}), at)
    assert.isTrue(validated._tag === "Success" && !("businessType" in validated.success))
  })
  it("null stays absent, as one not sent", () => {
    const validated = Company.validateRegistration(body({ businessType: null }), at)
    assert.isTrue(validated._tag === "Success" && !("businessType" in validated.success))
  })
  it("another value is refused, naming businessType", () => {
    const validated = Company.validateRegistration(body({ businessType: "cooperative" }), at)
    assert.deepStrictEqual(validated._tag === "Failure" ? validated.failure.issues.map((issue) => issue.field) : [], [
      "businessType",
    ])
  })
})
