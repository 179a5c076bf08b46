/**
 * `Held.provideService`: the service is there for the effect either way; a fiber that already
 * holds the same value under the key gets no context update (no overlay on its context).
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect } from "effect"
import * as Held from "../../src/kernel/Held.ts"

class Ledger extends Context.Service<Ledger, { readonly name: string }>()("test/Held/Ledger") {}

const ledger = { name: "ledger" }

/** What the effect sees: the ledger, and whether its context is the very one of the caller. */
const seen = (outer: Context.Context<never>) =>
  Effect.withFiber((fiber) =>
    Effect.succeed({
      ledger: Context.getUnsafe(fiber.context as Context.Context<Ledger>, Ledger),
      sameContext: fiber.context === outer,
    }),
  )

const provided = (value: { readonly name: string }) =>
  Effect.withFiber((fiber) => seen(fiber.context as Context.Context<never>).pipe(Held.provideService(Ledger, value)))

describe("a fiber that holds the service with the same value", () => {
  it.effect("runs the effect in its own context, the service there", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* provided(ledger), { ledger, sameContext: true })
    }).pipe(Effect.provideService(Ledger, ledger)),
  )
})

describe("a fiber that holds the service with another value", () => {
  it.effect("provides the new value to the effect", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* provided(ledger), { ledger, sameContext: false })
    }).pipe(Effect.provideService(Ledger, { name: "another ledger" })),
  )
})

describe("a fiber that lacks the service", () => {
  it.effect("provides it to the effect, and only to it", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* Held.provideService(seen(Context.empty()), Ledger, ledger), {
        ledger,
        sameContext: false,
      })
      assert.isUndefined(
        yield* Effect.withFiber((fiber) =>
          Effect.succeed(Context.getOrUndefined(fiber.context as Context.Context<Ledger>, Ledger)),
        ),
      )
    }),
  )
})
