/**
 * Use cases of the fee terms (`PartnerFees.ts`), for the operator (admin API,
 * `partnerpay fees set|show`) and for the use cases that initiate a
 * collection:
 *
 * - `set`: the operator sets one partner's terms for one rail (bad terms:
 *   ValidationFailed naming each field, nothing changed).
 * - `show`: a partner's terms for every rail (`FeeSchedule.none` where unset).
 * - `appliedFor`: what a collection of an amount on a rail records now
 *   (`FeeSchedule.appliedFeesOf` of the terms in force), read inside the
 *   collection's unit of work.
 */
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import type { PartnerId } from "../kernel/Ids.ts"
import type * as Money from "../kernel/Money.ts"
import * as Traced from "../kernel/Traced.ts"
import * as FeeSchedule from "./FeeSchedule.ts"
import * as PartnerFees from "./PartnerFees.ts"

/** A partner's terms for one rail, as the operator reads them. */
export interface RailTerms {
  readonly rail: FeeSchedule.Rail
  readonly terms: FeeSchedule.FeeTerms
}

/** Sets the partner's terms for `rail`; answers the partner's terms for every rail. */
export const set = UseCase.fn("PlatformFees.set")(function* (
  partnerId: PartnerId,
  rail: FeeSchedule.Rail,
  terms: FeeSchedule.FeeTerms,
) {
  const handled = yield* CommandHandler.handleNow(PartnerFees.aggregate, partnerId, {
    _tag: "SetFeeSchedule",
    partnerId,
    rail,
    terms,
  })
  return FeeSchedule.rails.map((each): RailTerms => ({ rail: each, terms: PartnerFees.termsOf(handled.state, each) }))
})

/** The partner's terms for every rail. */
export const show = Traced.fn("PlatformFees.show")(function* (partnerId: PartnerId) {
  const loaded = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(PartnerFees.aggregate, partnerId))
  return FeeSchedule.rails.map((rail): RailTerms => ({ rail, terms: PartnerFees.termsOf(loaded.state, rail) }))
})

/** What a collection of `amount` on `rail` for the partner records under the terms in force now. */
export const appliedFor = Traced.fn("PlatformFees.appliedFor")(function* (
  partnerId: PartnerId,
  rail: FeeSchedule.Rail,
  amount: Money.Money,
) {
  const loaded = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(PartnerFees.aggregate, partnerId))
  return FeeSchedule.appliedFeesOf(rail, PartnerFees.termsOf(loaded.state, rail), amount)
})
