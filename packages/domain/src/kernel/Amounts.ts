/**
 * Amounts as clients write them (`{ value: 12.34, currencyCode: "USD" }`),
 * converted exactly to `Money` by the use cases. A refused amount is a
 * `ValidationFailed` naming the field (`limit.value`, `amount.value`), so the
 * client gets a 422 that says which amount is wrong and why.
 */
import { Effect, Result } from "effect"
import { ValidationFailed } from "./DomainError.ts"
import * as Money from "./Money.ts"

/** An amount as received: a decimal in major units and a supported currency code. */
export interface WireAmount {
  readonly value: number
  readonly currencyCode: Money.CurrencyCode
}

/** The exact `Money` of a wire amount; refused when negative, not finite, too precise or too large. */
export const fromWire = (field: string, wire: WireAmount): Effect.Effect<Money.Money, ValidationFailed> =>
  Result.match(Money.fromDecimal(wire.value, wire.currencyCode), {
    onSuccess: (money) => Effect.succeed(money),
    onFailure: (problem) => Effect.fail(ValidationFailed.of(`${field}.value`, Money.describeProblem(problem))),
  })
