/**
 * The provider ports of the companies area: business verification (KYB).
 * Only interfaces and typed errors live here; the application provides
 * implementations (its HTTP bridge; a sandbox worker in the sandbox). Every
 * port may fail with `ProviderUnavailable` (`infrastructure/Providers.ts`).
 */
import { Context, type Effect, Schema } from "effect"
import type { ProviderUnavailable } from "../infrastructure/Providers.ts"
import type { CalendarDate } from "../kernel/CalendarDate.ts"
import type { CompanyId, PartnerId } from "../kernel/Ids.ts"

/** The KYB provider refused the submission itself (missing or malformed data), before any verdict. */
export class KybSubmissionRefused extends Schema.TaggedError<KybSubmissionRefused>()("KybSubmissionRefused", {
  reason: Schema.String,
}) {}

export interface PostalAddress {
  readonly streetNumberAndName: string
  readonly apartmentNumber: string
  readonly zipCode: string
  readonly city: string
  readonly state: string
}

/**
 * What the KYB provider needs about a company. The owner's full SSN passes
 * through to the provider here and is never recorded by partnerpay.
 */
export interface KybSubmission {
  readonly companyId: CompanyId
  readonly partnerId: PartnerId
  readonly name: string
  readonly taxId: string
  readonly taxIdType: string
  readonly companyType: string
  /** The business type given at creation (a ForProfit company's; absent: corporation). */
  readonly businessType?: string | undefined
  readonly address: PostalAddress
  readonly websiteUrl?: string | undefined
  readonly owner: {
    readonly name: string
    readonly emailAddress: string
    readonly dateOfBirth: CalendarDate
    readonly documentNumber: string
    readonly documentType: string
    readonly ssn: string
    readonly address: PostalAddress
  }
}

export type KybOutcome = "Pending" | "Verified" | "Rejected"

/**
 * What the provider asks before it can decide (not a verdict: the company stays Unverified):
 * documents (`DocumentRequired`), or the company's data again (`RetryRequired`).
 */
export type KybRequirement = "DocumentRequired" | "RetryRequired"

/** Where a submission stands: a verdict, still pending, or pending on what the provider asks. */
export type KybStatus = KybOutcome | KybRequirement

/**
 * Submits companies for business verification (KYB). The verdict comes later
 * (up to 24 hours): the provider notifies the application, or the application
 * polls `status`; either way it records the verdict on the Company aggregate.
 */
export class KybVerifier extends Context.Service<
  KybVerifier,
  {
    /** Submits the company; returns the provider's reference of the submission. */
    readonly submit: (
      submission: KybSubmission,
    ) => Effect.Effect<{ readonly submissionId: string }, KybSubmissionRefused | ProviderUnavailable>
    /** The current verdict of a submission. */
    readonly status: (submissionId: string) => Effect.Effect<KybStatus, ProviderUnavailable>
  }
>()("partnerpay/domain/KybVerifier") {}
