/**
 * The operator's view of the books (LedgerCheck.ts): an instant is an ISO 8601 date-time with an
 * offset; the text is one line per account with decimal amounts, the totals per currency and the
 * verdict, naming each problem when the books are wrong.
 */
import { assert, describe, it } from "@effect/vitest"
import { TrialBalance } from "@partnerpay/domain"
import { DateTime } from "effect"
import * as LedgerCheck from "../src/operator/LedgerCheck.ts"

const totals: ReadonlyArray<TrialBalance.AccountTotal> = [
  { account: "cash:ach", currency: "USD", debits: 12_345, credits: 0 },
  { account: "payable:company:c1", currency: "USD", debits: 0, credits: 12_345 },
]

describe("an asOf instant", () => {
  it("is an ISO 8601 date-time with an offset", () => {
    assert.strictEqual(
      DateTime.formatIso(LedgerCheck.parseAsOf("2026-03-31T23:59:59+02:00")!),
      "2026-03-31T21:59:59.000Z",
    )
    assert.isDefined(LedgerCheck.parseAsOf("2026-03-31T23:59:59.123Z"))
    for (const bad of ["2026-03-31", "yesterday", "2026-03-31T23:59:59", "2026-13-45T99:00:00Z"])
      assert.isUndefined(LedgerCheck.parseAsOf(bad), bad)
  })
})

describe("books that balance", () => {
  it("print one line per account, the totals and the verdict", () => {
    const check = { asOf: undefined, trialBalance: TrialBalance.of(totals), discrepancies: [] }
    assert.isTrue(LedgerCheck.isRight(check))
    assert.strictEqual(
      LedgerCheck.text(check),
      [
        "account             currency   debit  credit",
        "cash:ach            USD       123.45",
        "payable:company:c1  USD               123.45",
        "total               USD       123.45  123.45",
        "The books balance (now) and every company's payable equals its balance.",
      ].join("\n"),
    )
  })
})

describe("books that are wrong", () => {
  it("print each problem, and the JSON says balanced false", () => {
    const discrepancies = TrialBalance.check(totals, [
      { companyId: "c1", available: [{ minorUnits: 100, currency: "USD" }] },
    ])
    const check = { asOf: undefined, trialBalance: TrialBalance.of(totals), discrepancies }
    assert.isFalse(LedgerCheck.isRight(check))
    assert.include(
      LedgerCheck.text(check),
      "The books are wrong (now):\n  company c1: payable 12345 USD minor units but balance 100",
    )
    assert.deepInclude(LedgerCheck.encode(check), { asOf: null, balanced: false })
  })
})
