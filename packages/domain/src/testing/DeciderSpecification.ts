/**
 * Given/when/then specifications for deciders, so tests read as business rules:
 *
 *   spec.given([ConsentRequested(...)]).when(AcceptConsent(...)).then([ConsentAccepted(...)])
 *   spec.given([...]).when(...).thenFails({ _tag: "IllegalTransition" })
 *   spec.given([...]).when(...).thenNothingHappens()
 *   spec.given([...]).ignores(event)    // an event that does not fit the state leaves it unchanged
 *
 * Events are compared through the aggregate's Schema encoding, so two events
 * are equal exactly when they would be stored identically. Failures throw an
 * Error describing expected and actual, which any test runner reports.
 */
import { Schema } from "effect"
import { type Aggregate, fold } from "../kernel/Decider.ts"
import { stable } from "./StableJson.ts"

const pretty = (value: unknown): string => JSON.stringify(JSON.parse(stable(value)), null, 2)

/** Fields of an expected failure: its `_tag` plus any fields to check. */
export type ExpectedFailure = { readonly _tag: string } & Record<string, unknown>

export interface When<Event, State, Error> {
  /** The command records exactly these events. */
  then(expected: ReadonlyArray<Event>): void
  /** The command is refused with an error of this tag (and these field values, when given). */
  thenFails(expected: ExpectedFailure): Error
  /** The command is accepted and records nothing (an idempotent repeat). */
  thenNothingHappens(): void
  /** The state after the given events and the command's events, for assertions on state. */
  thenState(check: (state: State) => void): void
}

export interface Given<Command, Event, State, Error> {
  when(command: Command): When<Event, State, Error>
  /** Applying this event (one that does not fit the state) leaves the state exactly as it was. */
  ignores(event: Event): void
}

export interface Specification<Command, Event, State, Error> {
  given(events: ReadonlyArray<Event>): Given<Command, Event, State, Error>
}

export const forAggregate = <Command, Event extends { readonly _tag: string }, State, Error>(
  aggregate: Aggregate<Command, Event, State, Error>,
): Specification<Command, Event, State, Error> => {
  const encode = Schema.encodeSync(aggregate.events)
  const encodeAll = (events: ReadonlyArray<Event>) => events.map((event) => encode(event))
  return {
    given: (history) => ({
      ignores: (event) => {
        const before = fold(aggregate, history)
        const after = aggregate.evolve(before, event)
        if (stable(after) !== stable(before)) {
          throw new Error(
            `given ${history.map((e) => e._tag).join(", ") || "no events"}, ${event._tag} should leave the state unchanged:\nbefore ${pretty(before)}\nafter ${pretty(after)}`,
          )
        }
      },
      when: (command) => {
        const before = fold(aggregate, history)
        const decision = aggregate.decide(command, before)
        const describe = () => `given ${history.map((e) => e._tag).join(", ") || "no events"} when ${pretty(command)}`
        const succeeded = (): ReadonlyArray<Event> => {
          if (decision._tag === "Failure") {
            throw new Error(`${describe()}: expected success but was refused with ${pretty(decision.failure)}`)
          }
          return decision.success
        }
        return {
          // biome-ignore lint/suspicious/noThenProperty: given/when/then is the vocabulary of the specification; the object is never awaited
          then: (expected) => {
            const actual = succeeded()
            if (stable(encodeAll(actual)) !== stable(encodeAll(expected))) {
              throw new Error(
                `${describe()}:\nexpected events ${pretty(encodeAll(expected))}\nbut got ${pretty(encodeAll(actual))}`,
              )
            }
            // evolve must accept every event decide emits
            fold(aggregate, actual, before)
          },
          thenFails: (expected) => {
            if (decision._tag === "Success") {
              throw new Error(`${describe()}: expected ${expected._tag} but got ${pretty(encodeAll(decision.success))}`)
            }
            const actual = decision.failure as Record<string, unknown>
            for (const [key, value] of Object.entries(expected)) {
              if (stable(actual[key]) !== stable(value)) {
                throw new Error(`${describe()}: expected failure ${pretty(expected)} but got ${pretty(actual)}`)
              }
            }
            return decision.failure
          },
          thenNothingHappens: () => {
            const actual = succeeded()
            if (actual.length > 0) {
              throw new Error(`${describe()}: expected no events but got ${pretty(encodeAll(actual))}`)
            }
          },
          thenState: (check) => check(fold(aggregate, succeeded(), before)),
        }
      },
    }),
  }
}
