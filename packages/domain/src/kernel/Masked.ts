/**
 * What the service keeps of a number it must not hold in full: its last four digits (a bank
 * account's mask, a card's `last4`, the tail of an SSN), and a card as it is shown wherever one
 * appears (a saved payment method, a card payment): its brand and those four digits.
 */
import { Schema } from "effect"

/** Exactly four digits: the visible tail of an account, card or SSN number. */
export const lastFourPattern = /^\d{4}$/

export const LastFour = Schema.String.check(Schema.isPattern(lastFourPattern, { message: "must be exactly 4 digits" }))

/** A card as shown: its brand and the last four digits of its number. */
export const CardShown = Schema.Struct({ brand: Schema.String, last4: LastFour })
export type CardShown = typeof CardShown.Type
