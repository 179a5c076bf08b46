/** Problem helpers: field paths as clients see them. */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
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

describe("Problem.partnerMessage (no default library wording reaches a partner)", () => {
  it("says what a value must be instead of Schema's 'Expected ...'", () => {
    assert.strictEqual(Problem.partnerMessage("Expected string"), "must be a string")
    assert.strictEqual(Problem.partnerMessage("Expected object"), "must be an object")
    assert.strictEqual(Problem.partnerMessage('Expected number, got "x"'), "must be a number")
    assert.strictEqual(Problem.partnerMessage('Expected "Weekly" | "Monthly"'), 'must be one of "Weekly", "Monthly"')
  })

  it("says a missing field is required and an unknown one is not a field", () => {
    assert.strictEqual(Problem.partnerMessage("Missing key"), Problem.requiredField)
    assert.strictEqual(Problem.partnerMessage("Expected no excess property"), Problem.unknownField)
  })

  it("keeps the hand-written messages", () => {
    assert.strictEqual(Problem.partnerMessage("must be a whole number"), "must be a whole number")
  })
})

describe("a 503 answer (the database timed out or is unreachable)", () => {
  it.effect("tells the client to retry in a second (Retry-After: 1), as a 429 tells its own delay", () =>
    Effect.gen(function* () {
      const unavailable = yield* Problem.toResponse(
        new Problem.ServiceUnavailable({ detail: "retry later", code: "SERVICE_UNAVAILABLE" }),
        "corr-1",
      )
      assert.strictEqual(unavailable.status, 503)
      assert.strictEqual(unavailable.headers["retry-after"], "1")
      const limited = yield* Problem.toResponse(
        new Problem.TooManyRequests({ detail: "slow down", code: "RATE_LIMITED", retryAfterSeconds: 7 }),
        "corr-2",
      )
      assert.strictEqual(limited.headers["retry-after"], "7")
    }),
  )
})
