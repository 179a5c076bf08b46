/** The business type a company is sent to Dwolla with (`DwollaKyb.businessTypeOf`, issue 35 §3). */
import { assert, describe, it } from "@effect/vitest"
import * as DwollaKyb from "../../src/providers/DwollaKyb.ts"

describe("Dwolla's businessType of a company", () => {
  it("a ForProfit company: the type given at creation, corporation when none", () => {
    assert.strictEqual(DwollaKyb.businessTypeOf("ForProfit", "llc"), "llc")
    assert.strictEqual(DwollaKyb.businessTypeOf("ForProfit", "partnership"), "partnership")
    assert.strictEqual(DwollaKyb.businessTypeOf("ForProfit", "corporation"), "corporation")
    assert.strictEqual(DwollaKyb.businessTypeOf("ForProfit", undefined), "corporation")
  })
  it("a Partnership is a partnership whatever was given", () => {
    assert.strictEqual(DwollaKyb.businessTypeOf("Partnership", "llc"), "partnership")
  })
})
