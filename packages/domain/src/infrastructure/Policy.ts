/**
 * Cross-aggregate policies: "when aggregate A records event E, aggregate B
 * is told command C". A policy names the aggregate whose events it reacts
 * to, the event types it reacts to, the aggregate it commands, and the pure
 * reaction (the command and the target stream, or nothing).
 *
 * A fan-out policy (`FanOutPolicy`) is the same reaction when one event
 * commands several streams it must look up first (every authorization a payer
 * gave a company): its reaction reads (through services it captured when the
 * registry was built, e.g. the read model store) and answers the commands,
 * each naming its target aggregate; it decides nothing itself.
 *
 * Policies are applied by the machinery, never by a use case:
 * `CommandHandler.handle` runs the registry in context (`Policies`, provided
 * by the composition root: `composition/Policies.ts`) over the events it just
 * recorded, inside the same unit of work, so the source's events and the
 * target's reaction commit (or roll back) together and no use case can
 * forget one.
 */
import { Context, type Effect, Layer } from "effect"
import type { Aggregate, Decider } from "../kernel/Decider.ts"
import type { DomainError } from "../kernel/DomainError.ts"
import type { EventStoreUnavailable } from "./EventStore.ts"

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

/** A command a fan-out policy issues, with the aggregate it is for. */
export interface Directed {
  // biome-ignore lint/suspicious/noExplicitAny: each command is its own target's.
  readonly target: Aggregate<any, any, any, DomainError>
  readonly id: string
  readonly command: unknown
}

export interface FanOutPolicy<SourceEvent extends { readonly _tag: string }, SourceState> {
  readonly _tag: "FanOut"
  readonly name: string
  readonly source: Decider<never, SourceEvent, SourceState, unknown> & { readonly name: string }
  readonly reactsTo: ReadonlyArray<SourceEvent["_tag"]>
  /** The commands one event issues, in order (looked up with the services the policy captured). */
  readonly react: (
    event: SourceEvent,
    source: SourceState,
  ) => Effect.Effect<ReadonlyArray<Directed>, EventStoreUnavailable>
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds policies of every aggregate.
export type AnyPolicy = Policy<any, any, any> | FanOutPolicy<any, any>

/** True for a fan-out policy (the others issue one pure command). */
export const isFanOut = (policy: AnyPolicy): policy is FanOutPolicy<{ readonly _tag: string }, unknown> =>
  "_tag" in policy && policy._tag === "FanOut"

/** Declares a fan-out policy. */
export const fanOut = <SourceEvent extends { readonly _tag: string }, SourceState>(
  policy: Omit<FanOutPolicy<SourceEvent, SourceState>, "_tag">,
): FanOutPolicy<SourceEvent, SourceState> => ({ _tag: "FanOut", ...policy })

/** Declares a policy (only types it). */
export const make = <SourceEvent extends { readonly _tag: string }, SourceState, TargetCommand>(
  policy: Policy<SourceEvent, SourceState, TargetCommand>,
): Policy<SourceEvent, SourceState, TargetCommand> => policy

/**
 * The policies the command handler applies after every decision. The composition root provides
 * the registry of every policy (`composition/Policies.ts`, through `EventPipeline.layerMemory` or
 * `PgDomain.layer`); a test of one aggregate alone may provide `layerNone`.
 */
export class Policies extends Context.Service<Policies, ReadonlyArray<AnyPolicy>>()("partnerpay/domain/Policies") {
  static readonly layer = (policies: ReadonlyArray<AnyPolicy>): Layer.Layer<Policies> =>
    Layer.succeed(Policies, policies)
  /** No policy: each command records its own aggregate's events only. */
  static readonly layerNone: Layer.Layer<Policies> = Policies.layer([])
}

/** The commands the policies issue for events just recorded by `source`, in event order. */
export const reactions = (
  policies: ReadonlyArray<AnyPolicy>,
  source: { readonly name: string },
  handled: { readonly events: ReadonlyArray<{ readonly _tag: string }>; readonly state: unknown },
  // biome-ignore lint/suspicious/noExplicitAny: a registry holds policies of every aggregate.
): ReadonlyArray<{ readonly policy: Policy<any, any, any>; readonly issued: Issued<unknown> }> =>
  handled.events.flatMap((event) =>
    policies.flatMap((policy) => {
      if (isFanOut(policy)) return []
      // biome-ignore lint/suspicious/noExplicitAny: a registry holds policies of every aggregate.
      const single = policy as Policy<any, any, any>
      if (single.source.name !== source.name || !single.reactsTo.includes(event._tag)) return []
      const issued: Issued<unknown> | undefined = single.react(event, handled.state)
      return issued === undefined ? [] : [{ policy: single, issued }]
    }),
  )

/** The fan-out policies reacting to each event just recorded by `source`, in event order. */
export const fanOuts = (
  policies: ReadonlyArray<AnyPolicy>,
  source: { readonly name: string },
  handled: { readonly events: ReadonlyArray<{ readonly _tag: string }>; readonly state: unknown },
): ReadonlyArray<{
  readonly policy: FanOutPolicy<{ readonly _tag: string }, unknown>
  readonly event: { readonly _tag: string }
}> =>
  handled.events.flatMap((event) =>
    policies.flatMap((policy) =>
      isFanOut(policy) && policy.source.name === source.name && policy.reactsTo.includes(event._tag)
        ? [{ policy, event }]
        : [],
    ),
  )
