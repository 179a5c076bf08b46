/**
 * Who may collect (issue 24 §5): money moves only between verified parties,
 * as every money-movement provider requires. A company collects only once its
 * business verification (KYB) is Verified; a payer pays (accepts a request,
 * pays it with a card, consents to a plan, is collected from) only once their
 * identity verification (KYC) is Verified.
 *
 * The deciders that start a collection receive both statuses in their
 * commands (facts of other aggregates, read by the use case) and refuse with
 * the refusals here: `PaymentRequest` (create, accept, pay with a card,
 * automatic collection), `PaymentPlan` (create), `Consent` (accept) and,
 * last line of defence, `Transfer` (initiate): no transfer ever leaves an
 * unverified payer or reaches an unverified company, whichever path starts it.
 *
 * Decision table: packages/domain/docs/WhoMayCollect.md.
 */
import type { Company } from "../companies/index.ts"
import type { Customer } from "../customers/index.ts"
import { RuleViolated } from "../kernel/DomainError.ts"

/** A company's verification status (KYB), as the Company aggregate has it. */
export type CompanyStatus = Company.CompanyStatus
/** A customer's identity verification status (KYC), as the Customer aggregate has it. */
export type KycStatus = Customer.KycStatus

/** The verification of both sides of a collection, read by the use case from their aggregates. */
export interface Parties {
  /** The collecting company's KYB status. */
  readonly companyStatus: CompanyStatus
  /** The paying customer's KYC status ("NotStarted" for a registration that is not a customer). */
  readonly payerKyc: KycStatus
}

/** 422 COMPANY_NOT_VERIFIED: the company's KYB has not completed yet. */
export const companyNotVerified = new RuleViolated({
  code: "COMPANY_NOT_VERIFIED",
  reason: "the company's business verification (KYB) has not completed: it cannot collect payments until Verified",
})

/** 422 COMPANY_REJECTED: the company failed KYB (kept from before this rule: the more precise code). */
export const companyRejected = new RuleViolated({
  code: "COMPANY_REJECTED",
  reason: "the company failed business verification and cannot collect payments",
})

/** 422 CUSTOMER_NOT_VERIFIED: the payer's identity is not verified (KYC not started, pending or rejected). */
export const customerNotVerified = new RuleViolated({
  code: "CUSTOMER_NOT_VERIFIED",
  reason: "the payer's identity verification (KYC) is not Verified: they cannot pay until it is",
})

/** Why the company may not collect, or undefined when it may (Verified). */
export const companyRefusal = (status: CompanyStatus): RuleViolated | undefined => {
  switch (status) {
    // Stryker disable next-line StringLiteral: equivalent, a status no case names returns undefined, as Verified does
    case "Verified":
      return undefined
    case "Unverified":
      return companyNotVerified
    case "Rejected":
      return companyRejected
    // Suspended by the KYB provider after verification: it collects nothing until reactivated.
    case "Suspended":
      return companyNotVerified
  }
}

/** Why the customer may not pay, or undefined when they may (KYC Verified). */
export const payerRefusal = (kyc: KycStatus): RuleViolated | undefined =>
  kyc === "Verified" ? undefined : customerNotVerified

/** Why money may not move between these parties (the company first), or undefined when it may. */
export const refusal = (parties: Parties): RuleViolated | undefined =>
  companyRefusal(parties.companyStatus) ?? payerRefusal(parties.payerKyc)

/** True when money may move from this payer to this company. */
export const mayCollect = (parties: Parties): boolean => refusal(parties) === undefined
