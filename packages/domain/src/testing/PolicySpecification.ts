/**
 * Given/when/then specifications for cross-aggregate policies:
 *
 *   spec.given([ConsentRequested(...)]).when(ConsentAccepted(...)).then({ id, command: RecordConsentAccepted(...) })
 *   spec.given([...]).when(ConsentRequested(...)).thenNothingIsIssued()
 *
 * `given` are the source aggregate's earlier events, `when` the event just
 * recorded; the policy sees the source's state after both. Failures throw an
 * Error describing expected and actual, which any test runner reports.
 */

import { type Issued, type Policy, reactions } from "../infrastructure/Policy.ts"
import { fold } from "../kernel/Decider.ts"
import * as StableJson from "./StableJson.ts"

const stable = (value: unknown): string => StableJson.stable(value, 2)

export interface When<Command> {
  /** The event issues exactly this command to this target stream. */
  then(expected: Issued<Command>): void
  /** The event issues nothing. */
  thenNothingIsIssued(): void
}

export interface Specification<SourceEvent, Command> {
  given(events: ReadonlyArray<SourceEvent>): { when(event: SourceEvent): When<Command> }
}

export const forPolicy = <SourceEvent extends { readonly _tag: string }, SourceState, Command>(
  policy: Policy<SourceEvent, SourceState, Command>,
): Specification<SourceEvent, Command> => ({
  given: (history) => ({
    when: (event) => {
      const state = fold(policy.source, [...history, event])
      const issued = reactions([policy], policy.source, { events: [event], state }).map((reaction) => reaction.issued)
      const describe = () =>
        `${policy.name}: given ${history.map((e) => e._tag).join(", ") || "no events"} when ${event._tag}`
      return {
        // biome-ignore lint/suspicious/noThenProperty: given/when/then is the vocabulary of the specification; the object is never awaited
        then: (expected) => {
          if (stable(issued) !== stable([expected])) {
            throw new Error(`${describe()}:\nexpected ${stable([expected])}\nbut issued ${stable(issued)}`)
          }
        },
        thenNothingIsIssued: () => {
          if (issued.length > 0) throw new Error(`${describe()}: expected nothing but issued ${stable(issued)}`)
        },
      }
    },
  }),
})
