/**
 * The commands of the PaymentPlan aggregate (`PaymentPlan.ts`): the company
 * creates, activates, pauses, resumes and cancels a plan and sets its
 * metadata; the edge collects its instalments; policies tell it what became of
 * its consent (`ConsentAnswerPolicy`) and of each instalment's transfer
 * (`InstalmentOutcomePolicy`).
 */
import type { DateTime } from "effect"
import type * as CalendarDate from "../kernel/CalendarDate.ts"
import type * as Ids from "../kernel/Ids.ts"
import type * as Metadata from "../kernel/Metadata.ts"
import type { WhoMayCollect } from "../payments/index.ts"
import type { ConsentWithdrawal } from "./PaymentPlanEvents.ts"
import type { PlanTerms } from "./PaymentPlanTerms.ts"

/**
 * The company creates a plan with its terms (the HTTP layer requests its
 * Pending consent in the same operation).
 */
export interface CreatePaymentPlan extends PlanTerms {
  readonly _tag: "CreatePaymentPlan"
  /** The company's KYB status (read by the edge): only a Verified company collects (`WhoMayCollect`). */
  readonly companyStatus: WhoMayCollect.CompanyStatus
  readonly at: DateTime.Utc
}

/** Policy command: the plan's consent was accepted by the payer. */
export interface RecordConsentAccepted {
  readonly _tag: "RecordConsentAccepted"
  readonly paymentPlanId: Ids.PaymentPlanId
  readonly consentId: Ids.ConsentId
  readonly at: DateTime.Utc
}

/** Policy command: the plan's consent was declined (while Pending) or revoked (after acceptance). */
export interface RecordConsentWithdrawn {
  readonly _tag: "RecordConsentWithdrawn"
  readonly paymentPlanId: Ids.PaymentPlanId
  readonly consentId: Ids.ConsentId
  readonly withdrawal: ConsentWithdrawal
  /** The unauthorized return that revoked the consent, when one did. */
  readonly returnCode?: string
  readonly at: DateTime.Utc
}

export interface ActivatePaymentPlan {
  readonly _tag: "ActivatePaymentPlan"
  readonly paymentPlanId: Ids.PaymentPlanId
  readonly at: DateTime.Utc
}

export interface PausePaymentPlan {
  readonly _tag: "PausePaymentPlan"
  readonly paymentPlanId: Ids.PaymentPlanId
  readonly at: DateTime.Utc
}

export interface ResumePaymentPlan {
  readonly _tag: "ResumePaymentPlan"
  readonly paymentPlanId: Ids.PaymentPlanId
  readonly at: DateTime.Utc
}

export interface CancelPaymentPlan {
  readonly _tag: "CancelPaymentPlan"
  readonly paymentPlanId: Ids.PaymentPlanId
  readonly at: DateTime.Utc
}

/**
 * The edge collects the instalment due on `dueDate`, through exactly one of a
 * payment request or a transfer whose id it allocated beforehand.
 */
export interface CollectInstalment {
  readonly _tag: "CollectInstalment"
  readonly paymentPlanId: Ids.PaymentPlanId
  readonly dueDate: CalendarDate.CalendarDate
  readonly paymentRequestId?: Ids.PaymentRequestId
  readonly transferId?: Ids.TransferId
  readonly at: DateTime.Utc
}

/**
 * Policy command: the bank settled, failed or (after settlement) returned the transfer `transferId`
 * collecting one of the plan's instalments.
 */
export interface RecordInstalmentOutcome {
  readonly _tag: "RecordInstalmentOutcome"
  readonly paymentPlanId: Ids.PaymentPlanId
  readonly transferId: Ids.TransferId
  readonly outcome:
    | { readonly _tag: "Settled" }
    | { readonly _tag: "Failed"; readonly returnCode?: string; readonly reason: string }
    | { readonly _tag: "Returned"; readonly returnCode: string; readonly reason: string }
  readonly at: DateTime.Utc
}

/** The partner replaces the plan's metadata, whatever its status. */
export interface SetPaymentPlanMetadata {
  readonly _tag: "SetPaymentPlanMetadata"
  readonly paymentPlanId: Ids.PaymentPlanId
  /** Who sets it: must be the partner of the plan (another partner's plan is NotFound). */
  readonly partnerId: Ids.PartnerId
  readonly metadata: Metadata.Metadata
  readonly at: DateTime.Utc
}

export type Command =
  | CreatePaymentPlan
  | RecordConsentAccepted
  | RecordConsentWithdrawn
  | ActivatePaymentPlan
  | PausePaymentPlan
  | ResumePaymentPlan
  | CancelPaymentPlan
  | CollectInstalment
  | RecordInstalmentOutcome
  | SetPaymentPlanMetadata
