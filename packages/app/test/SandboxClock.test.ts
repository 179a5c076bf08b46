/** The sandbox clock's rules: the offset clock, the advance body, and that Effect's time follows it. */
import { assert, describe, it } from "@effect/vitest"
import { Clock, DateTime, Effect, Layer } from "effect"
import * as SandboxClock from "../src/SandboxClock.ts"

const fixed = (millis: number): Clock.Clock => ({
  currentTimeMillisUnsafe: () => millis,
  currentTimeMillis: Effect.succeed(millis),
  currentTimeNanosUnsafe: () => BigInt(millis) * 1_000_000n,
  currentTimeNanos: Effect.succeed(BigInt(millis) * 1_000_000n),
  monotonicTimeNanosUnsafe: () => 7n,
  monotonicTimeNanos: Effect.succeed(7n),
  sleep: () => Effect.void,
})

describe("the sandbox clock", () => {
  it.effect("DateTime.now and Clock follow the offset once advanced", () =>
    Effect.gen(function* () {
      const sandbox = SandboxClock.make(fixed(1_000_000))
      const read = Effect.all([Clock.currentTimeMillis, DateTime.now.pipe(Effect.map(DateTime.toEpochMillis))])
      const layer = SandboxClock.layer(sandbox)
      assert.deepStrictEqual(yield* Effect.provide(read, layer), [1_000_000, 1_000_000])
      assert.strictEqual(yield* sandbox.advance(86_400_000), 86_400_000)
      assert.deepStrictEqual(yield* Effect.provide(read, layer), [87_400_000, 87_400_000])
      assert.strictEqual(sandbox.clock.currentTimeNanosUnsafe(), 87_400_000n * 1_000_000n)
      // Monotonic time (durations) is the base clock's.
      assert.strictEqual(sandbox.clock.monotonicTimeNanosUnsafe(), 7n)
    }),
  )

  it.effect("time never moves backwards", () =>
    Effect.gen(function* () {
      const sandbox = SandboxClock.make(fixed(0))
      yield* sandbox.advance(5_000)
      assert.strictEqual(yield* sandbox.advance(-3_000), 5_000)
    }),
  )

  it.effect("a layer on the real clock (the webhook dispatcher) ignores the surrounding sandbox clock", () =>
    Effect.gen(function* () {
      const sandbox = SandboxClock.make()
      yield* sandbox.advance(400 * 86_400_000)
      const seen: Array<number> = []
      // Two distinct layers (a layer value is built once per build, whatever the number of uses).
      const record = () => Layer.effectDiscard(Effect.map(Clock.currentTimeMillis, (now) => void seen.push(now)))
      yield* Effect.scoped(Layer.build(Layer.merge(record(), SandboxClock.onRealClock(record())))).pipe(
        Effect.provide(SandboxClock.layer(sandbox)),
      )
      const [real, sandboxed] = [...seen].sort((a, b) => a - b)
      assert.strictEqual(seen.length, 2)
      assert.isAbove(sandboxed! - Date.now(), 399 * 86_400_000)
      assert.isBelow(Math.abs(real! - Date.now()), 60_000)
    }),
  )
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
