/**
 * Executable specification of the trial balance and the operator's check
 * (`TrialBalance.ts`): a company's payable in debit shows as its receivable;
 * the check names a currency whose debits and credits differ and a company
 * whose payable is not its balance figure.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Postings from "../../src/payouts/Postings.ts"
import * as TrialBalance from "../../src/payouts/TrialBalance.ts"

const payable = Postings.Account.payable("c1")
const ach = Postings.Account.cash("ach")
const total = (account: string, debits: number, credits: number): TrialBalance.AccountTotal => ({
  account,
  currency: "USD",
  debits,
  credits,
})

describe("a company in deficit", () => {
  it("shows its payable in debit as its receivable", () => {
    const trial = TrialBalance.of([total(payable, 5_000, 3_000), total(ach, 3_000, 5_000)])
    assert.deepStrictEqual(trial.lines, [
      { account: ach, currency: "USD", debit: 0, credit: 2_000 },
      { account: Postings.Account.receivable("c1"), currency: "USD", debit: 2_000, credit: 0 },
    ])
    assert.isTrue(trial.balanced)
    assert.deepStrictEqual(
      TrialBalance.check(
        [total(payable, 5_000, 3_000), total(ach, 3_000, 5_000)],
        [{ companyId: "c1", available: [{ minorUnits: -2_000, currency: "USD" }] }],
      ),
      [],
    )
  })
})

describe("books that do not balance", () => {
  it("fail the check naming the currency", () => {
    const totals = [total(payable, 0, 1_000), total(ach, 900, 0)]
    assert.isFalse(TrialBalance.of(totals).balanced)
    assert.deepStrictEqual(TrialBalance.check(totals, undefined), [
      { _tag: "Unbalanced", currency: "USD", debits: 900, credits: 1_000 },
    ])
  })
})

describe("a company whose payable is not its balance", () => {
  it("fails the check naming the company, both figures and the currency", () => {
    const totals = [total(payable, 0, 1_000), total(ach, 1_000, 0)]
    const found = TrialBalance.check(totals, [
      { companyId: "c1", available: [{ minorUnits: 800, currency: "USD" }] },
      { companyId: "c2", available: [{ minorUnits: 5, currency: "USD" }] },
    ])
    assert.deepStrictEqual(found, [
      { _tag: "PayableDisagrees", companyId: "c1", currency: "USD", payable: 1_000, balance: 800 },
      { _tag: "PayableDisagrees", companyId: "c2", currency: "USD", payable: 0, balance: 5 },
    ])
    assert.strictEqual(TrialBalance.describe(found[0]!), "company c1: payable 1000 USD minor units but balance 800")
  })
})
