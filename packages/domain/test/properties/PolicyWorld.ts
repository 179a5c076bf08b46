/**
 * The domain in memory for the money properties (`Ledger.test.ts`,
 * `CardDisputes.test.ts`): states by stream, commands decided and folded,
 * and every policy's reaction carried out at once, as the command handler
 * does. A policy whose target refuses its command is a defect: the world
 * throws.
 */
import * as Policies from "../../src/composition/Policies.ts"
import * as Policy from "../../src/infrastructure/Policy.ts"
import type { Aggregate } from "../../src/kernel/Decider.ts"

// biome-ignore lint/suspicious/noExplicitAny: the model holds every aggregate's state by stream.
type AnyAggregate = Aggregate<any, any, any, any>

export const makeWorld = () => {
  const states = new Map<string, unknown>()
  const stateOf = (aggregate: AnyAggregate, streamId: string): unknown => {
    const key = `${aggregate.name}-${streamId}`
    return states.has(key) ? states.get(key) : aggregate.initialState
  }
  /** Handles one command; answers how many events it recorded (0: refused or nothing to do). */
  const handle = (aggregate: AnyAggregate, streamId: string, command: unknown): number => {
    const state = stateOf(aggregate, streamId)
    const decision = aggregate.decide(command, state)
    if (decision._tag === "Failure") return 0
    const events = decision.success as ReadonlyArray<{ readonly _tag: string }>
    let next = state
    for (const event of events) next = aggregate.evolve(next, event)
    states.set(`${aggregate.name}-${streamId}`, next)
    for (const { policy, issued } of Policy.reactions(Policies.all, aggregate, { events, state: next })) {
      // A policy's command doing nothing is fine; a refusal is a defect.
      if (policy.target.decide(issued.command, stateOf(policy.target, issued.id))._tag === "Failure")
        throw new Error(`policy "${policy.name}" was refused: a policy's target must accept`)
      handle(policy.target, issued.id, issued.command)
    }
    return events.length
  }
  const state = <S>(aggregate: { name: string; initialState: S }, streamId: string): S =>
    (states.get(`${aggregate.name}-${streamId}`) as S | undefined) ?? aggregate.initialState
  return { handle, state }
}
