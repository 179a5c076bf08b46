/**
 * Executable specification of CompanyValidation's rules that the Company
 * decider's specs do not reach: a location body that is not an object is
 * refused naming the body (the add-location endpoint) or the location's path
 * in a registration.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as CompanyValidation from "../../src/companies/CompanyValidation.ts"

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
