/**
 * Platform fees, provider costs and return fees: the terms an operator sets
 * per partner and per rail (`PartnerFees.ts`), and the pure rules that turn
 * them into the facts each collection records (decision table:
 * packages/domain/docs/Fees.md).
 *
 * - A **rail** is how the money is collected: `AchDebit` (a payment request's
 *   ACH payment, an instalment, an autopay or debit-authorization collection)
 *   or `Card` (a payment request paid by card).
 * - The **platform fee** of a collection is `percentageBasisPoints` of its
 *   amount, rounded half up to a whole minor unit, plus `fixed` when `fixed`
 *   is in the collection's currency; never negative, never more than the
 *   amount (`platformFeeOf`). The company's balance nets it (a "fee" entry).
 * - The **provider cost** (e.g. Dwolla's per-transfer cost) is the platform's
 *   expense of a collection: recorded on it, never charged to the company.
 * - The **return fee** (what the provider charges when a debit comes back,
 *   before or after settlement, with an ACH return code) is the platform's
 *   expense, recorded on the failure or return; passed on to the company when
 *   `returnFeePassedOn` (a "returnFee" entry of its balance).
 *
 * Each collection records the terms in force when it was initiated
 * (`AppliedFees`): changing a schedule later changes no recorded fee.
 */
import { Schema } from "effect"
import type * as FieldChecks from "../kernel/FieldChecks.ts"
import * as Money from "../kernel/Money.ts"

/** The rails a fee schedule is set for. */
export const rails = ["AchDebit", "Card"] as const
export const Rail = Schema.Literals(rails)
export type Rail = typeof Rail.Type

/** The most a percentage may be: 100% (10 000 basis points). */
export const maxBasisPoints = 10_000

/** What an operator sets for one partner and one rail (default: none of it). */
export const FeeTerms = Schema.Struct({
  /** The platform fee's percentage of each collection, in basis points (150 = 1.50%). */
  percentageBasisPoints: Schema.Int,
  /** The platform fee's fixed part of each collection in this currency. */
  fixed: Schema.optionalKey(Money.Money),
  /** The provider's cost of each collection on this rail (the platform's expense). */
  providerCost: Schema.optionalKey(Money.Money),
  /** The provider's fee when a debit on this rail comes back with a return code (the platform's expense). */
  returnFee: Schema.optionalKey(Money.Money),
  /** Whether the return fee is passed on to the company (taken from its balance). */
  returnFeePassedOn: Schema.Boolean,
})
export type FeeTerms = typeof FeeTerms.Type

/** No fee, no cost: the terms of a partner and rail nobody set. */
export const none: FeeTerms = { percentageBasisPoints: 0, returnFeePassedOn: false }

/** Field issues of terms (names relative to `prefix`): percentage 0..10000, amounts >= 0 in whole minor units. */
export const issuesOf = (terms: FeeTerms, prefix = ""): FieldChecks.Issues => {
  const issues: FieldChecks.Issues = []
  if (
    !Number.isInteger(terms.percentageBasisPoints) ||
    terms.percentageBasisPoints < 0 ||
    terms.percentageBasisPoints > maxBasisPoints
  )
    issues.push({
      field: `${prefix}percentageBasisPoints`,
      message: `must be a whole number of basis points from 0 to ${maxBasisPoints}`,
    })
  for (const field of ["fixed", "providerCost", "returnFee"] as const) {
    const money = terms[field]
    if (money !== undefined && (!Number.isInteger(money.minorUnits) || money.minorUnits < 0))
      issues.push({ field: `${prefix}${field}`, message: "must be zero or more whole minor units" })
  }
  return issues
}

/**
 * The platform fee of a collection of `amount` under `terms`: the percentage part rounded half up
 * (integer arithmetic, exact for every amount), plus the fixed part when in the amount's currency,
 * capped at the amount. Zero without terms.
 */
export const platformFeeOf = (terms: FeeTerms, amount: Money.Money): Money.Money => {
  const scaled = BigInt(amount.minorUnits) * BigInt(terms.percentageBasisPoints)
  const percentage = Number((scaled + BigInt(maxBasisPoints / 2)) / BigInt(maxBasisPoints))
  const fixed = terms.fixed !== undefined && terms.fixed.currency === amount.currency ? terms.fixed.minorUnits : 0
  return Money.make(Math.max(0, Math.min(amount.minorUnits, percentage + fixed)), amount.currency)
}

/** The schedule that produced a collection's platform fee, recorded beside it. */
export const AppliedSchedule = Schema.Struct({
  rail: Rail,
  percentageBasisPoints: Schema.Int,
  fixed: Schema.optionalKey(Money.Money),
})
export type AppliedSchedule = typeof AppliedSchedule.Type

/** A return fee recorded on a failed or returned debit: its amount and whether the company bears it. */
export const ReturnFee = Schema.Struct({ amount: Money.Money, passedOn: Schema.Boolean })
export type ReturnFee = typeof ReturnFee.Type

/**
 * What a collection records of its cost: the platform's fee kept from the amount, the schedule that
 * produced it, and the provider's cost, the platform's expense (each absent when none). Declared once
 * for a transfer's initiation, a card payment and the card payment awaiting its authentication.
 */
export const CollectionFees = Schema.Struct({
  platformFee: Schema.optionalKey(Money.Money),
  feeSchedule: Schema.optionalKey(AppliedSchedule),
  providerCost: Schema.optionalKey(Money.Money),
})
export type CollectionFees = typeof CollectionFees.Type

/** The facts a collection records from the terms in force at its initiation (each only when not zero). */
export const AppliedFees = Schema.Struct({
  ...CollectionFees.fields,
  /** The return fee in force: recorded as `returnFee` on the debit's failure or return, if it comes back. */
  returnFeeTerms: Schema.optionalKey(ReturnFee),
})
export type AppliedFees = typeof AppliedFees.Type

const positive = (money: Money.Money | undefined): money is Money.Money => money !== undefined && money.minorUnits > 0

/** What a collection of `amount` on `rail` records under `terms` (nothing for no terms). */
export const appliedFeesOf = (rail: Rail, terms: FeeTerms, amount: Money.Money): AppliedFees => {
  const fee = platformFeeOf(terms, amount)
  return {
    ...(fee.minorUnits === 0
      ? {}
      : {
          platformFee: fee,
          feeSchedule: {
            rail,
            percentageBasisPoints: terms.percentageBasisPoints,
            ...(terms.fixed === undefined ? {} : { fixed: terms.fixed }),
          },
        }),
    ...(positive(terms.providerCost) ? { providerCost: terms.providerCost } : {}),
    ...(positive(terms.returnFee)
      ? { returnFeeTerms: { amount: terms.returnFee, passedOn: terms.returnFeePassedOn } }
      : {}),
  }
}
