/**
 * The due dates of a payment plan, computed from its terms alone: start date,
 * frequency, recurrence interval and the optional end (a number of payments or
 * an end date). Pure calendar arithmetic, no clock.
 *
 * - Weekly: startDate + 7 * interval * k days.
 * - Monthly: startDate + interval * k months, always counted from the START
 *   date and clamped to the month's last day, so a plan starting Jan 31 is due
 *   Jan 31, Feb 28 (29), Mar 31, Apr 30... and never drifts to the 28th.
 *
 * Instalment k (k = 0, 1, 2...) is the k-th due date; a plan with
 * `numberOfPayments` n has instalments 0..n-1, a plan with `endDate` has every
 * due date on or before that date, a plan with neither runs until cancelled.
 */
import { Schema } from "effect"
import * as CalendarDate from "../kernel/CalendarDate.ts"

/** How often a plan collects; the recurrence interval counts these units (every 2 weeks, every 3 months). */
export const Frequency = Schema.Literals(["Weekly", "Monthly"])
export type Frequency = typeof Frequency.Type

/** Longest recurrence interval: once a year, whatever the frequency (52 weeks or 12 months). */
export const maxRecurrenceInterval: Record<Frequency, number> = { Weekly: 52, Monthly: 12 }

/** Most instalments a plan with a fixed number of payments may have. */
export const maxNumberOfPayments = 1000

/** What the schedule depends on: a subset of the plan's terms. */
export interface ScheduleTerms {
  readonly startDate: CalendarDate.CalendarDate
  readonly frequency: Frequency
  readonly recurrenceInterval: number
  readonly numberOfPayments?: number | undefined
  readonly endDate?: CalendarDate.CalendarDate | undefined
}

/** The date instalment `index` would fall on if the plan had no end. */
const unboundedDueDate = (terms: ScheduleTerms, index: number): CalendarDate.CalendarDate =>
  terms.frequency === "Weekly"
    ? CalendarDate.addDays(terms.startDate, 7 * terms.recurrenceInterval * index)
    : CalendarDate.addMonths(terms.startDate, terms.recurrenceInterval * index)

/** The due date of instalment `index` (0 is the start date), or undefined when the plan ends before it. */
export const dueDateAt = (terms: ScheduleTerms, index: number): CalendarDate.CalendarDate | undefined => {
  if (!Number.isInteger(index) || index < 0) return undefined
  // Stryker disable next-line ConditionalExpression: equivalent, no index is >= undefined (the test narrows the type)
  if (terms.numberOfPayments !== undefined && index >= terms.numberOfPayments) return undefined
  const date = unboundedDueDate(terms, index)
  // Stryker disable next-line ConditionalExpression: equivalent, no date compares after undefined (the test narrows the type)
  if (terms.endDate !== undefined && CalendarDate.compare(date, terms.endDate) > 0) return undefined
  return date
}

/** True when instalment `index` is beyond the plan's end (so an instalment before it was the last one). */
export const isPastEnd = (terms: ScheduleTerms, index: number): boolean => dueDateAt(terms, index) === undefined

/** The index of the first instalment due on or after `date` (ignoring the plan's end). */
const firstIndexOnOrAfter = (terms: ScheduleTerms, date: CalendarDate.CalendarDate): number => {
  const days = CalendarDate.toEpochDay(date) - CalendarDate.toEpochDay(terms.startDate)
  // A lower estimate (0 on or before the start date), then step forward: at most a couple of steps because of
  // month-end clamping. A lower estimate only takes more steps to the same index: the mutants that lower it
  // (the monthly estimate for a weekly plan, Math.min) are equivalent.
  let index =
    // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent, the monthly estimate is lower than the weekly one
    terms.frequency === "Weekly"
      ? // Stryker disable next-line MethodExpression: equivalent, a lower estimate reaches the same index
        Math.max(0, Math.floor(days / (7 * terms.recurrenceInterval)) - 1)
      : // Stryker disable next-line MethodExpression: equivalent, a lower estimate reaches the same index
        Math.max(0, Math.floor(Math.floor(days / 31) / terms.recurrenceInterval) - 1)
  while (CalendarDate.compare(unboundedDueDate(terms, index), date) < 0) index++
  return index
}

/** Every due date within `from` and `to` (both inclusive), in increasing order, within the plan's end. */
export const dueDates = (
  terms: ScheduleTerms,
  window: { readonly from: CalendarDate.CalendarDate; readonly to: CalendarDate.CalendarDate },
): ReadonlyArray<CalendarDate.CalendarDate> => {
  const result: Array<CalendarDate.CalendarDate> = []
  for (let index = firstIndexOnOrAfter(terms, window.from); ; index++) {
    const date = dueDateAt(terms, index)
    if (date === undefined || CalendarDate.compare(date, window.to) > 0) return result
    result.push(date)
  }
}

/**
 * The first due date strictly after `after` (the last collected due date), or
 * the first due date of the plan when nothing was collected yet (`after`
 * undefined). Undefined when the plan has no due date left.
 */
export const nextDueDate = (
  terms: ScheduleTerms,
  after: CalendarDate.CalendarDate | undefined,
): CalendarDate.CalendarDate | undefined =>
  after === undefined
    ? dueDateAt(terms, 0)
    : dueDateAt(terms, firstIndexOnOrAfter(terms, CalendarDate.addDays(after, 1)))
