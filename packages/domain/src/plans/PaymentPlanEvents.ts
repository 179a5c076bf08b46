/**
 * Events of the PaymentPlan aggregate: a company's recurring collection from
 * one payer, run only while the payer's consent is Accepted. Every event names
 * the plan, the partner and the company and carries the instant it happened;
 * collection events also carry the payer, the due date and the amount.
 */
import { Schema } from "effect"
import { CalendarDate } from "../kernel/CalendarDate.ts"
import { unionOf } from "../kernel/EventSchema.ts"
import * as Ids from "../kernel/Ids.ts"
import { Metadata } from "../kernel/Metadata.ts"
import * as Money from "../kernel/Money.ts"
import { PlanTerms } from "./PaymentPlanTerms.ts"

/** The company created a plan with its terms; it is a Draft waiting for the payer's consent. */
const PaymentPlanCreated = Schema.TaggedStruct("PaymentPlanCreated", {
  ...PlanTerms.fields,
  at: Schema.DateTimeUtcFromString,
})

/** How a consent was withdrawn: declined while Pending, or revoked after acceptance. */
export const ConsentWithdrawal = Schema.Literals(["Declined", "Revoked"])
export type ConsentWithdrawal = typeof ConsentWithdrawal.Type

/** Why a plan was cancelled: by the company, or because the payer withdrew consent. */
export const CancellationReason = Schema.Literals([
  "CancelledByCompany",
  "ConsentDeclined",
  "ConsentRevoked",
  /** The payer's bank returned a debit to the company as unauthorized (R05, R07, R10, R11, R29, R51). */
  "UnauthorizedReturn",
])
export type CancellationReason = typeof CancellationReason.Type

/** What became of an instalment's transfer: Pending until the bank settles or fails it. */
export const InstalmentStatus = Schema.Literals(["Pending", "Settled", "Failed", "Returned"])
export type InstalmentStatus = typeof InstalmentStatus.Type

/** The fields naming one instalment and the transfer collecting it. */
const instalmentFields = {
  instalmentNumber: Schema.Number,
  dueDate: CalendarDate,
  transferId: Ids.TransferId,
}

/**
 * Every event of a payment plan, by tag: the codec of its stream, each event's schema in its `cases`. Its
 * creation spreads its terms; every other event names the
 * plan, the partner and the company, and `at`, around what it says.
 */
export const PaymentPlanEvent = unionOf(
  { paymentPlanId: Ids.PaymentPlanId, partnerId: Ids.PartnerId, companyId: Ids.CompanyId },
  {
    PaymentPlanCreated,
    /** The plan learned (through the consent policy) that the payer accepted its consent. */
    PaymentPlanConsentAccepted: { consentId: Ids.ConsentId },
    /** The plan learned that the payer declined or revoked its consent; it will never collect again. */
    PaymentPlanConsentWithdrawn: { consentId: Ids.ConsentId, withdrawal: ConsentWithdrawal },
    /**
     * The plan started (or restarted) collecting. `skippedDueDates` are the due
     * dates that passed before this instant while the plan was not collecting
     * (Draft or Paused): they are never collected.
     */
    PaymentPlanActivated: { skippedDueDates: Schema.Array(CalendarDate) },
    /** The company paused collection. */
    PaymentPlanPaused: {},
    /** The company resumed collection; due dates that passed while paused are skipped, never collected. */
    PaymentPlanResumed: { skippedDueDates: Schema.Array(CalendarDate) },
    /** The plan stopped for good before its schedule ended. */
    PaymentPlanCancelled: { reason: CancellationReason },
    /**
     * One instalment was collected for `dueDate` (instalment `instalmentNumber`,
     * 1-based, of the schedule), through a payment request or a transfer created
     * by the edge.
     */
    InstalmentCollected: {
      consentId: Ids.ConsentId,
      payerRegistrationId: Ids.RegistrationId,
      dueDate: CalendarDate,
      instalmentNumber: Schema.Number,
      amount: Money.Money,
      paymentRequestId: Schema.optionalKey(Ids.PaymentRequestId),
      transferId: Schema.optionalKey(Ids.TransferId),
    },
    /** The schedule has no due date left: the plan is Completed. */
    PaymentPlanCompleted: { instalmentsCollected: Schema.Number },
    /** The bank settled the transfer collecting an instalment: the money reached the company. */
    InstalmentSettled: instalmentFields,
    /**
     * The bank failed the transfer collecting an instalment (return code, e.g.
     * "R01"). The instalment is not collected again: the plan goes on with its
     * next due date.
     */
    InstalmentFailed: {
      ...instalmentFields,
      /** Absent when the rail refused the collection (or stayed unavailable): `reason` says why. */
      returnCode: Schema.optionalKey(Schema.String),
      reason: Schema.String,
    },
    /**
     * The settled transfer collecting an instalment came back after settlement (return code, e.g. "R10",
     * and its description): the instalment is Returned. It is not collected again.
     */
    InstalmentReturned: { ...instalmentFields, returnCode: Schema.String, reason: Schema.String },
    /** The partner replaced the plan's metadata (`PUT /PaymentPlan/{id}/Metadata`); any status. */
    PaymentPlanMetadataSet: { metadata: Metadata },
  },
)
export type PaymentPlanEvent = typeof PaymentPlanEvent.Type

/** The payment plan event tagged `Tag`. */
export type Of<Tag extends PaymentPlanEvent["_tag"]> = Extract<PaymentPlanEvent, { readonly _tag: Tag }>
