/**
 * The Customer's card payment methods, as the card processor saved them
 * (last 4 digits, brand, expiry; never a full card number).
 */
import type { DateTime } from "effect"
import * as CalendarDate from "../kernel/CalendarDate.ts"
import { accept, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import { failIfAny, type Issues, identityOf, lastFourMessage, millis, pattern, text } from "./CustomerChecks.ts"
import {
  type CardPaymentMethod,
  CardPaymentMethodSaved,
  type CustomerEvent,
  lastFourPattern,
} from "./CustomerEvents.ts"
import type { RegisteredCustomer } from "./CustomerState.ts"

/** A card saved with the card processor, as it lists it (`id` is the processor's id). */
export interface SaveCardPaymentMethod {
  readonly _tag: "SaveCardPaymentMethod"
  readonly method: CardPaymentMethod
  readonly at: DateTime.Utc
}

/** The same details for a card already found by its id. */
const sameDetails = (a: CardPaymentMethod, b: CardPaymentMethod): boolean =>
  a.type === b.type &&
  a.brand === b.brand &&
  a.last4 === b.last4 &&
  a.expMonth === b.expMonth &&
  a.expYear === b.expYear

const cardOnly = (card: CardPaymentMethod): CardPaymentMethod => ({
  id: card.id,
  type: card.type,
  brand: card.brand,
  last4: card.last4,
  expMonth: card.expMonth,
  expYear: card.expYear,
})

export const saveCardPaymentMethod = (
  command: SaveCardPaymentMethod,
  state: RegisteredCustomer,
): Decision<CustomerEvent> => {
  const customer = identityOf(state)
  const issues: Issues = []
  const card = command.method
  text(issues, "method.id", card.id)
  text(issues, "method.type", card.type)
  text(issues, "method.brand", card.brand)
  pattern(issues, "method.last4", card.last4, lastFourPattern, lastFourMessage)
  const today = CalendarDate.fromEpochMillis(millis(command.at))
  const [year, month] = today.split("-").map(Number) as [number, number]
  const monthOk = Number.isInteger(card.expMonth) && card.expMonth >= 1 && card.expMonth <= 12
  const yearOk = Number.isInteger(card.expYear) && card.expYear <= 9999
  if (!monthOk) issues.push({ field: "method.expMonth", message: "must be a month number from 1 to 12" })
  if (!yearOk) issues.push({ field: "method.expYear", message: "must be a four-digit year" })
  else if (card.expYear < year) issues.push({ field: "method.expYear", message: "the card has expired" })
  else if (monthOk && card.expYear === year && card.expMonth < month) {
    issues.push({ field: "method.expMonth", message: "the card has expired" })
  }
  const invalid = failIfAny(issues)
  if (invalid) return refuse(invalid)
  const known = state.cardPaymentMethods.find((m) => m.id === card.id)
  if (known !== undefined && sameDetails(known, card)) return nothing
  return accept<CustomerEvent>(CardPaymentMethodSaved.make({ ...customer, method: cardOnly(card), at: command.at }))
}
