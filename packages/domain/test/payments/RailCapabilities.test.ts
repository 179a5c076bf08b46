/**
 * Specification of the rail's capabilities (`RailCapabilities.ts`): the
 * currencies a rail moves, and the payer limit over a rolling window (what it
 * counts, when it refuses), as examples and as properties in domain words.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import fc from "fast-check"
import * as Money from "../../src/kernel/Money.ts"
import * as RailCapabilities from "../../src/payments/RailCapabilities.ts"
import { PropertyParams } from "../../src/testing/index.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(2026_11_28_36)

const now = DateTime.makeUnsafe("2026-03-10T12:00:00.000Z")
const limit = RailCapabilities.dwollaUnverifiedPayerLimit
const daysAgo = (days: number) =>
  DateTime.formatIso(DateTime.makeUnsafe(DateTime.toEpochMillis(now) - days * 86_400_000))
const usd = (minorUnits: number) => Money.make(minorUnits, "USD")
const debit = (minorUnits: number, status = "Pending", createdAt = daysAgo(1)): RailCapabilities.CountedDebit => ({
  amount: usd(minorUnits),
  status,
  createdAt,
})

describe("a rail that moves USD (Dwolla)", () => {
  it("a USD amount is moved", () => {
    assert.isUndefined(RailCapabilities.currencyRefusal(RailCapabilities.dwolla, "USD"))
  })
  it("a EUR amount is refused with CURRENCY_NOT_SUPPORTED naming amount.currencyCode", () => {
    const refusal = RailCapabilities.currencyRefusal(RailCapabilities.dwolla, "EUR")
    assert.strictEqual(refusal?.code, "CURRENCY_NOT_SUPPORTED")
    assert.strictEqual(refusal?.field, "amount.currencyCode")
  })
  it("a debit authorization's limit is named by its own field", () => {
    assert.strictEqual(
      RailCapabilities.currencyRefusal(RailCapabilities.dwolla, "GBP", "limit.currencyCode")?.field,
      "limit.currencyCode",
    )
  })
})

describe("a rail that declares nothing (a test's fake)", () => {
  it("moves any currency", () => {
    assert.isUndefined(RailCapabilities.currencyRefusal(undefined, "JPY"))
  })
})

describe("a fresh payer under the 5,000.00 USD weekly limit", () => {
  it("5,000.01 is refused with PAYER_LIMIT_EXCEEDED", () => {
    assert.strictEqual(RailCapabilities.payerLimitRefusal(limit, usd(500_001), [], now)?.code, "PAYER_LIMIT_EXCEEDED")
  })
  it("5,000.00 exactly is accepted", () => {
    assert.isUndefined(RailCapabilities.payerLimitRefusal(limit, usd(500_000), [], now))
  })
})

describe("a payer with 4,000.00 Pending this week", () => {
  const debits = [debit(400_000)]
  it("1,000.01 more is refused", () => {
    assert.strictEqual(
      RailCapabilities.payerLimitRefusal(limit, usd(100_001), debits, now)?.code,
      "PAYER_LIMIT_EXCEEDED",
    )
  })
  it("1,000.00 more is accepted", () => {
    assert.isUndefined(RailCapabilities.payerLimitRefusal(limit, usd(100_000), debits, now))
  })
})

describe("what the limit counts", () => {
  it("Pending and Settled debits within the window; not Failed or Returned ones, nor older ones, nor another currency", () => {
    const counted = RailCapabilities.countedMinorUnits(
      limit,
      [
        debit(100, "Pending"),
        debit(200, "Settled"),
        debit(400, "Failed"),
        debit(800, "Returned"),
        debit(1_600, "Settled", daysAgo(8)),
        { amount: Money.make(3_200, "EUR"), status: "Pending", createdAt: daysAgo(1) },
      ],
      now,
    )
    assert.strictEqual(counted, 300)
  })

  it("refuses exactly when what it counts plus the amount passes the limit (property)", () => {
    const debits = fc.array(
      fc.record({
        minorUnits: fc.integer({ min: 1, max: 300_000 }),
        status: fc.constantFrom("Pending", "Settled", "Failed", "Returned"),
        days: fc.double({ min: 0, max: 14, noNaN: true }),
      }),
      { maxLength: 8 },
    )
    fc.assert(
      fc.property(debits, fc.integer({ min: 1, max: 600_000 }), (drawn, amount) => {
        const history = drawn.map((d) => debit(d.minorUnits, d.status, daysAgo(d.days)))
        const inWindow = drawn
          .filter((d) => (d.status === "Pending" || d.status === "Settled") && d.days < 7)
          .reduce((sum, d) => sum + d.minorUnits, 0)
        const refusal = RailCapabilities.payerLimitRefusal(limit, usd(amount), history, now)
        assert.strictEqual(refusal !== undefined, inWindow + amount > limit.amount.minorUnits)
      }),
      seeded({ numRuns: 200 }),
    )
  })

  it("a debit leaves the window once it is older than 7 days (rolling, property)", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 30, noNaN: true }), (days) => {
        const counted = RailCapabilities.countedMinorUnits(limit, [debit(1_000, "Settled", daysAgo(days))], now)
        assert.strictEqual(counted, days < 7 ? 1_000 : 0)
      }),
      seeded({ numRuns: 200 }),
    )
  })
})
