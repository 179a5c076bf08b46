/**
 * Executable specification of the ledger's read functions that no policy
 * spec reaches: the currencies a company's entries are in (each once,
 * sorted), pending money counted per currency, and no entry for a transfer
 * never initiated.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import type { TransferId } from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as Transfer from "../../src/payments/Transfer.ts"
import { TransferSettled } from "../../src/payments/TransferEvents.ts"
import * as Ledger from "../../src/payouts/Ledger.ts"

const transferId = "9d1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e50" as TransferId
const entry = (n: number, currency: Money.CurrencyCode): Ledger.LedgerEntry => ({
  entryId: `${transferId}:${n}`,
  type: "payment",
  transferId,
  amount: { minorUnits: 1_000, currency },
})

describe("a company's entries", () => {
  it("are in the currencies they name, each once, sorted", () => {
    assert.deepStrictEqual(Ledger.currenciesOf([entry(1, "USD"), entry(2, "EUR"), entry(3, "USD"), entry(4, "CAD")]), [
      "CAD",
      "EUR",
      "USD",
    ])
  })
})

describe("a company's pending transfers", () => {
  it("count in their own currency only", () => {
    const transfers = [
      { status: "Pending", amount: Money.make(1_000, "USD") },
      { status: "Pending", amount: Money.make(700, "EUR") },
      { status: "Settled", amount: Money.make(5_000, "USD") },
    ]
    assert.strictEqual(Ledger.pendingOf(transfers, "USD"), 1_000)
    assert.strictEqual(Ledger.pendingOf(transfers, "EUR"), 700)
  })
})

describe("a transfer never initiated", () => {
  it("adds no entry to any ledger", () => {
    const settled = TransferSettled.make({
      transferId,
      at: DateTime.makeUnsafe("2026-03-01T10:00:00Z"),
    })
    assert.isUndefined(Ledger.entryOfTransferEvent(settled, Transfer.initialState))
  })
})
