/**
 * Companies (spec 2.2-2.8, 3.1, 4): a partner registers a company
 * (POST /Company/Create), adds locations to it by its own reference
 * (POST /Company/{companyReferenceId}/Locations) and reads its verification
 * status (GET /company/status, PascalCase response as the spec writes it).
 *
 * Request bodies: the wire schema accepts any JSON object and the domain's
 * registration rules (`Company.validateRegistration`, `validateLocation`)
 * check every field, so ONE 422 answer lists every bad field (missing, wrong
 * type or wrong format alike) with its dotted path. A strict Schema would
 * answer a missing field with a 400 before the format rules ran, and the
 * partner would fix its request in several round trips. The OpenAPI document
 * still describes the precise shape: `CompanyCreateRequest` and
 * `LocationRequest` below replace the permissive schema in the generated
 * request body (see `documentBodyAs`). A body that is not a JSON object, or
 * that carries a field these shapes do not define (at any depth), is a 400.
 */
import { Companies, Company, Ids, Metadata } from "@partnerpay/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Authentication } from "../cross-cutting/Authentication.ts"
import * as Problem from "../cross-cutting/Problem.ts"
import * as UnknownFields from "../cross-cutting/UnknownFields.ts"
import { MetadataRequest, MetadataResponse } from "../payments/PaymentApi.ts"

// ---------------------------------------------------------------------------
// Precise request shapes (documentation)

const text = (description: string) => Schema.String.annotate({ description })

const address = {
  streetNumberAndName: text("Street number and name"),
  apartmentNumber: Schema.optionalKey(Schema.NullOr(text("Apartment, suite or unit; optional"))),
  zipCode: text("US ZIP code: 12345 or 12345-6789"),
  city: text("City"),
  state: text("Uppercase US state, territory or military abbreviation (CA, DC, PR, AE)"),
}

const phone = text("E.164 (+15551234567) or a US 10-digit number such as (555) 123-4567")
const email = text("Email address (name@example.com)")

/** A location (spec 2.5); also the body of POST /Company/{companyReferenceId}/Locations. */
export const LocationRequest = Schema.Struct({ name: text("Name of the location"), ...address })

/** The owner (spec 2.3). */
export const OwnerRequest = Schema.Struct({
  name: text("Full name"),
  emailAddress: email,
  contactNumber: phone,
  title: text("Title, e.g. CEO"),
  documentNumber: text("ID document number (sent to business verification, never stored)"),
  documentType: Schema.Literals(Company.documentTypes),
  ssn: text(
    "Social Security number, 123456789 or 123-45-6789 (sent to business verification; only the last four digits are kept)",
  ),
  dateOfBirth: text("YYYY-MM-DD; the owner must be at least 18"),
  ...address,
})

/** An employee (spec 2.4). */
export const EmployeeRequest = Schema.Struct({
  name: text("Full name"),
  emailAddress: email,
  contactNumber: phone,
  title: text("Title"),
})

/** The company create request (spec 2.2). */
export const CompanyCreateRequest = Schema.Struct({
  companyReferenceId: text(
    "The partner's own identifier of the company, unique per partner; 1-64 characters, no surrounding spaces",
  ),
  name: text("Company name"),
  emailAddress: email,
  taxId: text("9 digits, dashes allowed (EIN 12-3456789, SSN/ITIN 123-45-6789)"),
  taxIdType: Schema.Literals(Company.taxIdTypes),
  ...address,
  contactNumber: phone,
  websiteUrl: Schema.optionalKey(Schema.NullOr(text("http(s) address; optional since v0.4.6"))),
  companyType: Schema.Literals(Company.companyTypes),
  businessType: Schema.optionalKey(
    Schema.Literals(Company.businessTypes).annotate({
      description:
        "Optional: the business type a ForProfit company is verified as (llc, corporation, soleProprietorship, partnership); corporation when absent",
    }),
  ),
  owner: OwnerRequest,
  employees: Schema.optionalKey(
    Schema.Array(EmployeeRequest).annotate({
      description: "At most 500; owner and employee email addresses must be unique (ignoring case)",
    }),
  ),
  locations: Schema.optionalKey(Schema.Array(LocationRequest).annotate({ description: "At most 500" })),
  metadata: Schema.optionalKey(Metadata.Metadata),
})

// ---------------------------------------------------------------------------
// Wire schemas

/** Any JSON object: the fields are checked by the domain rules (every bad field in one 422). */
export const JsonObject = Schema.Record(Schema.String, Schema.Unknown)

/** Replaces the generated request body schema of an operation with the precise one (no other field allowed). */
const documentBodyAs = (precise: Schema.Top) => {
  const document = Schema.toJsonSchemaDocument(precise, { onExcessProperty: "error" })
  const schema =
    Object.keys(document.definitions).length === 0
      ? document.schema
      : { ...document.schema, $defs: document.definitions }
  return (operation: Record<string, unknown>): Record<string, unknown> => ({
    ...operation,
    requestBody: {
      ...(operation.requestBody as Record<string, unknown> | undefined),
      required: true,
      content: { "application/json": { schema } },
    },
  })
}

export const CompanyCreateResponse = Schema.Struct({
  companyId: Ids.CompanyId,
  locationIds: Schema.Array(Ids.LocationId).annotate({ description: "One id per location of the request, in order" }),
  metadata: Metadata.Metadata,
})

export const LocationAddResponse = Schema.Struct({ locationId: Ids.LocationId })

/** Spec 2.8: PascalCase as the spec writes it (the domain's shape). */
export const CompanyStatusResponse = Companies.StatusResponse

export const CompanyStatusQuery = {
  companyId: Schema.optionalKey(Ids.Uuid.annotate({ description: "Our id of the company; or companyReferenceId" })),
  companyReferenceId: Schema.optionalKey(
    Schema.String.annotate({ description: "The partner's own reference of the company; or companyId" }),
  ),
}

/** PUT /Company/{companyId}/PayoutAccount: the bank account the company's balance is paid out to. */
export const PayoutAccountRequest = Schema.Struct({
  accountHolderName: text("The account holder's name as the bank knows it"),
  routingNumber: text("ABA routing number: nine digits with a valid check digit"),
  accountNumber: text("Account number, 4 to 17 digits; stored sealed and only ever shown masked"),
  accountType: Schema.Literals(Company.payoutAccountTypes),
})

/** The payout account as read back (the domain's view): the account number masked only. */
export const PayoutAccountResponse = Companies.PayoutAccountView

export const CompanyIdParams = { companyId: Ids.CompanyId }

/** The fields of a create or location body that the precise shapes above do not define (a 400). */
export const unknownCreateFields = UnknownFields.checker(CompanyCreateRequest)
export const unknownLocationFields = UnknownFields.checker(LocationRequest)

export class CompanyApi extends HttpApiGroup.make("companies")
  .add(
    HttpApiEndpoint.post("create", "/Company/Create", {
      payload: JsonObject,
      success: CompanyCreateResponse,
      error: [...Problem.DomainProblems, Problem.BadRequest],
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Register a company",
        description:
          "Registers a company with its owner, employees and locations; it starts Unverified while business verification (KYB) runs, up to 24 hours. Every invalid field is reported at once (422 VALIDATION_FAILED, `errors` with dotted paths such as `owner.emailAddress`). A companyReferenceId the partner already used is 409 DUPLICATE_COMPANY_REFERENCE.",
        transform: documentBodyAs(CompanyCreateRequest),
      }),
    ),
    HttpApiEndpoint.post("addLocation", "/Company/:companyReferenceId/Locations", {
      params: { companyReferenceId: Schema.String },
      payload: JsonObject,
      success: LocationAddResponse,
      error: [...Problem.DomainProblems, Problem.BadRequest],
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Add a location to a company",
        description:
          "Adds a location to the partner's company named by its companyReferenceId (404 when the partner has none). Refused (409) once the company is Rejected.",
        transform: documentBodyAs(LocationRequest),
      }),
    ),
    HttpApiEndpoint.put("setPayoutAccount", "/Company/:companyId/PayoutAccount", {
      params: CompanyIdParams,
      payload: PayoutAccountRequest,
      success: PayoutAccountResponse,
      error: [...Problem.DomainProblems, Problem.BadRequest],
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Set or replace a company's payout account",
        description:
          "The bank account the company's available balance is paid out to (docs/api/payouts.md). The routing number must be nine digits with a valid ABA check digit and the account number 4 to 17 digits (422 naming the field); an unknown field is 400. Sending the account the company already has changes nothing; other details replace it with a new payoutAccountId (the previous accounts stay in the company's history). The account number is sealed at rest and only ever answered masked. 404 when the partner has no such company; 409 when the company is Rejected.",
      }),
    ),
    HttpApiEndpoint.put("setMetadata", "/Company/:companyId/Metadata", {
      params: CompanyIdParams,
      payload: MetadataRequest,
      success: MetadataResponse,
      error: [...Problem.DomainProblems, Problem.BadRequest],
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Replace a company's metadata",
        description:
          "For partners, in any status: the company's metadata becomes the one sent (`{}` removes every key); answered by GET /company/status (Metadata) and in its webhooks. A bad key or value is 400 naming metadata.<key>. 404 when the partner has no such company.",
      }),
    ),
    HttpApiEndpoint.get("payoutAccount", "/Company/:companyId/PayoutAccount", {
      params: CompanyIdParams,
      success: PayoutAccountResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Read a company's payout account",
        description:
          "The company's current payout account, its number masked. 404 when the partner has no such company or the company has no payout account yet.",
      }),
    ),
    HttpApiEndpoint.get("status", "/company/status", {
      query: CompanyStatusQuery,
      success: CompanyStatusResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Read a company's verification status",
        description:
          "Exactly one of the query parameters companyId or companyReferenceId names the partner's company (422 otherwise). Status is Unverified, Verified or Rejected; while Unverified, Requirement says what the KYB provider asks before deciding (DocumentRequired, RetryRequired).",
      }),
    ),
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Companies", description: "Company registration and verification" })) {}
