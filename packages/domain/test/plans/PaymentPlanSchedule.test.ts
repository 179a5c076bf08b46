import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import * as CalendarDate from "../../src/kernel/CalendarDate.ts"
import * as PaymentPlanSchedule from "../../src/plans/PaymentPlanSchedule.ts"
import { PropertyParams } from "../../src/testing/index.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(2026112606)

const date = (text: string) => text as CalendarDate.CalendarDate
/** Compares due dates with dates written as plain text. */
const assertDates = (actual: ReadonlyArray<CalendarDate.CalendarDate>, expected: ReadonlyArray<string>) =>
  assert.deepStrictEqual<ReadonlyArray<string>>(actual, expected)

const weekly = (overrides: Partial<PaymentPlanSchedule.ScheduleTerms> = {}): PaymentPlanSchedule.ScheduleTerms => ({
  startDate: date("2026-03-02"),
  frequency: "Weekly",
  recurrenceInterval: 1,
  ...overrides,
})
const monthly = (overrides: Partial<PaymentPlanSchedule.ScheduleTerms> = {}): PaymentPlanSchedule.ScheduleTerms => ({
  startDate: date("2026-01-31"),
  frequency: "Monthly",
  recurrenceInterval: 1,
  ...overrides,
})

/** Every due date of a plan, enumerated one instalment at a time (at most `limit`). */
const enumerate = (terms: PaymentPlanSchedule.ScheduleTerms, limit: number): Array<CalendarDate.CalendarDate> => {
  const dates: Array<CalendarDate.CalendarDate> = []
  for (let index = 0; index < limit; index++) {
    const next = PaymentPlanSchedule.dueDateAt(terms, index)
    if (next === undefined) break
    dates.push(next)
  }
  return dates
}

/** Every due date of a plan up to `to`, enumerated one instalment at a time. */
const enumerateUntil = (
  terms: PaymentPlanSchedule.ScheduleTerms,
  to: CalendarDate.CalendarDate,
): Array<CalendarDate.CalendarDate> => {
  const dates: Array<CalendarDate.CalendarDate> = []
  for (let index = 0; ; index++) {
    const next = PaymentPlanSchedule.dueDateAt(terms, index)
    if (next === undefined || CalendarDate.compare(next, to) > 0) return dates
    dates.push(next)
  }
}

describe("a weekly plan", () => {
  it("is due every 7 x interval days from its start date", () => {
    const terms = weekly({ recurrenceInterval: 2, numberOfPayments: 4 })
    assertDates(enumerate(terms, 10), ["2026-03-02", "2026-03-16", "2026-03-30", "2026-04-13"])
  })
  it("with an end date is due on every date up to and including it", () => {
    const terms = weekly({ endDate: date("2026-03-16") })
    assertDates(enumerate(terms, 10), ["2026-03-02", "2026-03-09", "2026-03-16"])
  })
  it("without an end keeps running (bounded only by the window asked for)", () => {
    const dates = PaymentPlanSchedule.dueDates(weekly(), { from: date("2030-01-01"), to: date("2030-01-20") })
    assertDates(dates, ["2030-01-07", "2030-01-14"])
  })
})

describe("a monthly plan", () => {
  it("counts months from the start date and clamps to the month end without drifting (Jan 31, Feb 28, Mar 31)", () => {
    assertDates(enumerate(monthly({ numberOfPayments: 5 }), 10), [
      "2026-01-31",
      "2026-02-28",
      "2026-03-31",
      "2026-04-30",
      "2026-05-31",
    ])
  })
  it("is due on Feb 29 in a leap year", () => {
    assertDates(enumerate(monthly({ startDate: date("2028-01-30"), numberOfPayments: 3 }), 10), [
      "2028-01-30",
      "2028-02-29",
      "2028-03-30",
    ])
  })
  it("with an interval of 3 is due every quarter", () => {
    assertDates(enumerate(monthly({ startDate: date("2026-11-15"), recurrenceInterval: 3, numberOfPayments: 3 }), 10), [
      "2026-11-15",
      "2027-02-15",
      "2027-05-15",
    ])
  })
})

describe("due dates in a window", () => {
  it("include both ends of the window", () => {
    const dates = PaymentPlanSchedule.dueDates(monthly(), { from: date("2026-02-28"), to: date("2026-04-30") })
    assertDates(dates, ["2026-02-28", "2026-03-31", "2026-04-30"])
  })
  it("are empty when the window ends before it starts or before the plan starts", () => {
    assertDates(PaymentPlanSchedule.dueDates(monthly(), { from: date("2026-05-01"), to: date("2026-04-01") }), [])
    assertDates(PaymentPlanSchedule.dueDates(monthly(), { from: date("2025-01-01"), to: date("2026-01-30") }), [])
  })
  it("include a monthly due date on the window's first day, a whole month after the start", () => {
    const dates = PaymentPlanSchedule.dueDates(monthly({ startDate: date("2026-01-01") }), {
      from: date("2026-02-01"),
      to: date("2026-03-01"),
    })
    assertDates(dates, ["2026-02-01", "2026-03-01"])
  })
  it("start at the plan's start date for a window opening on it or before", () => {
    assertDates(PaymentPlanSchedule.dueDates(weekly(), { from: weekly().startDate, to: weekly().startDate }), [
      weekly().startDate,
    ])
  })
  it("stop at the plan's number of payments", () => {
    const dates = PaymentPlanSchedule.dueDates(monthly({ numberOfPayments: 2 }), {
      from: date("2026-01-01"),
      to: date("2027-01-01"),
    })
    assertDates(dates, ["2026-01-31", "2026-02-28"])
  })
})

describe("an instalment's index", () => {
  it("counts from 0: a negative or fractional index has no due date", () => {
    assert.strictEqual(PaymentPlanSchedule.dueDateAt(monthly(), 0), "2026-01-31")
    assert.strictEqual(PaymentPlanSchedule.dueDateAt(monthly(), -1), undefined)
    assert.strictEqual(PaymentPlanSchedule.dueDateAt(monthly(), 1.5), undefined)
  })
})

describe("the next due date", () => {
  it("is the start date before anything was collected", () => {
    assert.strictEqual(PaymentPlanSchedule.nextDueDate(monthly(), undefined), "2026-01-31")
  })
  it("is the first due date after the last collected one", () => {
    assert.strictEqual(PaymentPlanSchedule.nextDueDate(monthly(), date("2026-02-28")), "2026-03-31")
  })
  it("does not exist after the last instalment", () => {
    assert.strictEqual(PaymentPlanSchedule.nextDueDate(monthly({ numberOfPayments: 2 }), date("2026-02-28")), undefined)
    assert.strictEqual(
      PaymentPlanSchedule.nextDueDate(weekly({ endDate: date("2026-03-09") }), date("2026-03-09")),
      undefined,
    )
  })
})

// ---------------------------------------------------------------------------
// Properties

const startDay = CalendarDate.toEpochDay(date("2024-01-01"))
const arbitraryDate = (fromDay: number, spanDays: number) =>
  fc.integer({ min: 0, max: spanDays }).map((offset) => CalendarDate.fromEpochDay(fromDay + offset))

const arbitraryTerms: fc.Arbitrary<PaymentPlanSchedule.ScheduleTerms> = fc
  .record({
    startDate: arbitraryDate(startDay, 3000),
    frequency: fc.constantFrom<PaymentPlanSchedule.Frequency>("Weekly", "Monthly"),
    intervalSeed: fc.integer({ min: 1, max: 52 }),
    end: fc.oneof(
      fc.constant({ kind: "none" as const }),
      fc.record({ kind: fc.constant("count" as const), numberOfPayments: fc.integer({ min: 1, max: 60 }) }),
      fc.record({ kind: fc.constant("date" as const), days: fc.integer({ min: 0, max: 2000 }) }),
    ),
  })
  .map(({ startDate, frequency, intervalSeed, end }) => ({
    startDate,
    frequency,
    recurrenceInterval: ((intervalSeed - 1) % PaymentPlanSchedule.maxRecurrenceInterval[frequency]) + 1,
    ...(end.kind === "count" ? { numberOfPayments: end.numberOfPayments } : {}),
    ...(end.kind === "date" ? { endDate: CalendarDate.addDays(startDate, end.days) } : {}),
  }))

describe("plan schedules (properties)", () => {
  it("plan schedules are strictly increasing and start at or after the start date", () => {
    fc.assert(
      fc.property(arbitraryTerms, (terms) => {
        const dates = enumerate(terms, 80)
        assert.isAbove(dates.length, 0, "every plan has at least its start date")
        assert.strictEqual(dates[0], terms.startDate)
        for (let i = 1; i < dates.length; i++) assert.isBelow(CalendarDate.compare(dates[i - 1]!, dates[i]!), 0)
        if (terms.endDate !== undefined)
          for (const d of dates) assert.isAtMost(CalendarDate.compare(d, terms.endDate), 0)
        if (terms.numberOfPayments !== undefined) assert.isAtMost(dates.length, terms.numberOfPayments)
      }),
      seeded({ numRuns: 200 }),
    )
  })

  it("monthly due dates keep the start day when the month has it, else fall on the month's last day", () => {
    fc.assert(
      fc.property(arbitraryTerms, (terms) => {
        if (terms.frequency !== "Monthly") return
        const startDayOfMonth = Number(terms.startDate.slice(8))
        for (const d of enumerate(terms, 40)) {
          const [year, month, day] = d.split("-").map(Number) as [number, number, number]
          assert.strictEqual(day, Math.min(startDayOfMonth, CalendarDate.daysInMonth(year, month)))
        }
      }),
      seeded({ numRuns: 200 }),
    )
  })

  it("a window holds exactly the plan's due dates that fall inside it", () => {
    fc.assert(
      fc.property(
        arbitraryTerms,
        arbitraryDate(startDay - 100, 4000),
        fc.integer({ min: 0, max: 400 }),
        (terms, from, span) => {
          const to = CalendarDate.addDays(from, span)
          const expected = enumerateUntil(terms, to).filter(
            (d) => CalendarDate.compare(d, from) >= 0 && CalendarDate.compare(d, to) <= 0,
          )
          assert.deepStrictEqual(PaymentPlanSchedule.dueDates(terms, { from, to }), expected)
        },
      ),
      seeded({ numRuns: 200 }),
    )
  })

  it("the next due date after a due date is the following instalment", () => {
    fc.assert(
      fc.property(arbitraryTerms, (terms) => {
        const dates = enumerate(terms, 30)
        assert.strictEqual(PaymentPlanSchedule.nextDueDate(terms, undefined), dates[0])
        for (let i = 0; i < dates.length; i++) {
          assert.strictEqual(
            PaymentPlanSchedule.nextDueDate(terms, dates[i]),
            PaymentPlanSchedule.dueDateAt(terms, i + 1),
          )
        }
      }),
      seeded({ numRuns: 200 }),
    )
  })
})
