/**
 * The Outbox port: the partner webhooks that events cause are recorded in
 * the same unit of work as the events, so a webhook exists exactly when
 * its event committed. Dispatchers claim and deliver them later (the app).
 */
import { Context, Effect, Layer } from "effect"
import type { EventStoreUnavailable } from "./EventStore.ts"

export interface Webhook {
  /** Stable id, derived from the causing event (`<eventId>`), so receivers can de-duplicate. */
  readonly id: string
  readonly partnerId: string
  /** The webhook's `Event` field, e.g. COMPANY_VERIFICATION_STATUS_CHANGED. */
  readonly eventType: string
  /** The webhook's `Data` object, PascalCase fields as the interface shows them. */
  readonly data: Readonly<Record<string, unknown>>
  /** Global position of the causing event: delivery follows commit order per partner. */
  readonly position: number
}

export class Outbox extends Context.Service<
  Outbox,
  {
    record(notifications: ReadonlyArray<Webhook>): Effect.Effect<void, EventStoreUnavailable>
  }
>()("partnerpay/domain/Outbox") {
  /** Keeps notifications in memory, in recording order; `recorded` exposes them (tests, embedders). */
  static readonly layerMemory: Layer.Layer<Outbox | MemoryOutbox> = Layer.effectContext(
    Effect.sync(() => {
      const recorded: Array<Webhook> = []
      const seen = new Set<string>()
      const outbox = Outbox.of({
        record: (notifications) =>
          Effect.sync(() => {
            for (const notification of notifications) {
              if (seen.has(notification.id)) continue
              seen.add(notification.id)
              recorded.push(notification)
            }
          }),
      })
      return Context.make(Outbox, outbox).pipe(Context.add(MemoryOutbox, { recorded }))
    }),
  )
}

/** Read access to the in-memory outbox's notifications. */
export class MemoryOutbox extends Context.Service<MemoryOutbox, { readonly recorded: ReadonlyArray<Webhook> }>()(
  "partnerpay/domain/MemoryOutbox",
) {}
