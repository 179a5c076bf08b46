/** The events of PartnerFees: the fee terms an operator set for one partner, per rail. */
import { Schema } from "effect"
import { PartnerId } from "../kernel/Ids.ts"
import { FeeTerms, Rail } from "./FeeSchedule.ts"

/** The operator set the partner's terms for one rail; collections initiated from `at` on record them. */
export const FeeScheduleSet = Schema.TaggedStruct("FeeScheduleSet", {
  partnerId: PartnerId,
  rail: Rail,
  terms: FeeTerms,
  at: Schema.DateTimeUtcFromString,
})
export type FeeScheduleSet = typeof FeeScheduleSet.Type

export const PartnerFeesEvent = Schema.Union([FeeScheduleSet])
export type PartnerFeesEvent = typeof PartnerFeesEvent.Type
