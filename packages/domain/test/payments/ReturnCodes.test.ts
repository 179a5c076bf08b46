/** The ACH return codes: one table, each code with its description, and which ones a payer may claim late. */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import * as ReturnCodes from "../../src/payments/ReturnCodes.ts"

describe("the return code table", () => {
  it("names each code R plus two digits, once, with a description", () => {
    for (const code of ReturnCodes.codes) {
      assert.match(code, /^R\d{2}$/)
      assert.isAbove(ReturnCodes.describe(code).length, 5)
    }
    assert.strictEqual(new Set(ReturnCodes.codes).size, ReturnCodes.codes.length)
  })

  it("describes the codes partners meet most in their bank's words", () => {
    assert.strictEqual(ReturnCodes.describe("R01"), "Insufficient funds")
    assert.strictEqual(ReturnCodes.describe("R03"), "No account / unable to locate account")
    assert.include(ReturnCodes.describe("R10"), "not authorized")
  })

  it("marks as unauthorized exactly the returns a payer may claim up to 60 days after settlement", () => {
    const late = ReturnCodes.codes.filter((code) => ReturnCodes.table[code].unauthorized)
    assert.deepStrictEqual(late, ["R05", "R07", "R10", "R11", "R29", "R51"])
  })

  it("decodes a code of the table and refuses any other", () => {
    const decode = Schema.decodeUnknownSync(ReturnCodes.ReturnCode)
    assert.strictEqual(decode("R16"), "R16")
    assert.throws(() => decode("R99"))
    assert.throws(() => decode("r01"))
    assert.isTrue(ReturnCodes.isReturnCode("R29"))
    assert.isFalse(ReturnCodes.isReturnCode("toString"))
  })
})
