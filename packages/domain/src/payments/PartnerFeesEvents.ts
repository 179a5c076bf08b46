/** The events of PartnerFees: the fee terms an operator set for one partner, per rail. */
import { Schema } from "effect"
import { eventsOf } from "../kernel/EventSchema.ts"
import { PartnerId } from "../kernel/Ids.ts"
import { FeeTerms, Rail } from "./FeeSchedule.ts"

/** Every event of a partner's fees names the partner, and the instant `at`. */
const partnerFeesEvent = eventsOf({ partnerId: PartnerId })

/** The operator set the partner's terms for one rail; collections initiated from `at` on record them. */
export const FeeScheduleSet = partnerFeesEvent("FeeScheduleSet", {
  rail: Rail,
  terms: FeeTerms,
})
export type FeeScheduleSet = typeof FeeScheduleSet.Type

export const PartnerFeesEvent = Schema.Union([FeeScheduleSet])
export type PartnerFeesEvent = typeof PartnerFeesEvent.Type
