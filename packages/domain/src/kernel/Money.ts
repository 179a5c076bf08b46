/**
 * Money: an integer number of minor units (cents, pence, yen) and an ISO 4217
 * currency. No float ever holds an amount; the decimal numbers of the wire are
 * converted exactly, digit by digit, and refused when they do not fit.
 */
import { Effect, Result, Schema, SchemaIssue, SchemaTransformation } from "effect"

/** The currencies partnerpay settles, with their ISO 4217 minor-unit exponent and display data. */
export const currencies = {
  USD: { exponent: 2, displayName: "US Dollar", cultureName: "en-US" },
  EUR: { exponent: 2, displayName: "Euro", cultureName: "de-DE" },
  GBP: { exponent: 2, displayName: "British Pound", cultureName: "en-GB" },
  CAD: { exponent: 2, displayName: "Canadian Dollar", cultureName: "en-CA" },
  JPY: { exponent: 0, displayName: "Japanese Yen", cultureName: "ja-JP" },
} as const

export type CurrencyCode = keyof typeof currencies
export const CurrencyCode = Schema.Literals(Object.keys(currencies) as Array<CurrencyCode>).annotate({
  description: "An ISO 4217 currency code that partnerpay settles",
})

/**
 * The largest amount accepted, in minor units: 10^13 (100 billion USD). Far
 * beyond any single payment, and far below 2^53, so sums of many amounts stay
 * exact integers.
 */
export const maxMinorUnits = 10_000_000_000_000

/** A non-negative whole number of minor units, at most `maxMinorUnits`. */
export const MinorUnits = Schema.Finite.check(
  Schema.isInt({ message: "must be a whole number of minor units" }),
  Schema.isBetween({ minimum: 0, maximum: maxMinorUnits }, { message: `must be between 0 and ${maxMinorUnits}` }),
)

/** An amount of money: integer minor units of one currency. */
export const Money = Schema.Struct({
  minorUnits: MinorUnits,
  currency: CurrencyCode,
})
export type Money = typeof Money.Type

export const make = (minorUnits: number, currency: CurrencyCode): Money => ({ minorUnits, currency })
export const zero = (currency: CurrencyCode): Money => ({ minorUnits: 0, currency })

/** Why an amount was refused. */
export type MoneyProblem =
  | { readonly _tag: "NotFinite" }
  | { readonly _tag: "Negative" }
  | { readonly _tag: "TooPrecise"; readonly currency: CurrencyCode; readonly exponent: number }
  | { readonly _tag: "TooLarge" }

export const describeProblem = (problem: MoneyProblem): string => {
  switch (problem._tag) {
    case "NotFinite":
      return "must be a finite number"
    case "Negative":
      return "must not be negative"
    case "TooPrecise":
      return problem.exponent === 0
        ? `${problem.currency} has no minor unit: use a whole number`
        : `${problem.currency} allows at most ${problem.exponent} decimal places`
    case "TooLarge":
      return `must be at most ${toDecimalString({ minorUnits: maxMinorUnits, currency: "USD" })}`
  }
}

/**
 * Converts a decimal number as written on the wire (12.34) to exact minor units.
 *
 * The number's shortest round-trip decimal representation (what `String(n)`
 * prints, which is the literal the client wrote whenever it had at most 15
 * significant digits) is split into digits; no multiplication by 100 happens
 * in floating point, so 0.1 + 0.2 style errors cannot occur. Past the sign and
 * size guards, `String(n)` writes exponent notation only for numbers below
 * 1e-6, finer than any currency's minor unit: those are too precise.
 */
export const fromDecimal = (value: number, currency: CurrencyCode): Result.Result<Money, MoneyProblem> => {
  if (!Number.isFinite(value)) return Result.fail({ _tag: "NotFinite" })
  if (value < 0) return Result.fail({ _tag: "Negative" })
  // Beyond the bound in major units is beyond it in minor units; it also keeps String(value) out of exponent
  // notation for large numbers (1e21 and above).
  if (value > maxMinorUnits) return Result.fail({ _tag: "TooLarge" })
  const exponent = currencies[currency].exponent
  const shortest = String(value)
  if (shortest.includes("e")) return Result.fail({ _tag: "TooPrecise", currency, exponent })
  // The shortest form never ends in a zero decimal: its decimals are the amount's own.
  const point = shortest.indexOf(".")
  const decimals = point === -1 ? 0 : shortest.length - point - 1
  if (decimals > exponent) return Result.fail({ _tag: "TooPrecise", currency, exponent })
  const minorUnits = Number(shortest.replace(".", "") + "0".repeat(exponent - decimals))
  if (minorUnits > maxMinorUnits) return Result.fail({ _tag: "TooLarge" })
  return Result.succeed({ minorUnits, currency })
}

/** The decimal number a client reads (12.34), for responses. Exact: the result's shortest form is the amount. */
export const toDecimal = (money: Money): number => Number(toDecimalString(money))

/** The amount as a decimal string with exactly the currency's number of decimals ("12.30"). */
export const toDecimalString = (money: Money): string => {
  const exponent = currencies[money.currency].exponent
  const digits = String(money.minorUnits).padStart(exponent + 1, "0")
  return exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`
}

/** True when `amount` is of the same currency as `limit` and does not exceed it. */
export const isWithin = (amount: Money, limit: Money): boolean =>
  amount.currency === limit.currency && amount.minorUnits <= limit.minorUnits

export const equals = (left: Money, right: Money): boolean =>
  left.currency === right.currency && left.minorUnits === right.minorUnits

/**
 * The currency as responses show it: `{ "value": "USD", "displayName": "US Dollar",
 * "cultureName": "en-US" }`. A request may send it back as it was read: the names are
 * optional, and when present they must be the currency's own.
 */
const CurrencyObject = Schema.Struct({
  value: CurrencyCode,
  displayName: Schema.optionalKey(Schema.String),
  cultureName: Schema.optionalKey(Schema.String),
}).check(
  Schema.makeFilter((currency) =>
    (currency.displayName === undefined || currency.displayName === currencies[currency.value].displayName) &&
    (currency.cultureName === undefined || currency.cultureName === currencies[currency.value].cultureName)
      ? undefined
      : `must name ${currency.value} as responses do: displayName "${currencies[currency.value].displayName}", cultureName "${currencies[currency.value].cultureName}"`,
  ),
)

/** A currency in a request: its code (`"USD"`), or the object responses show (`{ "value": "USD", ... }`). */
export const WireCurrencyCode = Schema.Union([
  CurrencyCode,
  CurrencyObject.pipe(
    Schema.decodeTo(
      CurrencyCode,
      SchemaTransformation.transform({
        decode: (currency) => currency.value,
        // Stryker disable next-line ObjectLiteral: equivalent, never called: a code is encoded by the union's first member, the code itself
        encode: (code) => ({ value: code }),
      }),
    ),
  ),
]).annotate({ description: "ISO 4217 currency: the code, or the object responses show" })

/**
 * The wire shape of an amount in requests: `{ "value": 12.34, "currencyCode": "USD" }`
 * (or `currencyCode` as responses show it, `{ "value": "USD", ... }`).
 * Decoding converts it exactly to `Money`; a refused amount fails with a message
 * on the `value` field ("USD allows at most 2 decimal places").
 */
export const WireAmount = Schema.Struct({
  value: Schema.Finite.annotate({ description: "Decimal amount in major units, e.g. 12.34" }),
  currencyCode: WireCurrencyCode,
})
export type WireAmount = typeof WireAmount.Type

export const MoneyFromWire = WireAmount.pipe(
  Schema.decodeTo(
    Money,
    SchemaTransformation.transformEffect({
      decode: (wire: WireAmount) =>
        Result.match(fromDecimal(wire.value, wire.currencyCode), {
          onSuccess: Effect.succeed,
          onFailure: (problem) =>
            Effect.fail(
              new SchemaIssue.Pointer(
                ["value"],
                new SchemaIssue.InvalidValue({ message: describeProblem(problem) }, wire.value),
              ),
            ),
        }),
      encode: (money: Money) => Effect.succeed({ value: toDecimal(money), currencyCode: money.currency }),
    }),
  ),
)
