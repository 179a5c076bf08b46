/**
 * The event pipeline: what happens atomically with every append. The new
 * events (typed when the appender has them, else decoded) go to the
 * projections that read their stream type, and the webhooks they cause
 * are recorded in the outbox, all inside the append's unit of work (with
 * PostgreSQL: written by the unit's one commit statement), so read models and
 * webhooks never disagree with the log. `layerMemory` assembles the complete
 * in-memory stack for tests and embedders, the policy registry included
 * (`Policy.Policies`, which the command handler applies after every decision).
 *
 * It sits beside the registries it runs (composition root of the domain):
 * the machinery it uses (`ReadModel.applyAll`, `Envelope.routed`,
 * the event store's append hook) is generic in `infrastructure/`.
 */

import { Effect, Layer } from "effect"
import * as Envelope from "../infrastructure/Envelope.ts"
import {
  type AppendHook,
  EventStore,
  EventStoreUnavailable,
  makeMemory,
  type RecordedEvent,
} from "../infrastructure/EventStore.ts"
import { type MemoryOutbox, Outbox } from "../infrastructure/Outbox.ts"
import type { Policies as PolicyRegistry } from "../infrastructure/Policy.ts"
import { type AnyProjection, applyAll, ReadModelStore } from "../infrastructure/ReadModel.ts"
import type * as WebhookRule from "../infrastructure/WebhookRule.ts"
import * as Held from "../kernel/Held.ts"
import * as Traced from "../kernel/Traced.ts"
import * as DomainEvents from "./DomainEvents.ts"
import * as Policies from "./Policies.ts"
import * as Projections from "./Projections.ts"
import * as Webhooks from "./Webhooks.ts"

export interface PipelineOptions {
  readonly projections?: ReadonlyArray<AnyProjection>
  readonly webhookRules?: ReadonlyArray<WebhookRule.AnyWebhookRule>
}

/** Builds the append hook from the read model store and the outbox in context. */
export const makeHook = Traced.fn("EventPipeline.makeHook")(function* (options: PipelineOptions = {}) {
  const store = yield* ReadModelStore
  const outbox = yield* Outbox
  const projections = options.projections ?? Projections.all
  const rules = options.webhookRules ?? Webhooks.rules
  // Provides the two services alone (one overlay each): merging a captured context into the fiber's
  // would copy both whole on every append. A command's fiber usually holds both already: then
  // nothing is provided (`Held`), so the append puts no overlay on its context.
  const hook: AppendHook = Effect.fnUntraced(
    function* (recorded: ReadonlyArray<RecordedEvent>) {
      const events = yield* Effect.forEach(recorded, DomainEvents.decode).pipe(
        Effect.mapError(
          (error) => new EventStoreUnavailable({ reason: `cannot project: ${error.message}`, cause: error }),
        ),
      )
      yield* applyAll(projections, events)
      for (const event of events) {
        for (const rule of Envelope.routed(rules, event.streamType)) {
          const webhooks = yield* rule.webhooks(event)
          if (webhooks.length > 0) yield* outbox.record(webhooks)
        }
      }
    },
    (effect) => effect.pipe(Held.provideService(ReadModelStore, store), Held.provideService(Outbox, outbox)),
  )
  return hook
})

/** Rebuilds read models from the whole log: clears each collection and replays every event in order. */
export const rebuild = Traced.fn("EventPipeline.rebuild")(function* (
  projections: ReadonlyArray<AnyProjection> = Projections.all,
  batchSize = 1000,
  /** Told the number of events replayed so far after each batch (progress of a long rebuild). */
  onBatch: (replayed: number) => Effect.Effect<void> = () => Effect.void,
) {
  const store = yield* EventStore
  const readModels = yield* ReadModelStore
  for (const projection of projections) yield* readModels.clear(projection.collection)
  let after = 0
  let count = 0
  while (true) {
    const batch = yield* store.readAll({ after, limit: batchSize })
    if (batch.length === 0) return count
    const events = yield* Effect.forEach(batch, DomainEvents.decode).pipe(
      Effect.mapError((error) => new EventStoreUnavailable({ reason: `cannot rebuild: ${error.message}` })),
    )
    yield* applyAll(projections, events)
    after = batch[batch.length - 1]!.globalPosition
    count += batch.length
    yield* onBatch(count)
  }
})

/**
 * The complete in-memory stack: an event store whose appends update the
 * in-memory read models and outbox, and the registry of every policy; the
 * unit of work and id generation are left to the caller
 * (UnitOfWork.layerMemory, IdGenerator.layerRandom).
 */
export const layerMemory = (
  options: PipelineOptions = {},
): Layer.Layer<EventStore | ReadModelStore | Outbox | MemoryOutbox | PolicyRegistry> => {
  const base = Layer.merge(ReadModelStore.layerMemory, Outbox.layerMemory)
  const store = Layer.effect(
    EventStore,
    Effect.map(makeHook(options), (onAppend) => makeMemory({ onAppend })),
  )
  return Layer.provideMerge(Policies.layer, Layer.provideMerge(store, base))
}
