/**
 * What a payment plan is, fixed at its creation: who collects from whom, how
 * much, and on which schedule (`PaymentPlanSchedule`). The terms are declared
 * once here as a value object: the creation command carries them, the
 * `PaymentPlanCreated` event spreads them, the plan's state holds them and the
 * read model shows them.
 *
 * Also the rules the terms must follow (`issues`) and when a repeated creation
 * names the same terms (`same`).
 */
import { Schema } from "effect"
import * as CalendarDate from "../kernel/CalendarDate.ts"
import type { FieldIssue } from "../kernel/DomainError.ts"
import * as Ids from "../kernel/Ids.ts"
import * as Metadata from "../kernel/Metadata.ts"
import * as Money from "../kernel/Money.ts"
import * as PaymentPlanSchedule from "./PaymentPlanSchedule.ts"

/** The terms of a plan: its ids, payer, amount and schedule, and the company's description and partner's metadata. */
export const PlanTerms = Schema.Struct({
  paymentPlanId: Ids.PaymentPlanId,
  partnerId: Ids.PartnerId,
  companyId: Ids.CompanyId,
  consentId: Ids.ConsentId,
  payerRegistrationId: Ids.RegistrationId,
  amount: Money.Money,
  frequency: PaymentPlanSchedule.Frequency,
  recurrenceInterval: Schema.Number,
  startDate: CalendarDate.CalendarDate,
  numberOfPayments: Schema.optionalKey(Schema.Number),
  endDate: Schema.optionalKey(CalendarDate.CalendarDate),
  /** The company's free text about the plan (at most `maxDescriptionLength` characters), when it gave one. */
  description: Schema.optionalKey(Schema.String),
  /** The partner's metadata (`Metadata` rules), when set on create. */
  metadata: Schema.optionalKey(Metadata.Metadata),
})
export type PlanTerms = typeof PlanTerms.Type

/** Longest description of a plan. */
export const maxDescriptionLength = 500

const wholeNumberIn = (value: number, min: number, max: number): boolean =>
  Number.isInteger(value) && value >= min && value <= max

/** Every rule the terms of a plan created on `createdOn` break, one issue per bad field. */
export const issues = (terms: PlanTerms, createdOn: CalendarDate.CalendarDate): ReadonlyArray<FieldIssue> => {
  const found: Array<FieldIssue> = []
  if (terms.amount.minorUnits <= 0) found.push({ field: "amount", message: "must be greater than zero" })
  const maxInterval = PaymentPlanSchedule.maxRecurrenceInterval[terms.frequency]
  if (!wholeNumberIn(terms.recurrenceInterval, 1, maxInterval)) {
    found.push({
      field: "recurrenceInterval",
      message: `must be a whole number from 1 to ${maxInterval} for a ${terms.frequency} plan`,
    })
  }
  if (CalendarDate.compare(terms.startDate, createdOn) < 0) {
    found.push({ field: "startDate", message: `must not be before the creation date ${createdOn}` })
  }
  const { numberOfPayments, endDate } = terms
  if (numberOfPayments !== undefined && endDate !== undefined) {
    found.push({ field: "endDate", message: "give either numberOfPayments or endDate, not both" })
  }
  if (numberOfPayments !== undefined && !wholeNumberIn(numberOfPayments, 1, PaymentPlanSchedule.maxNumberOfPayments)) {
    found.push({
      field: "numberOfPayments",
      message: `must be a whole number from 1 to ${PaymentPlanSchedule.maxNumberOfPayments}`,
    })
  }
  // Stryker disable next-line ConditionalExpression: equivalent, no date compares below the start date with a missing end date (the test narrows the type)
  if (endDate !== undefined) {
    if (CalendarDate.compare(endDate, terms.startDate) < 0)
      found.push({ field: "endDate", message: "must not be before the start date" })
  }
  if (terms.description !== undefined && terms.description.length > maxDescriptionLength) {
    found.push({ field: "description", message: `must be at most ${maxDescriptionLength} characters` })
  }
  if (terms.metadata !== undefined) found.push(...Metadata.issues("metadata", terms.metadata))
  return found
}

/** Whether two creations name the same terms (a retried creation of one plan id changes nothing). */
export const same = (a: PlanTerms, b: PlanTerms): boolean =>
  a.paymentPlanId === b.paymentPlanId &&
  a.consentId === b.consentId &&
  a.partnerId === b.partnerId &&
  a.companyId === b.companyId &&
  a.payerRegistrationId === b.payerRegistrationId &&
  Money.equals(a.amount, b.amount) &&
  a.frequency === b.frequency &&
  a.recurrenceInterval === b.recurrenceInterval &&
  a.startDate === b.startDate &&
  a.numberOfPayments === b.numberOfPayments &&
  a.endDate === b.endDate &&
  a.description === b.description &&
  Metadata.equals(a.metadata ?? Metadata.empty, b.metadata ?? Metadata.empty)
