/** The events of CompanyReference: a partner's claim on one company reference id. */
import { Schema } from "effect"
import { CompanyId, CompanyReferenceId, PartnerId } from "../kernel/Ids.ts"

/** A partner's reference id now names one company. */
export const CompanyReferenceReserved = Schema.TaggedStruct("CompanyReferenceReserved", {
  partnerId: PartnerId,
  companyReferenceId: CompanyReferenceId,
  companyId: CompanyId,
  at: Schema.DateTimeUtcFromString,
})
export type CompanyReferenceReserved = typeof CompanyReferenceReserved.Type

export const CompanyReferenceEvent = Schema.Union([CompanyReferenceReserved])
export type CompanyReferenceEvent = typeof CompanyReferenceEvent.Type
