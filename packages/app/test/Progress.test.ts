/** Progress of long operator commands: rate, time left, the written lines, and how often they are written. */
import { assert, describe, it } from "@effect/vitest"
import * as Progress from "../src/cli/Progress.ts"

describe("a reading", () => {
  it("gives the rate since the start and the time left at that rate", () => {
    const r = Progress.reading(1500, 6000, 500)
    assert.strictEqual(r.perSecond, 3000)
    assert.strictEqual(r.etaSeconds, 1.5)
  })

  it("has no time left when everything is done, and an unknown one before any rate exists", () => {
    assert.strictEqual(Progress.reading(10, 10, 0).etaSeconds, 0)
    assert.isUndefined(Progress.reading(0, 10, 0).etaSeconds)
    assert.isUndefined(Progress.reading(0, 10, 2000).etaSeconds)
  })

  it("is described with counts, percent, rate and ETA", () => {
    assert.strictEqual(
      Progress.describe("rebuilding read models", "events", Progress.reading(1500, 6000, 500)),
      "rebuilding read models: 1,500 / 6,000 events (25%), 3,000 events/s, ETA 2 s",
    )
    assert.strictEqual(
      Progress.describe("x", "events", Progress.reading(1, 10_000, 1000)),
      "x: 1 / 10,000 events (0%), 1 events/s, ETA 2 h 46 min",
    )
  })
})

describe("a reporter", () => {
  const make = (options: { json: boolean; isTerminal: boolean }) => {
    let now = 0
    const written: Array<string> = []
    const reporter = Progress.reporter({
      label: "rebuild",
      unit: "events",
      ...options,
      write: (text) => written.push(text),
      now: () => now,
      intervalMillis: 1000,
    })
    return { reporter, written, advance: (millis: number) => (now += millis) }
  }

  it("writes the first update, then at most one per interval, and always the last", () => {
    const { reporter, written, advance } = make({ json: true, isTerminal: false })
    reporter.update(0, 100)
    advance(400)
    reporter.update(40, 100)
    advance(700)
    reporter.update(80, 100)
    reporter.finish(100, 100)
    const done = written.map((line) => (JSON.parse(line) as { progress: { done: number } }).progress.done)
    assert.deepStrictEqual(done, [0, 80, 100])
  })

  it("writes JSON lines with the operation, counts, rate and ETA", () => {
    const { reporter, written, advance } = make({ json: true, isTerminal: false })
    advance(2000)
    reporter.update(500, 1000)
    assert.deepStrictEqual(JSON.parse(written[0]!), {
      progress: { operation: "rebuild", done: 500, total: 1000, elapsedMs: 2000, perSecond: 250, etaSeconds: 2 },
    })
  })

  it("rewrites one line in place on a terminal and ends it with a newline", () => {
    const { reporter, written, advance } = make({ json: false, isTerminal: true })
    advance(1000)
    reporter.update(10, 20)
    reporter.finish(20, 20)
    assert.isTrue(written.every((text) => text.startsWith("\r\x1b[2K")))
    assert.isFalse(written[0]!.endsWith("\n"))
    assert.isTrue(written[1]!.endsWith("\n"))
  })
})
