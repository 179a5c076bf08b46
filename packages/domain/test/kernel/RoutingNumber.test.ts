/** Routing numbers: nine digits, a Federal Reserve prefix, and the ABA check digit. */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import * as RoutingNumber from "../../src/kernel/RoutingNumber.ts"
import { PropertyParams } from "../../src/testing/index.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(20261125)

/** The check digit that completes eight digits. */
const complete = (eight: string): string => {
  const d = [...eight].map(Number)
  const partial = 3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]!)
  return `${eight}${(10 - (partial % 10)) % 10}`
}

describe("a routing number", () => {
  it("is valid when its check digit matches (real banks' numbers)", () => {
    for (const number of ["011000015", "021000021", "121000358", "026009593", "322271627"])
      assert.isTrue(RoutingNumber.isValid(number), number)
  })

  it("is refused when it is not nine digits", () => {
    for (const number of ["", "12345678", "0210000210", "02100002a", " 21000021"])
      assert.strictEqual(RoutingNumber.problemOf(number), "must be nine digits")
  })

  it("is refused when its prefix is no Federal Reserve routing symbol", () => {
    assert.include(String(RoutingNumber.problemOf(complete("13000000"))), "Federal Reserve routing symbol")
    assert.include(String(RoutingNumber.problemOf(complete("99000000"))), "Federal Reserve routing symbol")
    assert.isTrue(RoutingNumber.isValid(complete("80000000")))
  })

  it("is refused when one digit is mistyped (property: every single-digit change breaks the check)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 12 }),
        fc.stringMatching(/^\d{6}$/),
        fc.integer({ min: 2, max: 8 }),
        fc.integer({ min: 1, max: 9 }),
        (prefix, middle, position, shift) => {
          const valid = complete(`${String(prefix).padStart(2, "0")}${middle}`)
          const digits = [...valid]
          digits[position] = String((Number(digits[position]) + shift) % 10)
          return RoutingNumber.isValid(valid) && !RoutingNumber.isValid(digits.join(""))
        },
      ),
      seeded({ numRuns: 500 }),
    )
  })
})
