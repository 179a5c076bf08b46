/**
 * `byCommand` and `byEvent`: a decider's dispatch as a record of one function per tag, checked
 * exhaustive by the compiler (a missing or unknown tag does not compile).
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as Decider from "../../src/kernel/Decider.ts"

type Command = { readonly _tag: "Open"; readonly by: number } | { readonly _tag: "Close" }
type Event = { readonly _tag: "Opened"; readonly by: number } | { readonly _tag: "Closed" }
type State = number

const decide = Decider.byCommand<Command, State, Event, string>({
  Open: (command) => Decider.accept({ _tag: "Opened", by: command.by }),
  Close: (_, state) => (state === 0 ? Decider.refuse("closed already") : Decider.accept({ _tag: "Closed" })),
})

const evolve = Decider.byEvent<Event, State>({
  Opened: (state, event) => state + event.by,
  Closed: () => 0,
})

describe("a decider dispatched by records", () => {
  it("a command goes to the function of its tag, with the state", () => {
    assert.deepStrictEqual(decide({ _tag: "Open", by: 2 }, 0), Result.succeed([{ _tag: "Opened", by: 2 }]))
    assert.deepStrictEqual(decide({ _tag: "Close" }, 0), Result.fail("closed already"))
    assert.deepStrictEqual(decide({ _tag: "Close" }, 3), Result.succeed([{ _tag: "Closed" }]))
  })

  it("an event goes to the function of its tag", () => {
    assert.strictEqual(
      Decider.fold({ initialState: 0, decide, evolve }, [
        { _tag: "Opened", by: 2 },
        { _tag: "Opened", by: 3 },
      ]),
      5,
    )
    assert.strictEqual(evolve(5, { _tag: "Closed" }), 0)
  })

  it("a record must name every tag and no other (checked by the compiler)", () => {
    // @ts-expect-error: "Close" is missing
    Decider.byCommand<Command, State, Event, string>({ Open: () => Decider.nothing })
    Decider.byEvent<Event, State>({
      Opened: (state) => state,
      Closed: () => 0,
      // @ts-expect-error: not an event of the union
      Reopened: () => 1,
    })
    assert.isTrue(true)
  })
})
