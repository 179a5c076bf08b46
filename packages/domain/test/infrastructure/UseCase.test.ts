/**
 * `UseCase.fn(name)`, the one way to write a use case that records: its whole
 * body is one unit of work, run again on a version conflict (at most 3 more
 * times, marked Retrying); what follows the body runs after the unit ended;
 * a corrupt stored event is a defect. Shown with a unit of work that counts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Context, Effect, Exit, Layer } from "effect"
import { Retrying } from "../../src/infrastructure/CommandHandler.ts"
import { EventDecodeFailed, VersionConflict } from "../../src/infrastructure/EventStore.ts"
import { UnitOfWork } from "../../src/infrastructure/UnitOfWork.ts"
import * as UseCase from "../../src/infrastructure/UseCase.ts"
import { RuleViolated } from "../../src/kernel/DomainError.ts"

/** True while an effect runs inside the counting unit of work. */
const Inside = Context.Reference<boolean>("test/UseCase/Inside", { defaultValue: () => false })

const conflict = new VersionConflict({ streamId: "Counter-1", expected: "version 1", actual: 2 })

/** A unit of work whose first `conflicts` commits fail with a version conflict; it counts the units run. */
const countingUnits = (conflicts: number) => {
  const counts = { units: 0 }
  const layer = Layer.succeed(
    UnitOfWork,
    UnitOfWork.of({
      transactional: (effect) =>
        Effect.suspend(() => {
          const unit = ++counts.units
          return Effect.provideService(effect, Inside, true).pipe(
            Effect.flatMap((value) => (unit <= conflicts ? Effect.fail(conflict) : Effect.succeed(value))),
          )
        }),
    }),
  )
  return { counts, layer }
}

describe("a use case written with UseCase.fn", () => {
  it.effect("runs its whole body inside one unit of work, with its arguments", () => {
    const { counts, layer } = countingUnits(0)
    const record = UseCase.fn("Test.record")(function* (by: number) {
      return { by, inside: yield* Inside }
    })
    return Effect.gen(function* () {
      assert.deepStrictEqual(yield* record(2), { by: 2, inside: true })
      assert.strictEqual(counts.units, 1)
    }).pipe(Effect.provide(layer))
  })

  it.effect("runs the whole body again after a version conflict, marked Retrying", () => {
    const { counts, layer } = countingUnits(2)
    const runs: Array<boolean> = []
    const record = UseCase.fn("Test.record")(function* () {
      runs.push(yield* Retrying)
      return "recorded"
    })
    return Effect.gen(function* () {
      assert.strictEqual(yield* record(), "recorded")
      assert.deepStrictEqual(runs, [false, true, true])
      assert.strictEqual(counts.units, 3)
    }).pipe(Effect.provide(layer))
  })

  it.effect("runs it again at most 3 times: a fourth conflict is the use case's failure", () => {
    const { counts, layer } = countingUnits(10)
    const record = UseCase.fn("Test.record")(function* () {
      return yield* Effect.void
    })
    return Effect.gen(function* () {
      assert.deepStrictEqual(yield* Effect.flip(record()), conflict)
      assert.strictEqual(counts.units, 4)
    }).pipe(Effect.provide(layer))
  })

  it.effect("fails with the body's refusal at once, without running it again", () => {
    const { counts, layer } = countingUnits(0)
    const refusal = new RuleViolated({ code: "NOPE", reason: "refused" })
    const record = UseCase.fn("Test.record")(function* () {
      return yield* refusal
    })
    return Effect.gen(function* () {
      assert.deepStrictEqual(yield* Effect.flip(record()), refusal)
      assert.strictEqual(counts.units, 1)
    }).pipe(Effect.provide(layer))
  })

  it.effect("runs what follows the body after the unit ended", () => {
    const { layer } = countingUnits(0)
    const record = UseCase.fn("Test.record")(
      function* () {
        return yield* Inside
      },
      (recorded) => Effect.flatMap(recorded, (insideBody) => Effect.map(Inside, (after) => [insideBody, after])),
    )
    return Effect.gen(function* () {
      assert.deepStrictEqual(yield* record(), [true, false])
    }).pipe(Effect.provide(layer))
  })

  it.effect("turns a corrupt stored event into a defect", () => {
    const { layer } = countingUnits(0)
    const corrupt = new EventDecodeFailed({ streamId: "Counter-1", streamVersion: 3, eventType: "X", reason: "bad" })
    const record = UseCase.fn("Test.record")(function* () {
      return yield* corrupt
    })
    return Effect.gen(function* () {
      const exit = yield* Effect.exit(record())
      assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
    }).pipe(Effect.provide(layer))
  })
})
