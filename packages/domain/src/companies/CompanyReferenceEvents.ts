/** The events of CompanyReference: a partner's claim on one company reference id. */
import { Schema } from "effect"
import { eventsOf } from "../kernel/EventSchema.ts"
import { CompanyId, CompanyReferenceId, PartnerId } from "../kernel/Ids.ts"

/** Every event of a company reference names the partner and the reference id, and the instant `at`. */
const referenceEvent = eventsOf({ partnerId: PartnerId, companyReferenceId: CompanyReferenceId })

/** A partner's reference id now names one company. */
export const CompanyReferenceReserved = referenceEvent("CompanyReferenceReserved", { companyId: CompanyId })
export type CompanyReferenceReserved = typeof CompanyReferenceReserved.Type

export const CompanyReferenceEvent = Schema.Union([CompanyReferenceReserved])
export type CompanyReferenceEvent = typeof CompanyReferenceEvent.Type
