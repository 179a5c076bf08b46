/**
 * Events of the Company aggregate and the vocabulary they are written in:
 * company types, tax id types, owner document types, the verification status,
 * and the shapes of a company's owner, employees and locations.
 *
 * Stored events are facts: their codec checks shapes (strings, dates, ids,
 * closed vocabularies) but does not re-run the registration rules (email,
 * phone, ZIP, state formats), so tightening a rule later never makes history
 * unreadable. The rules live in `CompanyValidation.ts`.
 */
import { DateTime, Schema } from "effect"
import { CalendarDate } from "../kernel/CalendarDate.ts"
import { unionOf } from "../kernel/EventSchema.ts"
import { CompanyId, CompanyReferenceId, LocationId, PartnerId, PayoutAccountId } from "../kernel/Ids.ts"
import { Metadata } from "../kernel/Metadata.ts"
import { Erasable } from "../kernel/Personal.ts"

/** Legal forms of a company (the spec names ForProfit only; the others are our choice). */
export const companyTypes = ["ForProfit", "NonProfit", "SoleProprietorship", "Partnership", "Government"] as const
export const CompanyType = Schema.Literals(companyTypes)
export type CompanyType = typeof CompanyType.Type

/**
 * The business type a ForProfit company is sent to the KYB provider with (Dwolla's `businessType`;
 * issue 35): optional at creation, `corporation` when absent.
 */
export const businessTypes = ["llc", "corporation", "soleProprietorship", "partnership"] as const
export const BusinessType = Schema.Literals(businessTypes)
export type BusinessType = typeof BusinessType.Type

/** Kinds of US taxpayer number a company may register with (the spec names none). */
export const taxIdTypes = ["EIN", "SSN", "ITIN"] as const
export const TaxIdType = Schema.Literals(taxIdTypes)
export type TaxIdType = typeof TaxIdType.Type

/** Identity documents accepted for the owner (the spec names none). */
export const documentTypes = ["DriversLicense", "Passport", "StateId"] as const
export const DocumentType = Schema.Literals(documentTypes)
export type DocumentType = typeof DocumentType.Type

/**
 * A company's business verification (KYB) status, as shown to API clients (spec 2.8, 3.1), and
 * Suspended (issue 35): the KYB provider suspended or deactivated a Verified company (Dwolla's
 * `customer_suspended`, `customer_deactivated`): it collects nothing and is not paid out until reactivated.
 */
export const companyStatuses = ["Unverified", "Verified", "Rejected", "Suspended"] as const
export const CompanyStatus = Schema.Literals(companyStatuses)
export type CompanyStatus = typeof CompanyStatus.Type

/** A US postal address; `apartmentNumber` is absent when none was given. */
const addressFields = {
  streetNumberAndName: Schema.String,
  apartmentNumber: Schema.optionalKey(Schema.String),
  zipCode: Schema.String,
  city: Schema.String,
  state: Schema.String,
}

/** An employee (spec 2.4), normalized; an owner is named and reached the same way. */
export const Employee = Schema.Struct({
  name: Schema.String,
  emailAddress: Schema.String,
  contactNumber: Schema.String,
  title: Schema.String,
})
export type Employee = typeof Employee.Type

/**
 * The company's owner as registered (spec 2.3), normalized: trimmed text,
 * phone in E.164, SSN as 9 digits. The event keeps it as an `OwnerRecord`:
 * the full SSN and the ID document number sealed for the KYB submission only.
 */
export const Owner = Schema.Struct({
  ...Employee.fields,
  documentNumber: Schema.String,
  documentType: DocumentType,
  ssn: Schema.String,
  dateOfBirth: CalendarDate,
  ...addressFields,
})
export type Owner = typeof Owner.Type

/**
 * The owner as the event log keeps it: the SSN's last four digits (enough to
 * recognise the person in support conversations) under the owner's key; the
 * full SSN and the ID document number, which the KYB provider needs, sealed
 * under a key of their own (`company-kyb:<companyId>`, `CompanyPersonalData.ts`)
 * that is deleted once the company was submitted (`Companies.submitKyb`) or
 * the owner erased: from then on they read "[erased]". Absent on companies
 * registered before they were kept.
 */
export const OwnerRecord = Schema.Struct({
  ...Employee.fields,
  documentType: DocumentType,
  ssnLastFour: Schema.String,
  /** The full SSN (9 digits), for the KYB submission only; "[erased]" once submitted or erased. */
  ssn: Schema.optionalKey(Schema.String),
  /** The ID document's number, for the KYB submission only; "[erased]" once submitted or erased. */
  documentNumber: Schema.optionalKey(Schema.String),
  /** "[erased]" once the owner is erased (every text field of the owner reads so then). */
  dateOfBirth: Erasable(CalendarDate),
  ...addressFields,
})
export type OwnerRecord = typeof OwnerRecord.Type

/** The stored record of an owner: the SSN's last four digits, and the KYB submission's data (sealed apart). */
export const toOwnerRecord = (owner: Owner): OwnerRecord => ({ ...owner, ssnLastFour: owner.ssn.slice(-4) })

/** What a location is (spec 2.5), before it has an id. */
export const LocationDetails = Schema.Struct({
  name: Schema.String,
  ...addressFields,
})
export type LocationDetails = typeof LocationDetails.Type

/** A location of the company with its id. */
export const Location = Schema.Struct({
  locationId: LocationId,
  ...LocationDetails.fields,
})
export type Location = typeof Location.Type

/**
 * Everything recorded about a company except its locations (spec 2.2),
 * normalized: trimmed text, phone numbers in E.164, tax id as digits. The
 * owner is kept as an `OwnerRecord` (no full SSN, no document number).
 */
export const CompanyProfile = Schema.Struct({
  companyReferenceId: CompanyReferenceId,
  name: Schema.String,
  emailAddress: Schema.String,
  taxId: Schema.String,
  taxIdType: TaxIdType,
  ...addressFields,
  contactNumber: Schema.String,
  websiteUrl: Schema.optionalKey(Schema.String),
  companyType: CompanyType,
  /** The business type given at creation (absent: `corporation` for the KYB provider). */
  businessType: Schema.optionalKey(BusinessType),
  owner: OwnerRecord,
  employees: Schema.Array(Employee),
  /** The partner's metadata, when set on create. */
  metadata: Schema.optionalKey(Metadata),
})
export type CompanyProfile = typeof CompanyProfile.Type

/** A partner registered a company; it starts Unverified while KYB runs. */
export const CompanyRegistered = Schema.TaggedStruct("CompanyRegistered", {
  companyId: CompanyId,
  partnerId: PartnerId,
  ...CompanyProfile.fields,
  locations: Schema.Array(Location),
  registeredAt: Schema.DateTimeUtcFromString,
})
export type CompanyRegistered = typeof CompanyRegistered.Type

/** The kinds of bank account a company is paid out to. */
export const payoutAccountTypes = ["Checking", "Savings"] as const
export const PayoutAccountType = Schema.Literals(payoutAccountTypes)
export type PayoutAccountType = typeof PayoutAccountType.Type

/**
 * The status of a company's payout account: Active receives payouts; Errored was refused by the bank
 * for an account-level reason (`PayoutAccountHealth.ts`): the company's payouts pause (its balance
 * accumulates) until the partner sets another account, which is Active. A replaced account is history,
 * in the events only.
 */
export const PayoutAccountStatus = Schema.Literals(["Active", "Errored"])
export type PayoutAccountStatus = typeof PayoutAccountStatus.Type

/**
 * The bank account a company is paid out to, as recorded. `accountHolderName` and the full
 * `accountNumber` are personal data sealed at rest under the company's payout-account subject
 * (`CompanyPersonalData.ts`); the number is kept (sealed) because payouts must name it to the bank, and
 * every reader sees `accountNumberMasked` only.
 */
export const PayoutAccount = Schema.Struct({
  payoutAccountId: PayoutAccountId,
  accountHolderName: Schema.String,
  routingNumber: Schema.String,
  accountNumber: Schema.String,
  accountNumberMasked: Schema.String.annotate({
    description: "The payout account's number, masked: four asterisks and its last four digits",
  }),
  accountType: PayoutAccountType,
  status: PayoutAccountStatus,
  returnCode: Schema.optionalKey(
    Schema.NullOr(Schema.String).annotate({
      description: "Errored: the ACH return code of the payout that bounced; null when the rail refused the account",
    }),
  ),
  returnReason: Schema.optionalKey(
    Schema.String.annotate({ description: "Errored: the return code's description, or the rail's words" }),
  ),
  erroredAt: Schema.optionalKey(
    Schema.String.annotate({ description: "Errored: when the account was marked Errored (ISO 8601)" }),
  ),
})
export type PayoutAccount = typeof PayoutAccount.Type

/** The requirements a KYB provider may state before its verdict. */
export const KybRequirement = Schema.Literals(["DocumentRequired", "RetryRequired"])
export type KybRequirement = typeof KybRequirement.Type

/**
 * Every event of the Company aggregate, by its tag (its stored JSON codec). Every event but the
 * registration names the company (within its partner) and the instant `at`.
 */
export const CompanyEvent = unionOf(
  { companyId: CompanyId, partnerId: PartnerId },
  {
    CompanyRegistered,
    /** A location was added to a registered company. */
    LocationAdded: { location: Location },
    /** KYB accepted the company (drives COMPANY_VERIFICATION_STATUS_CHANGED with Status Verified). */
    CompanyVerified: { reason: Schema.optionalKey(Schema.String) },
    /** KYB refused the company (drives COMPANY_VERIFICATION_STATUS_CHANGED with Status Rejected). */
    CompanyRejected: { reason: Schema.optionalKey(Schema.String) },
    /**
     * The company was submitted to the KYB provider (`Companies.submitKyb`): its reference, for the
     * verdict. The submission's sealed data (full SSN, document number) is shredded right after.
     */
    CompanyKybSubmitted: { submissionId: Schema.String },
    /**
     * The KYB provider asks for something before it decides (documents, or the company's data again): the
     * company stays Unverified; drives COMPANY_VERIFICATION_ACTION_REQUIRED.
     */
    CompanyKybActionRequired: { requirement: KybRequirement },
    /**
     * The partner set the company's payout account (the first one, or a replacement of the previous one:
     * the history of a company's payout accounts is the sequence of these events).
     */
    PayoutAccountSet: {
      ...PayoutAccount.fields,
      /** The account it replaces, when there was one. */
      replacedPayoutAccountId: Schema.optionalKey(PayoutAccountId),
      /** Set when the account it replaces was Errored: its payouts resume (PAYOUT_ACCOUNT_STATUS_CHANGED Active). */
      replacedErrored: Schema.optionalKey(Schema.Literal(true)),
    },
    /** The partner replaced the company's metadata (`PUT /Company/{companyId}/Metadata`). */
    CompanyMetadataSet: { metadata: Metadata },
    /**
     * A payout to the company's account came back (or was refused) for an account-level reason
     * (`PayoutAccountHealth.isAccountLevel`): the account is Errored and the company's payouts pause
     * until the partner sets another one. No personal data: ids, the code and its reason.
     */
    PayoutAccountErrored: {
      payoutAccountId: PayoutAccountId,
      /** The payout that failed. */
      payoutId: Schema.String,
      returnCode: Schema.optionalKey(Schema.String),
      reason: Schema.String,
    },
    /**
     * The KYB provider suspended (or deactivated) the Verified company: Suspended, it collects nothing
     * (422 COMPANY_NOT_VERIFIED) and its payouts pause (COMPANY_VERIFICATION_STATUS_CHANGED Suspended).
     */
    CompanySuspended: { reason: Schema.optionalKey(Schema.String) },
    /** The KYB provider reactivated the Suspended company: Verified again (COMPANY_VERIFICATION_STATUS_CHANGED Verified). */
    CompanyReactivated: {},
  },
)
export type CompanyEvent = typeof CompanyEvent.Type

export const {
  LocationAdded,
  CompanyVerified,
  CompanyRejected,
  CompanyKybSubmitted,
  CompanyKybActionRequired,
  PayoutAccountSet,
  CompanyMetadataSet,
  PayoutAccountErrored,
  CompanySuspended,
  CompanyReactivated,
} = CompanyEvent.cases

/** The payout account as `PayoutAccountErrored` leaves it (in the state and in the read model alike). */
export const erroredAccount = <Account extends { readonly status: PayoutAccountStatus }>(
  account: Account,
  event: typeof PayoutAccountErrored.Type,
): Account => ({
  ...account,
  status: "Errored",
  returnCode: event.returnCode ?? null,
  returnReason: event.reason,
  erroredAt: DateTime.formatIso(event.at),
})

/** The status a company event moves the company to, or undefined for an event that keeps it. */
export const statusOf = (event: CompanyEvent): CompanyStatus | undefined => statusByEvent[event._tag]

/**
 * The one table of the statuses the events move a company to (undefined: the event keeps the status).
 * Events recorded before it carried a `status` field that their tag already said; they still decode
 * (the field is ignored). A payout account's Errored is its tag's too (`PayoutAccountErrored`).
 */
const statusByEvent: { readonly [Tag in CompanyEvent["_tag"]]: CompanyStatus | undefined } = {
  CompanyRegistered: "Unverified",
  LocationAdded: undefined,
  CompanyVerified: "Verified",
  CompanyRejected: "Rejected",
  CompanyKybSubmitted: undefined,
  CompanyKybActionRequired: undefined,
  PayoutAccountSet: undefined,
  CompanyMetadataSet: undefined,
  PayoutAccountErrored: undefined,
  CompanySuspended: "Suspended",
  CompanyReactivated: "Verified",
}
