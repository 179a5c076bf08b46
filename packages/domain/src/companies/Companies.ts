/**
 * Company use cases (spec 2.2-2.8, 3.1, 4): register a company, add a
 * location, read its status, and record the KYB verdict.
 *
 * They orchestrate; the rules live in the aggregates (`Company`,
 * `CompanyReference`). Time comes from the Clock and new ids from the
 * `IdGenerator`. Tenancy: a company of another partner is reported exactly
 * like a missing one (NotFound).
 *
 * Uniqueness of `companyReferenceId` per partner: `register` reserves the
 * `CompanyReference-<partnerId>:<reference>` stream (an append that expects no
 * stream) and registers the company in the same unit of work. With PostgreSQL
 * both appends commit or neither does; in memory the unit of work serializes
 * registrations, and the body is fully validated before the reservation, so
 * the registration that follows a reservation cannot be refused. Of two
 * concurrent registrations with one reference exactly one wins; the other gets
 * AlreadyExists (entity "CompanyReference").
 *
 * Personal data: the owner's full SSN and ID document number never enter an
 * event or a read model. `register` returns them once, inside
 * `kybSubmission`, for the caller to hand to the KYB provider.
 */

import { DateTime, Effect, Option, Schema } from "effect"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import { type EventMetadata, EventStoreUnavailable, type VersionConflict } from "../infrastructure/EventStore.ts"
import { IdGenerator } from "../infrastructure/IdGenerator.ts"
import { PersonalDataVault } from "../infrastructure/PersonalData.ts"
import { firstPartnerDocument, partnerDocument } from "../infrastructure/ReadModel.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import { type DomainError, NotFound, RuleViolated } from "../kernel/DomainError.ts"
import { CompanyId, LocationId, type PartnerId, PayoutAccountId } from "../kernel/Ids.ts"
import * as Metadata from "../kernel/Metadata.ts"
import { isErased } from "../kernel/Personal.ts"
import * as Traced from "../kernel/Traced.ts"
import * as CompaniesProjection from "./CompaniesProjection.ts"
import * as Company from "./Company.ts"
import { kybSubject } from "./CompanyPersonalData.ts"
import { type KybSubmission, KybVerifier } from "./CompanyProviders.ts"
import * as CompanyReference from "./CompanyReference.ts"

export type { CompanyDocument } from "./CompaniesProjection.ts"

/** What a registration returns: the new ids, and the one-time KYB submission (full owner data). */
export interface Registration {
  readonly companyId: CompanyId
  readonly locationIds: ReadonlyArray<LocationId>
  /**
   * Everything the KYB provider needs, including the owner's SSN and document number (also kept
   * sealed on the company until it is submitted: `submitKyb`).
   */
  readonly kybSubmission: KybSubmission
}

/** The company status response (spec 2.8), PascalCase as the spec writes it; the HTTP response is this Schema. */
export const StatusResponse = Schema.Struct({
  CompanyId: CompanyId,
  Status: Company.CompanyStatus,
  /**
   * While Unverified: what the KYB provider asks before it decides (`DocumentRequired`, `RetryRequired`);
   * absent otherwise (docs/decisions.md: the interface's three statuses stay as they are).
   */
  Requirement: Schema.optionalKey(
    Company.KybRequirement.annotate({
      description:
        "While Unverified: what the KYB provider asks before deciding (DocumentRequired, RetryRequired); absent otherwise",
    }),
  ),
  /** The partner's metadata of the company (`{}` when none). */
  Metadata: Metadata.Metadata,
})
export type StatusResponse = typeof StatusResponse.Type

/** How a partner names a company in a status query: by our id or by its own reference. */
export type CompanyLookup = { readonly companyId: string } | { readonly companyReferenceId: string }

const companyNotFound = new NotFound({ entity: "Company" })

const kybSubmissionOf = (
  partnerId: PartnerId,
  companyId: CompanyId,
  registration: Company.ValidRegistration,
): KybSubmission => {
  const address = (a: {
    readonly streetNumberAndName: string
    readonly apartmentNumber?: string
    readonly zipCode: string
    readonly city: string
    readonly state: string
  }) => ({
    streetNumberAndName: a.streetNumberAndName,
    apartmentNumber: a.apartmentNumber ?? "",
    zipCode: a.zipCode,
    city: a.city,
    state: a.state,
  })
  const owner = registration.owner
  return {
    companyId,
    partnerId,
    name: registration.name,
    taxId: registration.taxId,
    taxIdType: registration.taxIdType,
    companyType: registration.companyType,
    ...(registration.businessType === undefined ? {} : { businessType: registration.businessType }),
    address: address(registration),
    ...(registration.websiteUrl === undefined ? {} : { websiteUrl: registration.websiteUrl }),
    owner: {
      name: owner.name,
      emailAddress: owner.emailAddress,
      dateOfBirth: owner.dateOfBirth,
      documentNumber: owner.documentNumber,
      documentType: owner.documentType,
      ssn: owner.ssn,
      address: address(owner),
    },
  }
}

/**
 * Registers a company from the create request body as received (spec 2.2).
 * Every bad field is reported at once (ValidationFailed); a reference the
 * partner already used is AlreadyExists (entity "CompanyReference").
 */
export const register = UseCase.fn("Companies.register")(function* (partnerId: PartnerId, body: unknown) {
  const at = yield* DateTime.now
  const validated = Company.validateRegistration(body, at)
  if (validated._tag === "Failure") return yield* validated.failure
  const registration = validated.success
  const ids = yield* IdGenerator
  const companyId = CompanyId.make(yield* ids.next)
  const locationIds: ReadonlyArray<LocationId> = yield* Effect.forEach(registration.locations, () =>
    Effect.map(ids.next, (id) => LocationId.make(id)),
  )
  const metadata: EventMetadata = { partnerId }
  // Both streams are new in the common case: neither is read (a reference already taken
  // conflicts at commit, and the retry reads it and refuses with AlreadyExists).
  yield* CommandHandler.handle(
    CompanyReference.aggregate,
    CompanyReference.idOf(partnerId, registration.companyReferenceId),
    {
      _tag: "ReserveCompanyReference",
      partnerId,
      companyReferenceId: registration.companyReferenceId,
      companyId,
      at,
    },
    { metadata, expectNew: true },
  )
  yield* CommandHandler.handle(
    Company.aggregate,
    companyId,
    {
      _tag: "RegisterCompany",
      partnerId,
      companyId,
      locationIds,
      // validated above with the same instant: the decider does not check it again
      registration,
      at,
    },
    { metadata, expectNew: true },
  )
  const result: Registration = {
    companyId,
    locationIds,
    kybSubmission: kybSubmissionOf(partnerId, companyId, registration),
  }
  return result
})

/** The partner's company with our id `companyId`; NotFound when missing or another partner's. */
export const get = Traced.fn("Companies.get")(function* (partnerId: PartnerId, companyId: string) {
  const company = yield* partnerDocument(CompaniesProjection.projection, partnerId, companyId)
  return Option.isSome(company) ? company.value : yield* companyNotFound
})

/** The partner's company registered under `companyReferenceId`; NotFound when it has none. */
export const findByReference = Traced.fn("Companies.findByReference")(function* (
  partnerId: PartnerId,
  companyReferenceId: string,
) {
  const company = yield* firstPartnerDocument(CompaniesProjection.projection, partnerId, { companyReferenceId })
  return Option.isSome(company) ? company.value : yield* companyNotFound
})

/** Adds a location (spec 2.5, 2.7) to the partner's company named by its reference; returns the new location's id. */
export const addLocation = UseCase.fn("Companies.addLocation")(function* (
  partnerId: PartnerId,
  companyReferenceId: string,
  body: unknown,
) {
  const company = yield* findByReference(partnerId, companyReferenceId)
  const ids = yield* IdGenerator
  const locationId = LocationId.make(yield* ids.next)
  yield* CommandHandler.handleNow(
    Company.aggregate,
    company.companyId,
    {
      _tag: "AddLocation",
      partnerId,
      companyId: company.companyId,
      locationId,
      location: body as Company.LocationInput,
    },
    { metadata: { partnerId } },
  )
  return { locationId }
})

/** The verification status of the partner's company (spec 2.8), by company id or by reference. */
export const status = Traced.fn("Companies.status")(function* (partnerId: PartnerId, lookup: CompanyLookup) {
  const company =
    "companyId" in lookup
      ? yield* get(partnerId, lookup.companyId)
      : yield* findByReference(partnerId, lookup.companyReferenceId)
  const requirement =
    company.status === "Unverified" && company.kybRequirement !== undefined
      ? { Requirement: company.kybRequirement }
      : {}
  const response: StatusResponse = {
    CompanyId: company.companyId,
    Status: company.status,
    ...requirement,
    Metadata: company.metadata ?? {},
  }
  return response
})

/**
 * Records the KYB verdict (spec 3.1); used by the application's KYB worker.
 * Idempotent: the same verdict again changes nothing and causes no second
 * webhook; a different verdict after the first is IllegalTransition.
 */
export const completeKyb = UseCase.fn("Companies.completeKyb")(function* (
  companyId: CompanyId,
  outcome: "Verified" | "Rejected",
  reason?: string,
) {
  const handled = yield* CommandHandler.handleNow(Company.aggregate, companyId, {
    _tag: "CompleteKyb",
    companyId,
    outcome,
    ...(reason === undefined ? {} : { reason }),
  })
  return { status: Company.statusOf(handled.state) ?? outcome, changed: handled.events.length > 0 }
})

/**
 * The KYB provider suspended or deactivated the company (Dwolla's `customer_suspended`,
 * `customer_deactivated`): a Verified company becomes Suspended (no collections, payouts paused,
 * COMPANY_VERIFICATION_STATUS_CHANGED Suspended); one not verified yet is Rejected. A repeat changes
 * nothing. A later verdict Verified (`completeKyb`, Dwolla's `customer_reactivated` or
 * `customer_verified`) reactivates it.
 */
export const suspend = UseCase.fn("Companies.suspend")(function* (companyId: CompanyId, reason?: string) {
  const handled = yield* CommandHandler.handleNow(Company.aggregate, companyId, {
    _tag: "SuspendCompany",
    companyId,
    ...(reason === undefined ? {} : { reason }),
  })
  return { status: Company.statusOf(handled.state), changed: handled.events.length > 0 }
})

/**
 * Records what the KYB provider asks before deciding (documents, or the company's data again): the
 * company stays Unverified and its partner is told (COMPANY_VERIFICATION_ACTION_REQUIRED). The same
 * requirement again, or one after the verdict, changes nothing. From the worker's polls and the
 * provider's notifications alike.
 */
export const requireKybAction = UseCase.fn("Companies.requireKybAction")(function* (
  companyId: CompanyId,
  requirement: Company.KybRequirement,
) {
  const handled = yield* CommandHandler.handleNow(Company.aggregate, companyId, {
    _tag: "RequireKybAction",
    companyId,
    requirement,
  })
  return { status: Company.statusOf(handled.state) ?? "Unverified", changed: handled.events.length > 0 }
})

/** The failures of these use cases, for adapters mapping them. */
export type CompaniesError = DomainError | VersionConflict | EventStoreUnavailable

/** One company's outcome in `completeKybBatch`. */
export type KybBatchResult =
  | { readonly _tag: "Recorded"; readonly companyId: CompanyId; readonly changed: boolean }
  | { readonly _tag: "Skipped"; readonly companyId: CompanyId; readonly error: string }

/**
 * Records many KYB verdicts in ONE unit of work (the KYB worker's batches: one
 * commit instead of one per company), each by the rule of `completeKyb`. A
 * company whose command is refused (another verdict already recorded) or loses
 * a race (version conflict; its append is rolled back to its savepoint) is
 * reported as Skipped and the others still commit; a database failure fails
 * the whole batch (nothing recorded).
 */
export const completeKybBatch = UseCase.fn("Companies.completeKybBatch")(function* (
  verdicts: ReadonlyArray<{
    readonly companyId: CompanyId
    readonly outcome: "Verified" | "Rejected"
    readonly reason?: string
  }>,
) {
  const at = yield* DateTime.now
  return yield* Effect.forEach(verdicts, ({ companyId, outcome, reason }) =>
    CommandHandler.handle(Company.aggregate, companyId, {
      _tag: "CompleteKyb",
      companyId,
      outcome,
      ...(reason === undefined ? {} : { reason }),
      at,
    }).pipe(
      Effect.map((handled): KybBatchResult => ({ _tag: "Recorded", companyId, changed: handled.events.length > 0 })),
      Effect.catch((error) =>
        error._tag === "EventStoreUnavailable" || error._tag === "EventDecodeFailed"
          ? Effect.fail(error)
          : Effect.succeed<KybBatchResult>({ _tag: "Skipped", companyId, error: error._tag }),
      ),
    ),
  )
})

// ---------------------------------------------------------------------------
// KYB submission (the KYB provider's port, `CompanyProviders.KybVerifier`)

/**
 * What the KYB provider needs about a registered company, from its recorded
 * data: the owner's full SSN and document number are kept sealed for this
 * (`company-kyb:<companyId>`). Undefined when they are no longer there:
 * registered before they were kept, already submitted (shredded), or erased.
 */
export const storedKybSubmissionOf = (company: Company.Registered): KybSubmission | undefined => {
  const owner = company.profile.owner
  const { ssn, documentNumber } = owner
  if (ssn === undefined || documentNumber === undefined || isErased(ssn) || isErased(documentNumber)) return undefined
  if (isErased(owner.dateOfBirth)) return undefined
  const profile = company.profile
  return kybSubmissionOf(company.partnerId, company.companyId, {
    ...profile,
    owner: { ...owner, ssn, documentNumber, dateOfBirth: owner.dateOfBirth },
  } as unknown as Company.ValidRegistration)
}

/** The KYB data of this company is gone (see `storedKybSubmissionOf`): it cannot be submitted. */
export const kybDataMissing = new RuleViolated({
  code: "KYB_DATA_MISSING",
  reason: "the owner's KYB data is no longer kept (already submitted, erased, or registered before it was kept)",
})

/** Records the provider's reference of a submission (its own unit, after the provider answered). */
const recordKybSubmission = UseCase.fn("Companies.recordKybSubmission")(function* (
  companyId: CompanyId,
  submissionId: string,
) {
  return yield* CommandHandler.handleNow(Company.aggregate, companyId, {
    _tag: "RecordKybSubmission",
    companyId,
    submissionId,
  })
})

/**
 * Submits an Unverified company to the KYB provider (`KybVerifier.submit`) with the data kept for
 * it, records the provider's reference (`CompanyKybSubmitted`), then shreds the kept SSN and
 * document number (the `company-kyb:<companyId>` key): they were kept until submitted, no longer.
 * A company already submitted answers its reference; a Verified or Rejected one, nothing to do.
 * Refusals: the data gone (KYB_DATA_MISSING), the provider refusing the submission
 * (KYB_SUBMISSION_REFUSED); the provider unavailable is a 503-like EventStoreUnavailable.
 * For the KYB integration of production (a worker); the sandbox decides KYB by name.
 */
export const submitKyb = Traced.fn("Companies.submitKyb")(function* (companyId: CompanyId) {
  const { state } = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Company.aggregate, companyId))
  if (state._tag === "Initial") return yield* companyNotFound
  if (state._tag !== "Unverified") return { submissionId: undefined, submittedNow: false }
  if (state.kybSubmissionId !== undefined) return { submissionId: state.kybSubmissionId, submittedNow: false }
  const submission = storedKybSubmissionOf(state)
  if (submission === undefined) return yield* kybDataMissing
  const verifier = yield* KybVerifier
  const { submissionId } = yield* verifier.submit(submission).pipe(
    Effect.catchTags({
      KybSubmissionRefused: (refusal) =>
        Effect.fail(new RuleViolated({ code: "KYB_SUBMISSION_REFUSED", reason: refusal.reason })),
      ProviderUnavailable: (error) =>
        Effect.fail(new EventStoreUnavailable({ reason: `the KYB provider is unavailable: ${error.message}` })),
    }),
  )
  yield* recordKybSubmission(companyId, submissionId)
  yield* (yield* PersonalDataVault).erase(kybSubject(companyId))
  return { submissionId, submittedNow: true }
})

/**
 * Asks the KYB provider for the verdict of a submitted company (`KybVerifier.status`) and records
 * a final one (`completeKyb`, which sends COMPANY_VERIFICATION_STATUS_CHANGED); a requirement with
 * `requireKybAction`; Pending changes nothing. The polling path of the verdict; a provider's notification records it with `completeKyb`.
 */
export const pollKyb = Traced.fn("Companies.pollKyb")(function* (companyId: CompanyId) {
  const { state } = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Company.aggregate, companyId))
  if (state._tag === "Initial") return yield* companyNotFound
  if (state._tag !== "Unverified" || state.kybSubmissionId === undefined) return Company.statusOf(state)
  const verifier = yield* KybVerifier
  const outcome = yield* verifier
    .status(state.kybSubmissionId)
    .pipe(
      Effect.catchTag("ProviderUnavailable", (error) =>
        Effect.fail(new EventStoreUnavailable({ reason: `the KYB provider is unavailable: ${error.message}` })),
      ),
    )
  if (outcome === "Pending") return "Unverified" as const
  if (outcome === "DocumentRequired" || outcome === "RetryRequired") {
    return (yield* requireKybAction(companyId, outcome)).status
  }
  return (yield* completeKyb(companyId, outcome)).status
})

// ---------------------------------------------------------------------------
// Payout account (PUT and GET /Company/{companyId}/PayoutAccount)

/** A payout account as the partner sends it; checked by the Company decider (`CompanyPayoutAccount.ts`). */
export interface PayoutAccountInput {
  readonly accountHolderName: string
  readonly routingNumber: string
  readonly accountNumber: string
  readonly accountType: Company.PayoutAccountType
}

/** The payout account as the partner reads it: the account number masked only. */
export const PayoutAccountView = CompaniesProjection.PayoutAccountView
export type PayoutAccountView = CompaniesProjection.PayoutAccountView

const viewOfAccount = ({ accountNumber: _accountNumber, ...view }: Company.PayoutAccount): PayoutAccountView => view

/**
 * Sets (or replaces) the payout account of the partner's company `companyId`: a new payout account id
 * when the details change, the same account when they do not. Another partner's company is NotFound.
 */
export const setPayoutAccount = UseCase.fn("Companies.setPayoutAccount")(function* (
  partnerId: PartnerId,
  companyId: CompanyId,
  input: PayoutAccountInput,
) {
  const at = yield* DateTime.now
  const ids = yield* IdGenerator
  const payoutAccountId = PayoutAccountId.make(yield* ids.next)
  const handled = yield* CommandHandler.handle(
    Company.aggregate,
    companyId,
    { _tag: "SetPayoutAccount", partnerId, companyId, payoutAccountId, ...input, at },
    { metadata: { partnerId } },
  )
  const account = handled.state._tag === "Initial" ? undefined : handled.state.payoutAccount
  if (account === undefined) return yield* companyNotFound
  return viewOfAccount(account)
})

/** Replaces the metadata of the partner's company (any status); answers it. Another partner's company is NotFound. */
export const setMetadata = UseCase.fn("Companies.setMetadata")(function* (
  partnerId: PartnerId,
  companyId: CompanyId,
  metadata: Metadata.Metadata,
) {
  const at = yield* DateTime.now
  yield* CommandHandler.handle(
    Company.aggregate,
    companyId,
    { _tag: "SetCompanyMetadata", partnerId, companyId, metadata, at },
    { metadata: { partnerId } },
  )
  return { metadata }
})

/** The payout account of the partner's company; NotFound (entity PayoutAccount) when it has none yet. */
export const payoutAccount = Traced.fn("Companies.payoutAccount")(function* (partnerId: PartnerId, companyId: string) {
  const company = yield* get(partnerId, companyId)
  if (company.payoutAccount === undefined) return yield* new NotFound({ entity: "PayoutAccount" })
  return company.payoutAccount
})
