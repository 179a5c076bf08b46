/**
 * The report's totals of ledger lines: card disputes are their own total
 * (taken back, less those won), and net subtracts them; a card line carries
 * its availability date.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import type { CardPaymentId } from "../../src/kernel/Ids.ts"
import type * as LedgerEntriesProjection from "../../src/payouts/LedgerEntriesProjection.ts"
import * as TransactionReport from "../../src/payouts/TransactionReport.ts"

const cardPaymentId = "9e2e3f40-5b6c-4d7e-8f90-000000000001" as CardPaymentId
const line = (
  entryId: string,
  type: LedgerEntriesProjection.LedgerEntryDocument["type"],
  minorUnits: number,
  extra: Partial<LedgerEntriesProjection.LedgerEntryDocument> = {},
): LedgerEntriesProjection.LedgerEntryDocument => ({
  entryId,
  type,
  cardPaymentId,
  amount: { minorUnits, currency: "USD" },
  companyId: "c",
  partnerId: "p",
  recordedAt: "2026-03-02T10:00:00.000Z",
  ...extra,
})

describe("the report's totals of a card payment disputed", () => {
  const card = line("cp:card", "card", 5_000)
  const disputed = line("dp:dispute", "dispute", -5_000)
  const fee = line("dp:dispute:fee", "fee", -1_500)

  it("a dispute open or lost is disputed, its fee a fee, and net subtracts both", () => {
    const [total] = TransactionReport.totalsOf([card, disputed, fee])
    assert.deepStrictEqual(
      [total?.collected.minorUnits, total?.disputed.minorUnits, total?.fees.minorUnits, total?.net.minorUnits],
      [5_000, 5_000, 1_500, -1_500],
    )
  })

  it("a dispute won gives the amount and the fee back: nothing disputed, net the payment", () => {
    const [total] = TransactionReport.totalsOf([
      card,
      disputed,
      fee,
      line("dp:dispute:won", "dispute", 5_000),
      line("dp:dispute:fee:won", "fee", 1_500),
    ])
    assert.deepStrictEqual([total?.disputed.minorUnits, total?.fees.minorUnits, total?.net.minorUnits], [0, 0, 5_000])
  })
})

describe("a card line of the report", () => {
  it("carries the processor's availability date", () => {
    const availableAt = DateTime.makeUnsafe("2026-03-04T00:00:00.000Z")
    assert.strictEqual(
      TransactionReport.lineOf(line("cp:card", "card", 5_000, { availableAt })).availableAt,
      "2026-03-04T00:00:00.000Z",
    )
  })
})

describe("the report's totals of a collection with fees, returned with a return fee passed on", () => {
  it("the platform fee and the return fee are fees, each its own line; net subtracts them", () => {
    const [total] = TransactionReport.totalsOf([
      line("t:settled", "payment", 10_000),
      line("t:fee", "fee", -320),
      line("t:return", "return", -10_000),
      line("t:fee:returned", "fee", 320),
      line("t:returnFee", "returnFee", -500),
    ])
    assert.deepStrictEqual(
      [total?.collected.minorUnits, total?.returned.minorUnits, total?.fees.minorUnits, total?.net.minorUnits],
      [10_000, 10_000, 500, -500],
    )
  })
})
