/** Problem helpers: field paths as clients see them. */
import { assert, describe, it } from "@effect/vitest"
import * as Problem from "../src/cross-cutting/Problem.ts"

describe("Problem.formatPath", () => {
  it("joins keys with dots and indexes with brackets", () => {
    assert.strictEqual(Problem.formatPath(["owner", "emailAddress"]), "owner.emailAddress")
    assert.strictEqual(Problem.formatPath(["employees", 1, "emailAddress"]), "employees[1].emailAddress")
    assert.strictEqual(Problem.formatPath(["page"], "query"), "query.page")
  })

  it("names the whole body when the path is empty", () => {
    assert.strictEqual(Problem.formatPath([]), "body")
  })
})
