/**
 * Amounts in responses, as every client of the interface reads them:
 * `{ "value": 12.34, "currencyCode": { "value": "USD", "displayName": "US Dollar", "cultureName": "en-US" } }`.
 */
import { Money } from "@partnerpay/domain"
import { Schema } from "effect"

export const CurrencyResponse = Schema.Struct({
  value: Money.CurrencyCode,
  displayName: Schema.String,
  cultureName: Schema.String,
}).annotate({ identifier: "Currency" })

export const AmountResponse = Schema.Struct({
  value: Schema.Finite.annotate({ description: "Decimal amount in major units, e.g. 12.34" }),
  currencyCode: CurrencyResponse,
})
export type AmountResponse = typeof AmountResponse.Type

export const toResponse = (money: Money.Money): AmountResponse => ({
  value: Money.toDecimal(money),
  currencyCode: {
    value: money.currency,
    displayName: Money.currencies[money.currency].displayName,
    cultureName: Money.currencies[money.currency].cultureName,
  },
})

/** A signed amount (a balance, a payout item: refunds and returns are negative) in the same wire form. */
export const toSignedResponse = (amount: { readonly minorUnits: number; readonly currency: Money.CurrencyCode }) => {
  const magnitude = toResponse({ minorUnits: Math.abs(amount.minorUnits), currency: amount.currency })
  return amount.minorUnits < 0 ? { ...magnitude, value: -magnitude.value } : magnitude
}
