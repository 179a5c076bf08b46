/**
 * Calendar dates (`2026-11-22`) without time or zone: due dates, plan start
 * dates, birth dates. Arithmetic is pure and done on UTC day numbers, so it
 * never depends on the machine's time zone.
 */
import { Schema } from "effect"

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/

const isRealDate = (text: string): boolean => {
  const match = datePattern.exec(text)
  if (!match) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  if (year < 1900 || year > 9999 || month < 1 || month > 12 || day < 1) return false
  return day <= daysInMonth(year, month)
}

/** An ISO 8601 calendar date, `YYYY-MM-DD`, between 1900 and 9999, that exists in the calendar. */
export const CalendarDate = Schema.String.annotate({ format: "date" })
  .check(
    Schema.makeFilter(isRealDate, { expected: "a date YYYY-MM-DD", message: "must be a real date written YYYY-MM-DD" }),
  )
  .pipe(Schema.brand("CalendarDate"))
export type CalendarDate = typeof CalendarDate.Type

export const daysInMonth = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate()

const parts = (date: CalendarDate): [number, number, number] => {
  const [y, m, d] = date.split("-").map(Number)
  return [y!, m!, d!]
}

const format = (year: number, month: number, day: number): CalendarDate =>
  `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}` as CalendarDate

/** Days since 1970-01-01 (negative before). */
export const toEpochDay = (date: CalendarDate): number => {
  const [y, m, d] = parts(date)
  return Date.UTC(y, m - 1, d) / 86_400_000
}

export const fromEpochDay = (epochDay: number): CalendarDate => {
  const date = new Date(epochDay * 86_400_000)
  return format(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate())
}

/** The calendar date (UTC) of an instant given in epoch milliseconds. */
export const fromEpochMillis = (millis: number): CalendarDate => fromEpochDay(Math.floor(millis / 86_400_000))

export const addDays = (date: CalendarDate, days: number): CalendarDate => fromEpochDay(toEpochDay(date) + days)

/** Adds months, keeping the day of month when it exists and otherwise using the month's last day (Jan 31 + 1 month = Feb 28/29). */
export const addMonths = (date: CalendarDate, months: number): CalendarDate => {
  const [y, m, d] = parts(date)
  const index = y * 12 + (m - 1) + months
  const year = Math.floor(index / 12)
  const month = (index % 12) + 1
  return format(year, month, Math.min(d, daysInMonth(year, month)))
}

/** Negative, zero or positive as `left` is before, equal to or after `right`. ISO dates compare as strings. */
export const compare = (left: CalendarDate, right: CalendarDate): number => (left < right ? -1 : left > right ? 1 : 0)
