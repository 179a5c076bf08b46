/** The workers' advisory locks: one namespace per worker, so no worker skips another's item. */
import { assert, describe, it } from "@effect/vitest"
import * as AdvisoryLocks from "../src/workers/AdvisoryLocks.ts"

describe("the workers' advisory locks", () => {
  it("give every worker its own namespace", () => {
    const values = Object.values(AdvisoryLocks.namespaces)
    assert.strictEqual(new Set(values).size, values.length)
  })

  it("derive an item's key from its id alone (the same id, the same lock on every instance)", () => {
    const id = "5b0c3a52-3f0e-4f5e-9d3e-1a2b3c4d5e6f"
    assert.strictEqual(AdvisoryLocks.keyOf(id), AdvisoryLocks.keyOf(id))
    assert.notStrictEqual(AdvisoryLocks.keyOf(id), AdvisoryLocks.keyOf("6b0c3a52-3f0e-4f5e-9d3e-1a2b3c4d5e6f"))
  })
})
