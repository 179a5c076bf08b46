/**
 * The `companies` read model: one document per registered company, holding
 * what its partner may read back (name, status, contact and address fields,
 * locations, registration and verification instants).
 *
 * It never holds the owner, the employees or the tax id: the status and
 * lookup queries do not need them. It holds the company's payout account as
 * GET /Company/{companyId}/PayoutAccount shows it: the account number masked
 * only, and the holder's name sealed at rest (personal data,
 * `CompanyPersonalData.ts`). Indexed by partner, by `companyReferenceId` (the partner's own key,
 * unique per partner) and sorted by registration instant.
 */
import { DateTime, Schema, Struct } from "effect"
import type * as Envelope from "../infrastructure/Envelope.ts"
import { type Projection, perAggregate } from "../infrastructure/ReadModel.ts"
import {
  type CompanyEvent,
  CompanyRegistered,
  CompanyStatus,
  erroredAccount,
  KybRequirement,
  PayoutAccount,
  statusOf,
} from "./CompanyEvents.ts"

/** The events this read model reads. */
export type CompanyEnvelope = Envelope.Of<"Company", CompanyEvent>

export const collection = "companies"

/** The payout account as its partner reads it (GET /Company/{companyId}/PayoutAccount): masked only. */
export const PayoutAccountView = PayoutAccount.mapFields(({ accountNumber: _accountNumber, ...fields }) => fields)
export type PayoutAccountView = typeof PayoutAccountView.Type

/**
 * What the document does not keep of the registration (`CompanyRegistered`): the owner, the employees
 * and the tax id. It keeps the rest: the company's names, contact, address, locations and metadata.
 */
const notKept = ["_tag", "owner", "employees", "taxId", "taxIdType", "businessType"] as const

/** A company as its partner may read it. */
export const CompanyDocument = Schema.Struct({
  ...Struct.omit(CompanyRegistered.fields, notKept),
  status: CompanyStatus,
  verifiedAt: Schema.optionalKey(Schema.DateTimeUtcFromString),
  rejectedAt: Schema.optionalKey(Schema.DateTimeUtcFromString),
  /** The KYB provider's explanation of a rejection, when it gave one. */
  rejectionReason: Schema.optionalKey(Schema.String),
  /** The KYB provider's reference of the submission, once submitted (`Companies.submitKyb`). */
  kybSubmissionId: Schema.optionalKey(Schema.String),
  /** What the KYB provider asks before deciding, while the company is Unverified. */
  kybRequirement: Schema.optionalKey(KybRequirement),
  /** The current payout account, once one was set. */
  payoutAccount: Schema.optionalKey(PayoutAccountView),
})
export type CompanyDocument = typeof CompanyDocument.Type

/**
 * The document of a company in status `from`, moved to the status the event's tag says
 * (`CompanyEvents.statusOf`, one table) with the event's `fields`; in any other status it is kept.
 */
const moved = (
  current: CompanyDocument | undefined,
  from: CompanyStatus,
  event: CompanyEvent,
  fields: Partial<CompanyDocument>,
): CompanyDocument | undefined =>
  current === undefined || current.status !== from
    ? current
    : { ...current, ...fields, status: statusOf(event) ?? current.status }

const apply = (current: CompanyDocument | undefined, envelope: CompanyEnvelope): CompanyDocument | undefined => {
  if (envelope.streamType !== "Company") return current
  const event = envelope.event
  switch (event._tag) {
    case "CompanyRegistered": {
      if (current !== undefined) return current
      return { ...Struct.omit(event, notKept), status: "Unverified" }
    }
    case "LocationAdded":
      if (current === undefined) return current
      if (current.locations.some((l) => l.locationId === event.location.locationId)) return current
      return { ...current, locations: [...current.locations, event.location] }
    case "CompanyVerified":
      return moved(current, "Unverified", event, { verifiedAt: event.at })
    case "CompanySuspended":
      return moved(current, "Verified", event, {})
    case "CompanyReactivated":
      return moved(current, "Suspended", event, { verifiedAt: event.at })
    case "CompanyRejected":
      return moved(current, "Unverified", event, {
        rejectedAt: event.at,
        ...(event.reason === undefined ? {} : { rejectionReason: event.reason }),
      })
    case "CompanyKybSubmitted":
      if (current === undefined || current.status !== "Unverified") return current
      return { ...current, kybSubmissionId: event.submissionId }
    case "CompanyKybActionRequired":
      if (current === undefined || current.status !== "Unverified") return current
      return { ...current, kybRequirement: event.requirement }
    case "CompanyMetadataSet":
      return current === undefined ? current : { ...current, metadata: event.metadata }
    case "PayoutAccountSet":
      if (current === undefined) return current
      return {
        ...current,
        payoutAccount: Struct.pick(event, Struct.keys(PayoutAccountView.fields)),
      }
    case "PayoutAccountErrored":
      if (current?.payoutAccount === undefined || current.payoutAccount.payoutAccountId !== event.payoutAccountId)
        return current
      return { ...current, payoutAccount: erroredAccount(current.payoutAccount, event) }
  }
}

export const projection: Projection<CompanyDocument, CompanyEnvelope> = {
  collection,
  document: CompanyDocument as Schema.Codec<CompanyDocument, unknown>,
  ...perAggregate<CompanyEnvelope>("Company", (event) => event.companyId),
  creates: ["CompanyRegistered"],
  apply,
  index: (document) => ({
    partnerId: document.partnerId,
    keys: { companyReferenceId: document.companyReferenceId },
    sortKey: DateTime.formatIso(document.registeredAt),
  }),
}
