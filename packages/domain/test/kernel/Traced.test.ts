/** Named functions and spans: a span when the caller traces, none (and no span cost) when it does not. */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Traced from "../../src/kernel/Traced.ts"

const currentSpanName = Effect.map(
  Effect.option(Effect.currentSpan),
  Option.map((span) => span.name),
)

const double = Traced.fn("Traced.double")(
  function* (n: number) {
    const span = yield* currentSpanName
    return { doubled: n * 2, span }
  },
  (effect, n) => Effect.map(effect, (result) => ({ ...result, argument: n })),
)

describe("a traced function", () => {
  it.effect("runs in a span of its name when the caller traces", () =>
    Effect.gen(function* () {
      const result = yield* Effect.withTracerEnabled(double(21), true)
      assert.deepStrictEqual(result, { doubled: 42, span: Option.some("Traced.double"), argument: 21 })
    }),
  )

  it.effect("runs without a span of its own when the caller does not trace", () =>
    Effect.gen(function* () {
      const result = yield* Effect.withTracerEnabled(double(21), false)
      assert.strictEqual(result.doubled, 42)
      assert.strictEqual(result.argument, 21)
      assert.isFalse(Option.getOrUndefined(result.span) === "Traced.double")
    }),
  )

  it.effect("fails as its body fails, traced or not", () =>
    Effect.gen(function* () {
      const refuse = Traced.fn("Traced.refuse")(function* (reason: string) {
        return yield* Effect.fail(reason)
      })
      assert.strictEqual(yield* Effect.flip(Effect.withTracerEnabled(refuse("no"), true)), "no")
      assert.strictEqual(yield* Effect.flip(Effect.withTracerEnabled(refuse("no"), false)), "no")
    }),
  )
})

describe("a traced span around an effect", () => {
  const spanned = Traced.withSpan("Traced.spanned")(currentSpanName)

  it.effect("is a span of its name when the fiber traces", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* Effect.withTracerEnabled(spanned, true), Option.some("Traced.spanned"))
    }),
  )

  it.effect("is the effect alone, without a span, when the fiber does not trace", () =>
    Effect.gen(function* () {
      assert.isFalse(Option.getOrUndefined(yield* Effect.withTracerEnabled(spanned, false)) === "Traced.spanned")
    }),
  )
})
