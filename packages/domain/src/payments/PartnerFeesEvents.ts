/** The events of PartnerFees: the fee terms an operator set for one partner, per rail. */
import { unionOf } from "../kernel/EventSchema.ts"
import { PartnerId } from "../kernel/Ids.ts"
import { FeeTerms, Rail } from "./FeeSchedule.ts"

/** Every event of a partner's fees, by its tag (the codec of its stream): each names the partner, and the instant `at`. */
export const PartnerFeesEvent = unionOf(
  { partnerId: PartnerId },
  {
    /** The operator set the partner's terms for one rail; collections initiated from `at` on record them. */
    FeeScheduleSet: { rail: Rail, terms: FeeTerms },
  },
)
export type PartnerFeesEvent = typeof PartnerFeesEvent.Type

export const { FeeScheduleSet } = PartnerFeesEvent.cases
