/**
 * Executable specification of CompanyValidation's rules that the Company
 * decider's specs do not reach: a location body that is not an object is
 * refused naming the body (the add-location endpoint) or the location's path
 * in a registration; and a registration validated once is recognised as such
 * (the use case validates the request, the decider does not check it again);
 * a registration's metadata is kept as sent, none when null, and refused
 * naming `metadata` or the bad key.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Result } from "effect"
import * as CompanyValidation from "../../src/companies/CompanyValidation.ts"
import { Fixtures } from "../../src/testing/index.ts"

const issuesOf = (result: Result.Result<unknown, { readonly issues: ReadonlyArray<unknown> }>) =>
  Result.isFailure(result) ? result.failure.issues : []

describe("a location that is not an object", () => {
  it("sent alone (the add-location body) is refused naming the body", () => {
    assert.deepStrictEqual(issuesOf(CompanyValidation.validateLocation(42)), [
      { field: "body", message: "must be an object" },
    ])
  })
  it("inside a registration is refused naming its path", () => {
    assert.deepStrictEqual(issuesOf(CompanyValidation.validateLocation("Main Street", "locations[2]")), [
      { field: "locations[2]", message: "must be an object" },
    ])
  })
})

describe("a registration validateRegistration accepted at an instant", () => {
  const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
  const accepted = () => {
    const result = CompanyValidation.validateRegistration(Fixtures.companyRegistrationBody(), at)
    if (Result.isFailure(result)) throw new Error(`expected a valid registration, got ${result.failure.message}`)
    return result.success
  }

  it("is already validated at that instant", () => {
    const registration = accepted()
    assert.strictEqual(CompanyValidation.alreadyValidated(registration, at), registration)
  })
  it("is not already validated at another instant", () =>
    assert.isUndefined(CompanyValidation.alreadyValidated(accepted(), DateTime.add(at, { milliseconds: 1 }))))
  it("copied field by field is not already validated (only the accepted value itself is)", () =>
    assert.isUndefined(CompanyValidation.alreadyValidated({ ...accepted() }, at)))
})

describe("a request validateRegistration did not accept", () => {
  const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")

  it("is not already validated, even the body of a registration it accepted", () => {
    const body = Fixtures.companyRegistrationBody()
    CompanyValidation.validateRegistration(body, at)
    assert.isUndefined(CompanyValidation.alreadyValidated(body, at))
  })
  it("refused is not already validated", () => {
    const body = Fixtures.companyRegistrationBody({ name: "" })
    CompanyValidation.validateRegistration(body, at)
    assert.isUndefined(CompanyValidation.alreadyValidated(body, at))
  })
  it("that is not an object (null, a text) is not already validated", () => {
    assert.isUndefined(CompanyValidation.alreadyValidated(null, at))
    assert.isUndefined(CompanyValidation.alreadyValidated("acme-001", at))
  })
})

describe("a registration with metadata", () => {
  const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
  const validated = (metadata: unknown) =>
    CompanyValidation.validateRegistration(Fixtures.companyRegistrationBody({ metadata }), at)

  it("keeps the metadata as sent when it keeps the metadata rules", () => {
    const result = validated({ merchantRef: "M-1", region: "west" })
    assert.deepStrictEqual(Result.isSuccess(result) ? result.success.metadata : undefined, {
      merchantRef: "M-1",
      region: "west",
    })
  })
  it("of null holds no metadata, as one sent without", () => {
    const result = validated(null)
    assert.isTrue(Result.isSuccess(result) && !("metadata" in result.success))
  })
  it("that is not an object is refused naming metadata", () => {
    assert.deepStrictEqual(issuesOf(validated(["M-1"])), [
      { field: "metadata", message: "must be an object of string values" },
    ])
  })
  it("holding a value that is not a string is refused naming its key, once", () => {
    assert.deepStrictEqual(issuesOf(validated({ merchantRef: 7, region: "west" })), [
      { field: "metadata.merchantRef", message: "must be a string" },
    ])
  })
  it("breaking the metadata rules is refused naming the key", () => {
    const key = "k".repeat(41)
    assert.deepStrictEqual(issuesOf(validated({ [key]: "v" })), [
      { field: `metadata.${key}`, message: "must be a key of 1 to 40 characters" },
    ])
  })
})
