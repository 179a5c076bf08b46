/**
 * The schedule of a recurring charity gift (POST /Transaction/Charity/CreateAnonymous with
 * `isRecurring: true`): the request names no schedule, so a recurring gift is **monthly, on the
 * day of month of its first collection**, counted from that first date and clamped to the month's
 * last day exactly as a monthly payment plan is (`PaymentPlanSchedule`): a gift first collected on
 * Jan 31 is collected again Feb 28 (29), Mar 31, Apr 30... and never drifts to the 28th.
 *
 * A due date the service missed (no instance running for a while) is **not made up**: a collection
 * is for the latest due date on or before today, and the next one is the first due date after it.
 * A donor is never charged twice or more at once because of an outage, as card subscriptions do.
 *
 * Pure calendar arithmetic, no clock: "today" is the partner's (sandbox time per partner).
 */
import * as CalendarDate from "../kernel/CalendarDate.ts"
import { PaymentPlanSchedule } from "../plans/index.ts"

/** The monthly terms a gift first collected on `startDate` follows, without end (until stopped). */
const termsOf = (startDate: CalendarDate.CalendarDate): PaymentPlanSchedule.ScheduleTerms => ({
  startDate,
  // Stryker disable next-line StringLiteral: equivalent, the plan schedule reads every frequency but "Weekly" as monthly
  frequency: "Monthly",
  recurrenceInterval: 1,
})

/** The first due date after `after` (a due date already collected, the first collection's date included). */
export const nextDueDateAfter = (
  startDate: CalendarDate.CalendarDate,
  after: CalendarDate.CalendarDate,
): CalendarDate.CalendarDate =>
  // A schedule without end always has a next due date.
  PaymentPlanSchedule.nextDueDate(termsOf(startDate), after) ?? CalendarDate.addMonths(after, 1)

/**
 * The due date a collection on `today` is for: the latest due date after `lastCollected` and on or
 * before `today` (missed ones are skipped), or undefined when the next one is still to come.
 */
export const dueDateToCollect = (
  startDate: CalendarDate.CalendarDate,
  lastCollected: CalendarDate.CalendarDate,
  today: CalendarDate.CalendarDate,
): CalendarDate.CalendarDate | undefined => {
  const next = nextDueDateAfter(startDate, lastCollected)
  if (CalendarDate.compare(next, today) > 0) return undefined
  const due = PaymentPlanSchedule.dueDates(termsOf(startDate), { from: next, to: today })
  return due[due.length - 1] ?? next
}
