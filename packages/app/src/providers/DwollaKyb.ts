/**
 * `KybVerifier` on Dwolla (`PARTNERPAY_PROVIDER_KYB=dwolla`): a company is a
 * verified business customer of Dwolla.
 *
 * - `submit`: `POST /customers` with the company (`type: business`, its
 *   name, EIN, address, website, the business classification of the
 *   settings) and its owner as the **controller** (first and last name from
 *   the owner's name, title `Owner`, date of birth, full SSN, address); for a
 *   company with owners (not a sole proprietorship) the owner is added as its
 *   **beneficial owner** (`POST /customers/{id}/beneficial-owners`) and the
 *   ownership certified (`POST /customers/{id}/beneficial-ownership`). The
 *   submission id is Dwolla's customer id. A sole proprietorship is a
 *   verified sole-proprietor customer (the owner's SSN and date of birth; EIN
 *   when the tax id is one). A 400 of Dwolla (its `ValidationError`, naming
 *   the refused fields) is `KybSubmissionRefused` naming those paths, never the
 *   values; any other failure is `ProviderUnavailable`.
 * - `status`: `GET /customers/{id}`, Dwolla's customer status mapped as
 *   `verdictOf` says (docs/providers.md, "Dwolla"); `retry` and `document`
 *   (Dwolla wants more) are the requirements `RetryRequired` and
 *   `DocumentRequired` (the company stays Unverified, its partner is told), also
 *   logged as warnings for the operator.
 */
import { CompanyProviders, Providers, Traced } from "@partnerpay/domain"
import { Effect, Layer } from "effect"
import * as DwollaClient from "./DwollaClient.ts"

/** Dwolla's verification status of a customer, as partnerpay records it. */
export const verdictOf = (status: string): CompanyProviders.KybStatus => {
  switch (status) {
    case "verified":
      return "Verified"
    case "suspended":
    case "deactivated":
      return "Rejected"
    // Not final: Dwolla wants the data again (retry) or documents (document); the partner is told.
    case "retry":
      return "RetryRequired"
    case "document":
      return "DocumentRequired"
    // unverified, kba: not final.
    default:
      return "Pending"
  }
}

/** Dwolla wants the data again (`retry`) or documents (`document`): the operator acts in Dwolla. */
export const needsOperator = (status: string): boolean => status === "retry" || status === "document"

/** "Ada Lovelace" -> first "Ada", last "Lovelace" (a single word is both). */
export const splitName = (name: string) => {
  const words = name.trim().split(/\s+/)
  const lastName = words.length > 1 ? (words.pop() as string) : (words[0] ?? name)
  return { firstName: words.join(" ") || lastName, lastName }
}

/**
 * Dwolla's `businessType` of a company that is not a sole proprietorship: a Partnership's is
 * `partnership`; a ForProfit company's the one given at creation (llc, corporation, partnership),
 * `corporation` when none was.
 */
export const businessTypeOf = (companyType: string, businessType?: string) =>
  companyType === "Partnership"
    ? "partnership"
    : businessType === "llc" || businessType === "partnership"
      ? businessType
      : "corporation"

const usAddress = (address: CompanyProviders.PostalAddress) => ({
  address1: address.streetNumberAndName,
  ...(address.apartmentNumber === "" ? {} : { address2: address.apartmentNumber }),
  city: address.city,
  postalCode: address.zipCode,
  stateProvinceRegion: address.state,
  country: "US",
})

/** The customer fields every business customer has (the company, its owner's name and e-mail). */
const businessOf = (submission: CompanyProviders.KybSubmission, businessClassification: string) => {
  const { firstName, lastName } = splitName(submission.owner.name)
  return {
    firstName,
    lastName,
    email: submission.owner.emailAddress,
    type: "business" as const,
    address1: submission.address.streetNumberAndName,
    ...(submission.address.apartmentNumber === "" ? {} : { address2: submission.address.apartmentNumber }),
    city: submission.address.city,
    state: submission.address.state,
    postalCode: submission.address.zipCode,
    businessClassification,
    businessName: submission.name,
    ...(submission.websiteUrl === undefined ? {} : { website: submission.websiteUrl }),
    correlationId: submission.companyId,
  }
}
type Business = ReturnType<typeof businessOf>

export const make = (config: DwollaClient.DwollaConfig) => {
  const dwolla = DwollaClient.client(config)
  const refused = (refusal: DwollaClient.DwollaRefusal) =>
    refusal.status === 400
      ? new CompanyProviders.KybSubmissionRefused({
          reason: `Dwolla refused the submission (${refusal.code}${refusal.paths.length === 0 ? "" : `: ${refusal.paths.join(", ")}`})`,
        })
      : new Providers.ProviderUnavailable({ provider: DwollaClient.provider, reason: "refused" })
  const submit = Traced.fn("DwollaKyb.submit")(function* (submission: CompanyProviders.KybSubmission) {
    const owner = submission.owner
    const { firstName, lastName } = splitName(owner.name)
    const business = businessOf(submission, config.businessClassification ?? "")
    const soleProprietor =
      submission.companyType === "SoleProprietorship" || submission.businessType === "soleProprietorship"
    // Made already (a submission retried after a crash or a failure after the customer was made): the
    // customer whose correlation id is the company's, found by the owner's e-mail.
    const found = yield* DwollaClient.call("customers", () =>
      dwolla.customers.list({ search: owner.emailAddress, limit: 200 }),
    )
    const existing = (found.embedded?.customers ?? []).find(
      (candidate) => candidate.correlationId === submission.companyId,
    )?.id
    const customerId = existing ?? (yield* create(submission, business, soleProprietor))
    if (!soleProprietor) {
      const owners = yield* DwollaClient.call("beneficial owners", () =>
        dwolla.customers.beneficialOwners.list({ id: customerId }),
      )
      if ((owners.embedded?.beneficialOwners ?? []).length === 0) {
        yield* DwollaClient.call(
          "create beneficial owner",
          () =>
            dwolla.customers.beneficialOwners.create({
              id: customerId,
              requestBody: {
                firstName,
                lastName,
                dateOfBirth: owner.dateOfBirth,
                ssn: owner.ssn,
                address: usAddress(owner.address),
              },
            }),
          refused,
        )
      }
      yield* DwollaClient.call("certify beneficial ownership", () =>
        dwolla.customers.beneficialOwnership.certify({ id: customerId, requestBody: { status: "certified" } }),
      )
    }
    return { submissionId: customerId }
  })
  const create = Traced.fn("DwollaKyb.create")(function* (
    submission: CompanyProviders.KybSubmission,
    business: Business,
    soleProprietor: boolean,
  ) {
    const owner = submission.owner
    const { firstName, lastName } = splitName(owner.name)
    const created = yield* DwollaClient.call(
      "create customer",
      () =>
        dwolla.customers.create(
          soleProprietor
            ? {
                ...business,
                businessType: "soleProprietorship",
                ssn: owner.ssn,
                dateOfBirth: owner.dateOfBirth,
                ...(submission.taxIdType === "EIN" ? { ein: submission.taxId } : {}),
              }
            : {
                ...business,
                businessType: businessTypeOf(submission.companyType, submission.businessType),
                ein: submission.taxId,
                controller: {
                  firstName,
                  lastName,
                  title: "Owner",
                  dateOfBirth: owner.dateOfBirth,
                  ssn: owner.ssn,
                  address: usAddress(owner.address),
                },
              },
        ),
      refused,
    )
    const location = DwollaClient.locationOf(created)
    if (location === undefined) {
      return yield* DwollaClient.unavailable("create customer", new Error("no Location header"))
    }
    return DwollaClient.idOf(location)
  })
  return CompanyProviders.KybVerifier.of({
    submit,
    status: (submissionId) =>
      DwollaClient.call("customer", () => dwolla.customers.get({ id: submissionId })).pipe(
        Effect.map((customer) => String((customer as { status?: unknown }).status ?? "unverified")),
        Effect.tap((status) =>
          needsOperator(status)
            ? Effect.logWarning("Dwolla asks for more to verify a company (its dashboard)", {
                customerId: submissionId,
                status,
              })
            : Effect.void,
        ),
        Effect.map(verdictOf),
      ),
  })
}

export const layer = (config: DwollaClient.DwollaConfig): Layer.Layer<CompanyProviders.KybVerifier> =>
  Layer.sync(CompanyProviders.KybVerifier, () => make(config))
