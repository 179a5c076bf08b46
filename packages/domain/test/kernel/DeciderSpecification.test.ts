/**
 * The given/when/then helper must fail loudly whenever the decider does not do
 * what the specification says: a specification helper that cannot fail would
 * make every aggregate's tests worthless. Shown with the Counter test aggregate.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import { DeciderSpecification } from "../../src/testing/index.ts"
import * as Counter from "../fixtures/Counter.ts"

const at = DateTime.makeUnsafe("2026-03-01T10:00:00Z")
const spec = DeciderSpecification.forAggregate(Counter.aggregate)

const opened: Counter.CounterEvent = { _tag: "CounterOpened", at }
const incremented = (by: number): Counter.CounterEvent => ({ _tag: "Incremented", by, at })
const increment = (by: number): Counter.CounterCommand => ({ _tag: "Increment", by, at })
const decrement = (by: number): Counter.CounterCommand => ({ _tag: "Decrement", by, at })

/** Runs `body` and returns the message it threw; fails the test when it does not throw. */
const thrown = (body: () => unknown): string => {
  try {
    body()
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
  return assert.fail("the specification should have failed but passed")
}

describe("then(events)", () => {
  it("passes when the command records exactly those events", () => {
    spec
      .given([opened])
      .when(increment(2))
      .then([incremented(2)])
  })

  it("compares events as they would be stored: the same instant written differently is the same event", () => {
    spec
      .given([opened])
      .when(increment(2))
      .then([{ _tag: "Incremented", by: 2, at: DateTime.makeUnsafe(Date.parse("2026-03-01T10:00:00.000Z")) }])
  })

  it("fails when an event differs, naming what was expected and what was recorded", () => {
    const message = thrown(() =>
      spec
        .given([opened])
        .when(increment(2))
        .then([incremented(3)]),
    )
    assert.include(message, "given CounterOpened when")
    assert.include(message, "expected events")
    assert.include(message, '"by": 3')
    assert.include(message, '"by": 2')
  })

  it("fails when an event's instant differs", () => {
    thrown(() =>
      spec
        .given([opened])
        .when(increment(2))
        .then([{ _tag: "Incremented", by: 2, at: DateTime.makeUnsafe("2026-03-01T10:00:01Z") }]),
    )
  })

  it("fails when fewer or more events are expected than recorded", () => {
    thrown(() => spec.given([opened]).when(increment(2)).then([]))
    thrown(() =>
      spec
        .given([opened])
        .when(increment(2))
        .then([incremented(2), incremented(2)]),
    )
  })

  it("fails when the command is refused", () => {
    const message = thrown(() =>
      spec
        .given([opened])
        .when(decrement(1))
        .then([{ _tag: "Decremented", by: 1, at }]),
    )
    assert.include(message, "expected success but was refused")
    assert.include(message, "RuleViolated")
  })

  it("fails when the command records nothing but events were expected", () => {
    thrown(() =>
      spec
        .given([opened])
        .when(increment(0))
        .then([incremented(0)]),
    )
  })
})

describe("thenFails(error)", () => {
  it("passes when the command is refused with that tag and those fields, and returns the error", () => {
    const error = spec.given([opened]).when(decrement(1)).thenFails({ _tag: "RuleViolated", code: "counter.negative" })
    assert.strictEqual((error as { reason: string }).reason, "a counter cannot go below zero")
    spec.given([]).when(increment(1)).thenFails({ _tag: "NotFound" })
  })

  it("fails when the command is accepted", () => {
    const message = thrown(() => spec.given([opened]).when(increment(1)).thenFails({ _tag: "RuleViolated" }))
    assert.include(message, "expected RuleViolated but got")
  })

  it("fails when the command is a no-op", () => {
    thrown(() => spec.given([opened]).when(increment(0)).thenFails({ _tag: "RuleViolated" }))
  })

  it("fails when the refusal has another tag", () => {
    const message = thrown(() => spec.given([opened]).when(decrement(1)).thenFails({ _tag: "IllegalTransition" }))
    assert.include(message, "expected failure")
  })

  it("fails when a field of the refusal differs", () => {
    thrown(() => spec.given([opened]).when(decrement(1)).thenFails({ _tag: "RuleViolated", code: "counter.other" }))
  })

  it("fails when the expected refusal names a field the error does not have", () => {
    thrown(() => spec.given([opened]).when(decrement(1)).thenFails({ _tag: "RuleViolated", entity: "Counter" }))
  })
})

describe("thenNothingHappens()", () => {
  it("passes when the command is accepted and records nothing", () => {
    spec.given([opened]).when(increment(0)).thenNothingHappens()
    spec
      .given([opened, { _tag: "CounterClosed", at }])
      .when({ _tag: "Close", at })
      .thenNothingHappens()
  })

  it("fails when the command records events", () => {
    const message = thrown(() => spec.given([opened]).when(increment(1)).thenNothingHappens())
    assert.include(message, "expected no events but got")
  })

  it("fails when the command is refused", () => {
    const message = thrown(() => spec.given([]).when(increment(0)).thenNothingHappens())
    assert.include(message, "NotFound")
  })
})

describe("thenState(check)", () => {
  it("gives the state after the history and the command's events", () => {
    let seen: Counter.CounterState | undefined
    spec
      .given([opened, incremented(2)])
      .when(increment(3))
      .thenState((state) => {
        seen = state
      })
    assert.deepStrictEqual(seen, { _tag: "Open", value: 5, changes: 2 })
  })

  it("fails when the command is refused, without calling the check", () => {
    let called = false
    thrown(() =>
      spec
        .given([opened])
        .when(decrement(1))
        .thenState(() => {
          called = true
        }),
    )
    assert.isFalse(called)
  })

  it("fails when the check fails", () => {
    const message = thrown(() =>
      spec
        .given([opened])
        .when(increment(1))
        .thenState((state) => assert.deepStrictEqual(state, { _tag: "Open", value: 2, changes: 1 })),
    )
    assert.include(message, "expected")
  })
})

describe("ignores(event)", () => {
  it("passes when the event leaves the state as it was (an increment of a counter never opened)", () => {
    spec.given([]).ignores(incremented(2))
  })

  it("fails, showing the state before and after, when the event changes the state", () => {
    const message = thrown(() => spec.given([opened]).ignores(incremented(2)))
    assert.include(message, "Incremented should leave the state unchanged")
    assert.include(message, '"value": 2')
  })
})
