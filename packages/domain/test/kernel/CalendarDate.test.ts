/** Calendar dates: real dates only, and day/month arithmetic that never depends on the machine's time zone. */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import fc from "fast-check"
import * as CalendarDate from "../../src/kernel/CalendarDate.ts"
import { PropertyParams } from "../../src/testing/index.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(2026112616)

const date = Schema.decodeUnknownSync(CalendarDate.CalendarDate)
const accepts = (input: unknown): boolean =>
  Schema.decodeUnknownResult(CalendarDate.CalendarDate)(input)._tag === "Success"

/** Any date between 1900-01-01 and 9999-12-31. */
const arbitraryDate = fc
  .integer({ min: CalendarDate.toEpochDay(date("1900-01-01")), max: CalendarDate.toEpochDay(date("9999-12-31")) })
  .map(CalendarDate.fromEpochDay)

describe("a calendar date", () => {
  it("is written YYYY-MM-DD", () => {
    assert.strictEqual(date("2026-11-22"), "2026-11-22")
    for (const text of ["2026-1-22", "22/11/2026", "2026-11-22T00:00:00Z", "20261122", "", " 2026-11-22"]) {
      assert.isFalse(accepts(text), text)
    }
    assert.isFalse(accepts(20261122))
  })

  it("must exist in the calendar: 2026-02-29 is refused, 2024-02-29 accepted", () => {
    assert.isFalse(accepts("2026-02-29"))
    assert.isTrue(accepts("2024-02-29"))
    assert.isTrue(accepts("2000-02-29"))
    assert.isFalse(accepts("1900-02-29"))
    assert.isFalse(accepts("2026-04-31"))
    assert.isFalse(accepts("2026-13-01"))
    assert.isFalse(accepts("2026-00-10"))
    assert.isFalse(accepts("2026-01-00"))
    assert.isTrue(accepts("2026-12-31"))
  })

  it("must lie between 1900 and 9999", () => {
    assert.isFalse(accepts("1899-12-31"))
    assert.isTrue(accepts("1900-01-01"))
    assert.isTrue(accepts("9999-12-31"))
  })

  it("explains a refusal", () => {
    const result = Schema.decodeUnknownResult(CalendarDate.CalendarDate)("2026-02-29")
    assert.strictEqual(result._tag, "Failure")
    if (result._tag === "Failure") assert.include(result.failure.message, "must be a real date written YYYY-MM-DD")
  })
})

describe("adding months", () => {
  it("keeps the day of month when it exists", () => {
    assert.strictEqual(CalendarDate.addMonths(date("2026-01-15"), 1), "2026-02-15")
    assert.strictEqual(CalendarDate.addMonths(date("2026-11-30"), 3), "2027-02-28")
  })

  it("clamps to the month's last day: 2026-01-31 + 1 month = 2026-02-28", () => {
    assert.strictEqual(CalendarDate.addMonths(date("2026-01-31"), 1), "2026-02-28")
    assert.strictEqual(CalendarDate.addMonths(date("2024-01-31"), 1), "2024-02-29")
    assert.strictEqual(CalendarDate.addMonths(date("2026-03-31"), 1), "2026-04-30")
  })

  it("crosses years in both directions", () => {
    assert.strictEqual(CalendarDate.addMonths(date("2026-12-15"), 1), "2027-01-15")
    assert.strictEqual(CalendarDate.addMonths(date("2026-01-15"), -1), "2025-12-15")
    assert.strictEqual(CalendarDate.addMonths(date("2026-05-10"), 24), "2028-05-10")
    assert.strictEqual(CalendarDate.addMonths(date("2026-05-10"), 0), "2026-05-10")
  })

  it("always gives a real date, never earlier in the month than the original day allows", () => {
    fc.assert(
      fc.property(arbitraryDate, fc.integer({ min: -120, max: 120 }), (start, months) => {
        const result = CalendarDate.addMonths(start, months)
        if (result < "1900-01-01" || result > "9999-12-31") return
        assert.isTrue(accepts(result), result)
        const [y, m, d] = start.split("-").map(Number) as [number, number, number]
        const [ry, rm, rd] = result.split("-").map(Number) as [number, number, number]
        assert.strictEqual(ry * 12 + rm - (y * 12 + m), months)
        assert.strictEqual(rd, Math.min(d, CalendarDate.daysInMonth(ry, rm)))
      }),
      seeded({ numRuns: 500 }),
    )
  })
})

describe("adding days", () => {
  it("crosses months and years", () => {
    assert.strictEqual(CalendarDate.addDays(date("2026-12-31"), 1), "2027-01-01")
    assert.strictEqual(CalendarDate.addDays(date("2027-01-01"), -1), "2026-12-31")
    assert.strictEqual(CalendarDate.addDays(date("2024-02-28"), 1), "2024-02-29")
    assert.strictEqual(CalendarDate.addDays(date("2026-02-28"), 1), "2026-03-01")
    assert.strictEqual(CalendarDate.addDays(date("2026-01-01"), 365), "2027-01-01")
    assert.strictEqual(CalendarDate.addDays(date("2024-01-01"), 366), "2025-01-01")
  })

  it("adding n days then subtracting n days gives the same date", () => {
    fc.assert(
      fc.property(arbitraryDate, fc.integer({ min: -100_000, max: 100_000 }), (start, days) => {
        assert.strictEqual(CalendarDate.addDays(CalendarDate.addDays(start, days), -days), start)
      }),
      seeded({ numRuns: 500 }),
    )
  })

  it("moves the epoch day by exactly n", () => {
    fc.assert(
      fc.property(arbitraryDate, fc.integer({ min: -10_000, max: 10_000 }), (start, days) => {
        assert.strictEqual(
          CalendarDate.toEpochDay(CalendarDate.addDays(start, days)),
          CalendarDate.toEpochDay(start) + days,
        )
      }),
      seeded({ numRuns: 500 }),
    )
  })
})

describe("epoch days and ordering", () => {
  it("1970-01-01 is epoch day 0", () => {
    assert.strictEqual(CalendarDate.toEpochDay(date("1970-01-01")), 0)
    assert.strictEqual(CalendarDate.fromEpochDay(-1), "1969-12-31")
  })

  it("the date of an instant is its UTC date", () => {
    assert.strictEqual(CalendarDate.fromEpochMillis(Date.UTC(2026, 10, 22, 23, 59, 59, 999)), "2026-11-22")
    assert.strictEqual(CalendarDate.fromEpochMillis(Date.UTC(1969, 11, 31, 12)), "1969-12-31")
  })

  it("dates read back from their epoch day", () => {
    fc.assert(
      fc.property(arbitraryDate, (d) => {
        assert.strictEqual(CalendarDate.fromEpochDay(CalendarDate.toEpochDay(d)), d)
      }),
      seeded({ numRuns: 500 }),
    )
  })

  it("compare orders dates as their epoch days do", () => {
    fc.assert(
      fc.property(arbitraryDate, arbitraryDate, (left, right) => {
        assert.strictEqual(
          CalendarDate.compare(left, right),
          Math.sign(CalendarDate.toEpochDay(left) - CalendarDate.toEpochDay(right)),
        )
      }),
      seeded({ numRuns: 500 }),
    )
  })
})
