/** The sandbox clocks' rules: one per partner, stored, the advance body, and that Effect's time follows them. */
import { assert, describe, it } from "@effect/vitest"
import type { Ids } from "@partnerpay/domain"
import { Clock, DateTime, Effect } from "effect"
import * as SandboxClock from "../src/sandbox/SandboxClock.ts"

const fixed = (millis: number): Clock.Clock => ({
  currentTimeMillisUnsafe: () => millis,
  currentTimeMillis: Effect.succeed(millis),
  currentTimeNanosUnsafe: () => BigInt(millis) * 1_000_000n,
  currentTimeNanos: Effect.succeed(BigInt(millis) * 1_000_000n),
  monotonicTimeNanosUnsafe: () => 7n,
  monotonicTimeNanos: Effect.succeed(7n),
  sleep: () => Effect.void,
})

const partnerA = "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b" as Ids.PartnerId
const partnerB = "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f" as Ids.PartnerId
const now = Effect.all([Clock.currentTimeMillis, DateTime.now.pipe(Effect.map(DateTime.toEpochMillis))])

describe("the sandbox clocks of two partners", () => {
  it.effect("DateTime.now and Clock follow a partner's offset once advanced; the other partner's time stays", () =>
    Effect.gen(function* () {
      const sandbox = SandboxClock.make(fixed(1_000_000))
      assert.deepStrictEqual(yield* sandbox.within(partnerA, now), [1_000_000, 1_000_000])
      assert.strictEqual(yield* sandbox.advance(partnerA, 86_400_000), 86_400_000)
      assert.deepStrictEqual(yield* sandbox.within(partnerA, now), [87_400_000, 87_400_000])
      assert.deepStrictEqual(yield* sandbox.within(partnerB, now), [1_000_000, 1_000_000])
      assert.strictEqual(sandbox.clockFor(partnerA).currentTimeNanosUnsafe(), 87_400_000n * 1_000_000n)
      // Monotonic time (durations) is the base clock's.
      assert.strictEqual(sandbox.clockFor(partnerA).monotonicTimeNanosUnsafe(), 7n)
      // The workers look for work up to the furthest-ahead partner's time.
      assert.strictEqual(yield* sandbox.latestMillis, 87_400_000)
    }),
  )

  it.effect("a partner that never advanced runs on the base clock, even inside an advanced partner's time", () =>
    Effect.gen(function* () {
      const sandbox = SandboxClock.make(fixed(1_000_000))
      yield* sandbox.advance(partnerA, 5_000)
      assert.deepStrictEqual(yield* sandbox.within(partnerA, sandbox.within(partnerB, now)), [1_000_000, 1_000_000])
    }),
  )

  it.effect("a partner's time never moves backwards", () =>
    Effect.gen(function* () {
      const sandbox = SandboxClock.make(fixed(0))
      yield* sandbox.advance(partnerA, 5_000)
      assert.strictEqual(yield* sandbox.advance(partnerA, -3_000), 5_000)
    }),
  )

  it.effect("each advance is stored before it applies, and the stored offsets are where a restart starts", () =>
    Effect.gen(function* () {
      const stored: Array<readonly [string, number]> = []
      const first = SandboxClock.make(fixed(0), [], {
        advance: (partnerId, millis) =>
          // Storing takes a while: another advance could start meanwhile.
          Effect.andThen(
            Effect.yieldNow,
            Effect.sync(() => {
              const next = (stored.findLast(([id]) => id === partnerId)?.[1] ?? 0) + millis
              stored.push([partnerId, next])
              return { offsetMillis: next, epoch: 0 }
            }),
          ),
        reset: () => Effect.die("not reset here"),
      })
      yield* first.advance(partnerA, 8 * 86_400_000)
      assert.deepStrictEqual(stored, [[partnerA, 8 * 86_400_000]])
      // Advances one after the other, even when asked at once.
      yield* Effect.all([first.advance(partnerA, 1_000), first.advance(partnerA, 1_000)], { concurrency: "unbounded" })
      assert.strictEqual(first.offsetOf(partnerA), 8 * 86_400_000 + 2_000)
      stored.splice(0, stored.length, [partnerA, 8 * 86_400_000])
      const restarted = SandboxClock.make(fixed(0), stored)
      assert.strictEqual(restarted.offsetOf(partnerA), 8 * 86_400_000)
      assert.strictEqual(restarted.offsetOf(partnerB), 0)
    }),
  )

  it.effect("an advance applies what the store answers: another instance's advance of the same partner adds up", () =>
    Effect.gen(function* () {
      // The store moved 7 days ahead through another instance; this one still knows nothing of it.
      let storedOffset = 7 * 86_400_000
      const here = SandboxClock.make(fixed(0), [], {
        advance: (_, millis) =>
          Effect.sync(() => {
            storedOffset += millis
            return { offsetMillis: storedOffset, epoch: 0 }
          }),
        reset: () => Effect.die("not reset here"),
      })
      assert.strictEqual(yield* here.advance(partnerA, 86_400_000), 8 * 86_400_000)
      assert.strictEqual(here.offsetOf(partnerA), 8 * 86_400_000)
    }),
  )

  it.effect("an offset read from the store is learned only when ahead (offsets never go back)", () =>
    Effect.gen(function* () {
      const clocks = SandboxClock.make(fixed(0), [[partnerA, 5_000]])
      clocks.learn(partnerA, 3_000)
      assert.strictEqual(clocks.offsetOf(partnerA), 5_000)
      clocks.learn(partnerA, 9_000)
      clocks.learn(partnerB, 1_000)
      assert.strictEqual(clocks.offsetOf(partnerA), 9_000)
      assert.strictEqual(clocks.offsetOf(partnerB), 1_000)
      assert.deepStrictEqual(yield* clocks.within(partnerB, now), [1_000, 1_000])
    }),
  )

  it.effect("a reset brings the partner back to real time and only that partner", () =>
    Effect.gen(function* () {
      const sandbox = SandboxClock.make(fixed(0))
      yield* sandbox.advance(partnerA, 10 * 86_400_000)
      yield* sandbox.advance(partnerB, 5_000)
      assert.strictEqual(yield* sandbox.reset(partnerA), 0)
      assert.deepStrictEqual(yield* sandbox.within(partnerA, now), [0, 0])
      assert.strictEqual(sandbox.offsetOf(partnerB), 5_000)
      // Advancing again starts from real time.
      assert.strictEqual(yield* sandbox.advance(partnerA, 1_000), 1_000)
    }),
  )

  it("a reset read from the store (a newer epoch) is learned though its offset is smaller", () => {
    {
      const clocks = SandboxClock.make(fixed(0), [[partnerA, 9_000, 0]])
      clocks.learn(partnerA, 0, 1)
      assert.strictEqual(clocks.offsetOf(partnerA), 0)
      // An older epoch's offset, read late, is not learned again.
      clocks.learn(partnerA, 9_000, 0)
      assert.strictEqual(clocks.offsetOf(partnerA), 0)
      clocks.learn(partnerA, 2_000, 1)
      assert.strictEqual(clocks.offsetOf(partnerA), 2_000)
    }
  })

  it.effect("production has no sandbox time: effects run on the surrounding clock", () =>
    Effect.gen(function* () {
      const inside = yield* SandboxClock.none.within(partnerA, now)
      assert.deepStrictEqual(inside, [42, 42])
    }).pipe(Effect.provideService(Clock.Clock, fixed(42))),
  )
})

describe("a bearer token's partner claim", () => {
  const token = (claims: object) => `h.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.s`
  it("is the subject of a partner token and the pid of a customer token; nothing for garbage", () => {
    assert.strictEqual(SandboxClock.partnerClaimOf(token({ scope: "partner", sub: partnerA })), partnerA)
    assert.strictEqual(SandboxClock.partnerClaimOf(token({ scope: "customer", sub: "x", pid: partnerB })), partnerB)
    assert.strictEqual(SandboxClock.partnerClaimOf("not-a-token"), undefined)
    assert.strictEqual(SandboxClock.partnerClaimOf("a.%%%.b"), undefined)
  })
})

describe("an advance request", () => {
  it("is seconds or days, a whole number, at most 400 days", () => {
    assert.deepStrictEqual(SandboxClock.parseAdvance({ seconds: 90 }), { seconds: 90 })
    assert.deepStrictEqual(SandboxClock.parseAdvance({ days: 400 }), { seconds: 400 * 86_400 })
    const fields = (body: unknown) => {
      const parsed = SandboxClock.parseAdvance(body)
      return "errors" in parsed ? parsed.errors.map((error) => error.field) : []
    }
    assert.deepStrictEqual(fields({ days: 401 }), ["days"])
    assert.deepStrictEqual(fields({ seconds: 400 * 86_400 + 1 }), ["seconds"])
    assert.deepStrictEqual(fields({ seconds: 0 }), ["seconds"])
    assert.deepStrictEqual(fields({ days: 1.5 }), ["days"])
    assert.deepStrictEqual(fields({ seconds: "10" }), ["seconds"])
    assert.deepStrictEqual(fields({}), ["seconds", "days"])
    assert.deepStrictEqual(fields({ seconds: 1, days: 1 }), ["seconds", "days"])
    assert.deepStrictEqual(fields({ hours: 1 }), ["hours", "seconds", "days"])
    assert.deepStrictEqual(fields([1]), [""])
  })
})
