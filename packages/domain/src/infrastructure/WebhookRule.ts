/**
 * Webhook rules: which partner webhooks an event causes. A rule
 * is a pure mapping from events to the interface's webhook `Event` and
 * `Data`; it may read read models (already updated by the same append) for
 * data the event itself does not carry, such as the partner owning a payment
 * request. `Live` is added at delivery.
 *
 * Generic over the envelopes it reads, like a `Projection`: a rule names the
 * stream types it reads and the event pipeline gives it only their events.
 * The registry of every rule is `composition/Webhooks.ts`.
 */
import { DateTime, Effect, Option } from "effect"
import * as Traced from "../kernel/Traced.ts"
import type * as Envelope from "./Envelope.ts"
import type { EventStoreUnavailable } from "./EventStore.ts"
import type { Webhook } from "./Outbox.ts"
import { decodeDocument, type Projection, ReadModelStore } from "./ReadModel.ts"

/** One source of webhooks, e.g. company verification or payment request status. */
export interface WebhookRule<Env extends Envelope.Any = Envelope.Any> {
  /** The stream types whose events this rule reads; events of others are never routed to it. */
  readonly streamTypes: ReadonlyArray<Env["streamType"]>
  /** The webhooks one event causes (none for most events). */
  readonly webhooks: (event: Env) => Effect.Effect<ReadonlyArray<Webhook>, EventStoreUnavailable, ReadModelStore>
}

/** A rule of any envelope (the pipeline routes by stream type). */
// biome-ignore lint/suspicious/noExplicitAny: rules are contravariant in their envelope; the pipeline is generic over it.
export type AnyWebhookRule = WebhookRule<any>

/** Declares a rule (only types it). */
export const make = <Env extends Envelope.Any>(rule: WebhookRule<Env>): WebhookRule<Env> => rule

/** What one event announces: the partner to notify and the webhook's `Data`. */
export interface Announcement {
  readonly partnerId: string
  readonly data: Readonly<Record<string, unknown>>
}

/**
 * A rule whose events each announce at most one webhook of `eventType`, from the event alone (the
 * event names its partner): the notification's id is the event's, so a receiver de-duplicates retries.
 */
export const perEvent = <Env extends Envelope.Any>(options: {
  readonly streamTypes: ReadonlyArray<Env["streamType"]>
  readonly eventType: string
  readonly announce: (event: Env["event"]) => Announcement | undefined
}): WebhookRule<Env> => ({
  streamTypes: options.streamTypes,
  webhooks: (envelope) => {
    const announced = options.announce(envelope.event)
    return Effect.succeed(
      announced === undefined
        ? []
        : [
            {
              id: envelope.eventId,
              partnerId: announced.partnerId,
              eventType: options.eventType,
              data: announced.data,
              position: envelope.globalPosition,
            },
          ],
    )
  },
})

/**
 * A `perEvent` rule for the events that make a change a webhook announces (`changeOf`; undefined for
 * the others): to the partner the event names, Data from the event and its change (`data`), the
 * event's instant last as `Timestamp`.
 */
export const perChange = <
  Env extends Envelope.Any & { readonly event: { readonly partnerId: string; readonly at: DateTime.Utc } },
  Change,
>(options: {
  readonly streamTypes: ReadonlyArray<Env["streamType"]>
  readonly eventType: string
  readonly changeOf: (event: Env["event"]) => Change | undefined
  readonly data: (event: Env["event"], change: Change) => Readonly<Record<string, unknown>>
}): WebhookRule<Env> =>
  perEvent<Env>({
    streamTypes: options.streamTypes,
    eventType: options.eventType,
    announce: (event) => {
      const change = options.changeOf(event)
      if (change === undefined) return undefined
      return {
        partnerId: event.partnerId,
        data: { ...options.data(event, change), Timestamp: DateTime.formatIso(event.at) },
      }
    },
  })

/**
 * A rule whose events each announce at most one webhook of `eventType` about their document of
 * `projection` (already updated by the same append; the rule reads the projection's stream types):
 * nothing for the events that make no change (`changeOf`) or when the document is missing; else to
 * the document's partner, Data from the event, its change and the document (`data`), the event's
 * instant last as `Timestamp`. The notification's id is the event's, so a receiver de-duplicates
 * retries; `name` names the rule's span.
 */
export const perDocumentChange = <
  Env extends Envelope.Any & { readonly event: { readonly at: DateTime.Utc } },
  Doc extends { readonly partnerId: string },
  Change,
>(
  projection: Projection<Doc, Env>,
  options: {
    readonly name: string
    readonly eventType: string
    readonly changeOf: (event: Env["event"]) => Change | undefined
    readonly data: (event: Env["event"], change: Change, doc: Doc) => Readonly<Record<string, unknown>>
  },
): WebhookRule<Env> => ({
  // A projection that names no stream types (reads them all) gives a rule that reads none: name them.
  streamTypes: projection.streamTypes ?? [],
  webhooks: Traced.fn(options.name)(function* (
    envelope: Env,
  ): Effect.fn.Return<ReadonlyArray<Webhook>, EventStoreUnavailable, ReadModelStore> {
    const event = envelope.event
    const change = options.changeOf(event)
    const id = projection.key(envelope)
    if (change === undefined || id === undefined) return []
    const store = yield* ReadModelStore
    const stored = yield* store.get(projection.collection, id)
    if (Option.isNone(stored)) return []
    const doc = decodeDocument(projection, stored.value)
    return [
      {
        id: envelope.eventId,
        partnerId: doc.partnerId,
        eventType: options.eventType,
        data: { ...options.data(event, change, doc), Timestamp: DateTime.formatIso(event.at) },
        position: envelope.globalPosition,
      },
    ]
  }),
})

/**
 * Why a money movement failed, in webhook Data: the bank's return code and its reason
 * (`ReturnReason`), or, when the rail refused it without a code, `ReturnCode: null` and the rail's words
 * (`FailureReason`).
 */
export const failureData = (returnCode: string | undefined, reason: string) =>
  returnCode === undefined
    ? { ReturnCode: null, FailureReason: reason }
    : { ReturnCode: returnCode, ReturnReason: reason }
