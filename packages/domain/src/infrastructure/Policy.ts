/**
 * Cross-aggregate policies: "when aggregate A records event E, aggregate B
 * is told command C". A policy names the aggregate whose events it reacts
 * to, the event types it reacts to, the aggregate it commands, and the pure
 * reaction (the command and the target stream, or nothing). The registry of
 * every policy is `Policies.ts`; use cases apply it to the events a command
 * just recorded, inside their unit of work, so the source's events and the
 * target's reaction commit (or roll back) together.
 */

import type { Aggregate, Decider } from "../kernel/Decider.ts"
import type { DomainError } from "../kernel/DomainError.ts"
import * as Traced from "../kernel/Traced.ts"
import * as CommandHandler from "./CommandHandler.ts"

/** What a policy issues: a command for one stream of its target aggregate. */
export interface Issued<Command> {
  /** The target aggregate instance (the id its stream is named after). */
  readonly id: string
  readonly command: Command
}

export interface Policy<SourceEvent extends { readonly _tag: string }, SourceState, TargetCommand> {
  /** A name in domain words, e.g. "a consent's answer reaches its plan". */
  readonly name: string
  /** The aggregate whose recorded events the policy reacts to. */
  readonly source: Decider<never, SourceEvent, SourceState, unknown> & { readonly name: string }
  /** The event types it reacts to; every other event of the source issues nothing. */
  readonly reactsTo: ReadonlyArray<SourceEvent["_tag"]>
  /** The aggregate it commands. */
  // biome-ignore lint/suspicious/noExplicitAny: the target's events and state are the target's business.
  readonly target: Aggregate<TargetCommand, any, any, DomainError>
  /** The command one event issues, given the source's state after the events were recorded; undefined for none. */
  readonly react: (event: SourceEvent, source: SourceState) => Issued<TargetCommand> | undefined
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds policies of every aggregate.
export type AnyPolicy = Policy<any, any, any>

/** Declares a policy (only types it). */
export const make = <SourceEvent extends { readonly _tag: string }, SourceState, TargetCommand>(
  policy: Policy<SourceEvent, SourceState, TargetCommand>,
): Policy<SourceEvent, SourceState, TargetCommand> => policy

/** The commands the policies issue for events just recorded by `source`, in event order. */
export const reactions = (
  policies: ReadonlyArray<AnyPolicy>,
  source: { readonly name: string },
  handled: { readonly events: ReadonlyArray<{ readonly _tag: string }>; readonly state: unknown },
): ReadonlyArray<{ readonly policy: AnyPolicy; readonly issued: Issued<unknown> }> =>
  handled.events.flatMap((event) =>
    policies.flatMap((policy) => {
      if (policy.source.name !== source.name || !policy.reactsTo.includes(event._tag)) return []
      const issued = policy.react(event, handled.state)
      return issued === undefined ? [] : [{ policy, issued }]
    }),
  )

/**
 * Applies the policies to the events `source` just recorded: each issued
 * command is handled by its target aggregate. Run it inside the use case's
 * unit of work; a refusal by the target fails the whole unit.
 */
export const apply = Traced.fn("Policy.apply")(function* (
  policies: ReadonlyArray<AnyPolicy>,
  source: { readonly name: string },
  handled: { readonly events: ReadonlyArray<{ readonly _tag: string }>; readonly state: unknown },
  options: CommandHandler.HandleOptions = {},
) {
  for (const { policy, issued } of reactions(policies, source, handled)) {
    yield* CommandHandler.handle(policy.target, issued.id, issued.command, options)
  }
})
