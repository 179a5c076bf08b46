/**
 * Events of the PaymentPlan aggregate: a company's recurring collection from
 * one payer, run only while the payer's consent is Accepted. Every event names
 * the plan, the partner and the company and carries the instant it happened;
 * collection events also carry the payer, the due date and the amount.
 */
import { Schema } from "effect"
import { CalendarDate } from "../kernel/CalendarDate.ts"
import { eventsOf } from "../kernel/EventSchema.ts"
import * as Ids from "../kernel/Ids.ts"
import { Metadata } from "../kernel/Metadata.ts"
import * as Money from "../kernel/Money.ts"
import { PlanTerms } from "./PaymentPlanTerms.ts"

/** Every plan event (but its creation, which spreads its terms) names the plan, the partner and the company, and `at`. */
const planEvent = eventsOf({ paymentPlanId: Ids.PaymentPlanId, partnerId: Ids.PartnerId, companyId: Ids.CompanyId })

/** The company created a plan with its terms; it is a Draft waiting for the payer's consent. */
export const PaymentPlanCreated = Schema.TaggedStruct("PaymentPlanCreated", {
  ...PlanTerms.fields,
  at: Schema.DateTimeUtcFromString,
})
export type PaymentPlanCreated = typeof PaymentPlanCreated.Type

/** The plan learned (through the consent policy) that the payer accepted its consent. */
export const PaymentPlanConsentAccepted = planEvent("PaymentPlanConsentAccepted", { consentId: Ids.ConsentId })
export type PaymentPlanConsentAccepted = typeof PaymentPlanConsentAccepted.Type

/** How a consent was withdrawn: declined while Pending, or revoked after acceptance. */
export const ConsentWithdrawal = Schema.Literals(["Declined", "Revoked"])
export type ConsentWithdrawal = typeof ConsentWithdrawal.Type

/** The plan learned that the payer declined or revoked its consent; it will never collect again. */
export const PaymentPlanConsentWithdrawn = planEvent("PaymentPlanConsentWithdrawn", {
  consentId: Ids.ConsentId,
  withdrawal: ConsentWithdrawal,
})
export type PaymentPlanConsentWithdrawn = typeof PaymentPlanConsentWithdrawn.Type

/**
 * The plan started (or restarted) collecting. `skippedDueDates` are the due
 * dates that passed before this instant while the plan was not collecting
 * (Draft or Paused): they are never collected.
 */
export const PaymentPlanActivated = planEvent("PaymentPlanActivated", { skippedDueDates: Schema.Array(CalendarDate) })
export type PaymentPlanActivated = typeof PaymentPlanActivated.Type

/** The company paused collection. */
export const PaymentPlanPaused = planEvent("PaymentPlanPaused")
export type PaymentPlanPaused = typeof PaymentPlanPaused.Type

/** The company resumed collection; due dates that passed while paused are skipped, never collected. */
export const PaymentPlanResumed = planEvent("PaymentPlanResumed", { skippedDueDates: Schema.Array(CalendarDate) })
export type PaymentPlanResumed = typeof PaymentPlanResumed.Type

/** Why a plan was cancelled: by the company, or because the payer withdrew consent. */
export const CancellationReason = Schema.Literals([
  "CancelledByCompany",
  "ConsentDeclined",
  "ConsentRevoked",
  /** The payer's bank returned a debit to the company as unauthorized (R05, R07, R10, R11, R29, R51). */
  "UnauthorizedReturn",
])
export type CancellationReason = typeof CancellationReason.Type

/** The plan stopped for good before its schedule ended. */
export const PaymentPlanCancelled = planEvent("PaymentPlanCancelled", { reason: CancellationReason })
export type PaymentPlanCancelled = typeof PaymentPlanCancelled.Type

/**
 * One instalment was collected for `dueDate` (instalment `instalmentNumber`,
 * 1-based, of the schedule), through a payment request or a transfer created
 * by the edge.
 */
export const InstalmentCollected = planEvent("InstalmentCollected", {
  consentId: Ids.ConsentId,
  payerRegistrationId: Ids.RegistrationId,
  dueDate: CalendarDate,
  instalmentNumber: Schema.Number,
  amount: Money.Money,
  paymentRequestId: Schema.optionalKey(Ids.PaymentRequestId),
  transferId: Schema.optionalKey(Ids.TransferId),
})
export type InstalmentCollected = typeof InstalmentCollected.Type

/** What became of an instalment's transfer: Pending until the bank settles or fails it. */
export const InstalmentStatus = Schema.Literals(["Pending", "Settled", "Failed", "Returned"])
export type InstalmentStatus = typeof InstalmentStatus.Type

/** The fields naming one instalment and the transfer collecting it. */
const instalmentFields = {
  instalmentNumber: Schema.Number,
  dueDate: CalendarDate,
  transferId: Ids.TransferId,
}

/** The bank settled the transfer collecting an instalment: the money reached the company. */
export const InstalmentSettled = planEvent("InstalmentSettled", instalmentFields)
export type InstalmentSettled = typeof InstalmentSettled.Type

/**
 * The bank failed the transfer collecting an instalment (return code, e.g.
 * "R01"). The instalment is not collected again: the plan goes on with its
 * next due date.
 */
export const InstalmentFailed = planEvent("InstalmentFailed", {
  ...instalmentFields,
  /** Absent when the rail refused the collection (or stayed unavailable): `reason` says why. */
  returnCode: Schema.optionalKey(Schema.String),
  reason: Schema.String,
})
export type InstalmentFailed = typeof InstalmentFailed.Type

/**
 * The settled transfer collecting an instalment came back after settlement (return code, e.g. "R10",
 * and its description): the instalment is Returned. It is not collected again.
 */
export const InstalmentReturned = planEvent("InstalmentReturned", {
  ...instalmentFields,
  returnCode: Schema.String,
  reason: Schema.String,
})
export type InstalmentReturned = typeof InstalmentReturned.Type

/** The schedule has no due date left: the plan is Completed. */
export const PaymentPlanCompleted = planEvent("PaymentPlanCompleted", { instalmentsCollected: Schema.Number })
export type PaymentPlanCompleted = typeof PaymentPlanCompleted.Type

/** The partner replaced the plan's metadata (`PUT /PaymentPlan/{id}/Metadata`); any status. */
export const PaymentPlanMetadataSet = planEvent("PaymentPlanMetadataSet", { metadata: Metadata })
export type PaymentPlanMetadataSet = typeof PaymentPlanMetadataSet.Type

/** Every event of a payment plan; the codec of its stream. */
export const PaymentPlanEvent = Schema.Union([
  PaymentPlanCreated,
  PaymentPlanConsentAccepted,
  PaymentPlanConsentWithdrawn,
  PaymentPlanActivated,
  PaymentPlanPaused,
  PaymentPlanResumed,
  PaymentPlanCancelled,
  InstalmentCollected,
  PaymentPlanCompleted,
  InstalmentSettled,
  InstalmentFailed,
  InstalmentReturned,
  PaymentPlanMetadataSet,
])
export type PaymentPlanEvent = typeof PaymentPlanEvent.Type
