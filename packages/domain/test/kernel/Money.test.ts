/** Money: exact amounts in minor units, read from and written to the decimal numbers of the wire. */
import { assert, describe, it } from "@effect/vitest"
import { Result, Schema, SchemaIssue } from "effect"
import fc from "fast-check"
import * as Money from "../../src/kernel/Money.ts"
import { PropertyParams } from "../../src/testing/index.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(2026112618)

const currencyCodes = Object.keys(Money.currencies) as Array<Money.CurrencyCode>

const decoded = (value: number, currency: Money.CurrencyCode): number => {
  const result = Money.fromDecimal(value, currency)
  if (Result.isFailure(result))
    assert.fail(`${value} ${currency} was refused: ${Money.describeProblem(result.failure)}`)
  return result.success.minorUnits
}

const refusal = (value: number, currency: Money.CurrencyCode): string => {
  const result = Money.fromDecimal(value, currency)
  if (Result.isSuccess(result)) assert.fail(`${value} ${currency} was accepted as ${result.success.minorUnits}`)
  return Money.describeProblem(result.failure)
}

const usd = (minorUnits: number): Money.Money => Money.make(minorUnits, "USD")
const eur = (minorUnits: number): Money.Money => Money.make(minorUnits, "EUR")

const arbitraryCurrency = fc.constantFrom(...currencyCodes)
const arbitraryMoney = fc.record({
  minorUnits: fc.integer({ min: 0, max: Money.maxMinorUnits }),
  currency: arbitraryCurrency,
})

describe("an amount written as a decimal on the wire", () => {
  it("12.34 USD is 1234 cents", () => {
    assert.strictEqual(decoded(12.34, "USD"), 1234)
  })

  it("whole and one-decimal amounts are padded to the currency's minor unit", () => {
    assert.strictEqual(decoded(12, "USD"), 1200)
    assert.strictEqual(decoded(12.3, "EUR"), 1230)
    assert.strictEqual(decoded(0, "GBP"), 0)
    assert.strictEqual(decoded(0.01, "CAD"), 1)
  })

  it("amounts that floating point multiplies badly are still exact (1.005, 4.35, 0.3)", () => {
    // 4.35 * 100 === 434.99999999999994 and 1.005 * 100 === 100.49999999999999 in floating point
    assert.strictEqual(decoded(4.35, "USD"), 435)
    assert.strictEqual(decoded(0.3, "USD"), 30)
    assert.strictEqual(decoded(1.1, "USD"), 110)
  })

  it("0.1 + 0.2 is refused in USD: it is 0.30000000000000004, more than 2 decimals", () => {
    assert.strictEqual(refusal(0.1 + 0.2, "USD"), "USD allows at most 2 decimal places")
  })

  it("12.345 USD is refused with 'USD allows at most 2 decimal places'", () => {
    assert.strictEqual(refusal(12.345, "USD"), "USD allows at most 2 decimal places")
  })

  it("JPY has no minor unit: 12 is 12 yen, 12.5 is refused", () => {
    assert.strictEqual(decoded(12, "JPY"), 12)
    assert.strictEqual(refusal(12.5, "JPY"), "JPY has no minor unit: use a whole number")
  })

  it("negative amounts are refused", () => {
    assert.strictEqual(refusal(-1, "USD"), "must not be negative")
    assert.strictEqual(refusal(-0.01, "EUR"), "must not be negative")
  })

  it("NaN and infinities are refused", () => {
    assert.strictEqual(refusal(Number.NaN, "USD"), "must be a finite number")
    assert.strictEqual(refusal(Number.POSITIVE_INFINITY, "USD"), "must be a finite number")
    assert.strictEqual(refusal(Number.NEGATIVE_INFINITY, "JPY"), "must be a finite number")
  })

  it("1e-7 (printed in exponent notation) is refused as too precise, never rounded to zero", () => {
    assert.strictEqual(refusal(1e-7, "USD"), "USD allows at most 2 decimal places")
    assert.strictEqual(refusal(1e-7, "JPY"), "JPY has no minor unit: use a whole number")
  })

  it("100000000000 USD (10^13 cents) is accepted: it is exactly the bound", () => {
    assert.strictEqual(decoded(100_000_000_000, "USD"), Money.maxMinorUnits)
    assert.strictEqual(decoded(100_000_000_000.0, "EUR"), Money.maxMinorUnits)
  })

  it("amounts above the bound are refused", () => {
    assert.strictEqual(refusal(100_000_000_000.01, "USD"), "must be at most 100000000000.00")
    assert.strictEqual(refusal(100_000_000_001, "USD"), "must be at most 100000000000.00")
    assert.strictEqual(refusal(1e21, "USD"), "must be at most 100000000000.00")
    assert.strictEqual(decoded(Money.maxMinorUnits, "JPY"), Money.maxMinorUnits)
    assert.strictEqual(refusal(Money.maxMinorUnits + 1, "JPY"), "must be at most 100000000000.00")
  })
})

describe("MoneyFromWire, the request schema of an amount", () => {
  const decode = Schema.decodeUnknownResult(Money.MoneyFromWire)
  const issues = (input: unknown) => {
    const result = decode(input)
    if (Result.isSuccess(result)) return assert.fail(`accepted ${JSON.stringify(input)}`)
    return SchemaIssue.makeFormatterStandardSchemaV1()(result.failure.issue).issues.map((issue) => ({
      path: issue.path?.map((segment) => (typeof segment === "object" ? segment.key : segment)),
      message: issue.message,
    }))
  }

  it("decodes { value: 12.34, currencyCode: 'USD' } to 1234 cents", () => {
    const result = decode({ value: 12.34, currencyCode: "USD" })
    assert.deepStrictEqual(Result.getOrThrow(result), { minorUnits: 1234, currency: "USD" })
  })

  it("reports a too precise value on the 'value' field with the currency's rule", () => {
    assert.deepStrictEqual(issues({ value: 12.345, currencyCode: "USD" }), [
      { path: ["value"], message: "USD allows at most 2 decimal places" },
    ])
  })

  it("reports a negative value on the 'value' field", () => {
    assert.deepStrictEqual(issues({ value: -5, currencyCode: "EUR" }), [
      { path: ["value"], message: "must not be negative" },
    ])
  })

  it("refuses an unknown currency on the 'currencyCode' field", () => {
    const found = issues({ value: 1, currencyCode: "XXX" })
    assert.deepStrictEqual(
      found.map((issue) => issue.path),
      [["currencyCode"]],
    )
  })

  it("accepts the currency as responses show it, { value: 'USD', displayName, cultureName }", () => {
    const result = decode({
      value: 12.34,
      currencyCode: { value: "USD", displayName: "US Dollar", cultureName: "en-US" },
    })
    assert.deepStrictEqual(Result.getOrThrow(result), { minorUnits: 1234, currency: "USD" })
    assert.deepStrictEqual(Result.getOrThrow(decode({ value: 5, currencyCode: { value: "EUR" } })), {
      minorUnits: 500,
      currency: "EUR",
    })
  })

  it("refuses a currency object whose names are another currency's, on the 'currencyCode' field", () => {
    const found = issues({ value: 1, currencyCode: { value: "USD", displayName: "Euro" } })
    assert.isTrue(found.length > 0)
    assert.isTrue(found.every((issue) => issue.path?.[0] === "currencyCode"))
  })

  it("refuses a currency object whose culture is another currency's, saying the names responses show", () => {
    const found = issues({ value: 1, currencyCode: { value: "USD", displayName: "US Dollar", cultureName: "de-DE" } })
    assert.deepInclude(found, {
      path: ["currencyCode"],
      message: 'must name USD as responses do: displayName "US Dollar", cultureName "en-US"',
    })
  })

  it("accepts a currency object with only its culture, when it is the currency's own", () => {
    assert.deepStrictEqual(
      Result.getOrThrow(decode({ value: 1, currencyCode: { value: "GBP", cultureName: "en-GB" } })),
      {
        minorUnits: 100,
        currency: "GBP",
      },
    )
  })

  it("encodes 1230 cents back to { value: 12.3, currencyCode: 'USD' }", () => {
    assert.deepStrictEqual(Schema.encodeSync(Money.MoneyFromWire)(usd(1230)), { value: 12.3, currencyCode: "USD" })
  })
})

describe("no money", () => {
  it("is zero minor units of the currency", () => {
    assert.deepStrictEqual(Money.zero("EUR"), { minorUnits: 0, currency: "EUR" })
  })
})

describe("comparing amounts", () => {
  it("equal amounts are the same number of minor units in the same currency: 100 USD is not 100 EUR", () => {
    assert.isTrue(Money.equals(usd(10000), usd(10000)))
    assert.isFalse(Money.equals(usd(10000), eur(10000)))
    assert.isFalse(Money.equals(usd(10000), usd(10001)))
  })

  it("an amount is within a limit of the same currency only", () => {
    assert.isTrue(Money.isWithin(usd(100), usd(100)))
    assert.isFalse(Money.isWithin(usd(101), usd(100)))
    assert.isFalse(Money.isWithin(eur(1), usd(100)))
  })
})

describe("properties of amounts", () => {
  it("an amount written as a decimal reads back as the same minor units, in every currency", () => {
    fc.assert(
      fc.property(arbitraryMoney, (money) => {
        assert.deepStrictEqual(Money.fromDecimal(Money.toDecimal(money), money.currency), Result.succeed(money))
        assert.deepStrictEqual(
          Schema.decodeUnknownSync(Money.MoneyFromWire)(Schema.encodeSync(Money.MoneyFromWire)(money)),
          money,
        )
      }),
      seeded({ numRuns: 1000 }),
    )
  })

  it("the decimal string of an amount has exactly the currency's number of decimals and reads back", () => {
    fc.assert(
      fc.property(arbitraryMoney, (money) => {
        const text = Money.toDecimalString(money)
        const exponent = Money.currencies[money.currency].exponent
        const [whole = "", fraction] = text.split(".")
        assert.match(whole, /^(0|[1-9]\d*)$/)
        assert.strictEqual(fraction?.length ?? 0, exponent)
        assert.strictEqual(Number(text.replace(".", "")), money.minorUnits)
      }),
      seeded({ numRuns: 500 }),
    )
  })

  it("no finite decimal with more decimals than the currency allows is ever accepted", () => {
    fc.assert(
      fc.property(arbitraryCurrency, fc.integer({ min: 0, max: 1_000_000_000 }), (currency, units) => {
        // units / 10^(exponent+1) with a last digit that is not zero has one decimal too many
        const exponent = Money.currencies[currency].exponent
        const tenths = units * 10 + 1 + (units % 9)
        const value = Number(
          `${Math.floor(tenths / 10 ** (exponent + 1))}.${String(tenths % 10 ** (exponent + 1)).padStart(exponent + 1, "0")}`,
        )
        assert.isTrue(Result.isFailure(Money.fromDecimal(value, currency)))
      }),
      seeded({ numRuns: 500 }),
    )
  })
})
