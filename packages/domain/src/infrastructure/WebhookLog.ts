/**
 * The WebhookLog port: what a partner may see of its own webhooks, so it can
 * reconcile after missing some (issue 14 section 3). Every operation takes the
 * caller's partner id and only ever touches that partner's rows: another
 * partner's delivery is "not found", never "forbidden".
 *
 * - `endpoint`: the partner's webhook URL and signing secret. A partner whose
 *   URL has no secret gets one generated here (and stored), so no delivery is
 *   ever unsigned.
 * - `deliveries`: the partner's notifications with their delivery state,
 *   newest first (commit order), cursor-paginated.
 * - `events`: the partner's notifications with their payload (the webhook's
 *   `Event` and `Data`), newest first, recorded in the last `maxAgeDays` days
 *   (by the clock that dated the rows: the store's, not a sandbox clock).
 * - `redeliver`: queues a delivered or failed notification again.
 * - `setEndpoint`: the partner sets its own URL and subscribed types; a new
 *   signing secret is generated and answered, the replaced one keeps signing
 *   deliveries (a second `v1=`) for `previousSecretGraceMillis` (24 h).
 *   The URL must pass the `WebhookTargets` check first (the caller's job).
 *
 * Pages follow the API's convention (`limit`, `startingAfter`: the last id of
 * the previous page; `hasMore`): an id that is not one of the partner's rows
 * gives an empty page, as elsewhere (it reveals nothing about other partners).
 */
import { Context, DateTime, Effect, Layer, Redacted } from "effect"
import type { EventStoreUnavailable } from "./EventStore.ts"
import { MemoryOutbox } from "./Outbox.ts"

declare const crypto: { getRandomValues<T extends Uint8Array>(array: T): T }

export type WebhookDeliveryStatus = "pending" | "delivering" | "delivered" | "failed"

export interface DeliveryView {
  readonly id: string
  readonly eventType: string
  readonly status: WebhookDeliveryStatus
  /** Attempts started so far. */
  readonly attempts: number
  /** HTTP status of the receiver's last answer; null when none (not tried yet, or no answer). */
  readonly lastResponseStatus: number | null
  readonly lastError: string | null
  readonly createdAt: DateTime.Utc
  readonly deliveredAt: DateTime.Utc | null
  /** When the next attempt is due (pending rows only). */
  readonly nextAttemptAt: DateTime.Utc | null
}

export interface EventView {
  readonly id: string
  readonly eventType: string
  readonly data: Readonly<Record<string, unknown>>
  readonly createdAt: DateTime.Utc
}

export interface WebhookPage<A> {
  readonly items: ReadonlyArray<A>
  /** More (older) rows follow the last item. */
  readonly hasMore: boolean
}

/** Which of a partner's events a page holds, and in which order. */
export interface EventFilter {
  /** Only this webhook `Event`. */
  readonly type?: string | undefined
  /** Only events whose `Data` names this id (any `...Id` field). */
  readonly resourceId?: string | undefined
  /** Recorded at or after this instant. */
  readonly createdFrom?: DateTime.Utc | undefined
  /** Recorded before this instant. */
  readonly createdTo?: DateTime.Utc | undefined
  /** Oldest first (`asc`) or newest first (`desc`, the default). */
  readonly order?: "asc" | "desc" | undefined
}

/** Whether `data` names `id` in one of its `...Id` fields. */
export const namesResource = (data: Readonly<Record<string, unknown>>, id: string): boolean =>
  Object.entries(data).some(([key, value]) => key.endsWith("Id") && value === id)

export interface WebhookPageRequest {
  readonly limit: number
  /** The last id of the previous page. */
  readonly startingAfter?: string | undefined
}

export interface WebhookEndpoint {
  readonly url: string
  readonly signingSecret: Redacted.Redacted<string>
  /** The webhook `Event` names delivered; null: every type. */
  readonly eventTypes: ReadonlyArray<string> | null
}

/** What a partner sets: its URL and the event types it wants (null: all). */
export interface EndpointSetting {
  readonly url: string
  readonly eventTypes: ReadonlyArray<string> | null
}

/** The endpoint after a roll: the new secret (shown once), and until when the replaced one still signs. */
export interface RolledEndpoint extends WebhookEndpoint {
  readonly previousSecretExpiresAt: DateTime.Utc | null
}

/** How long a replaced signing secret keeps signing deliveries (Stripe's roll: 24 h). */
export const previousSecretGraceMillis = 24 * 60 * 60 * 1000

/** Whether an endpoint subscribed to `eventType` gets it delivered. */
export const isSubscribed = (eventTypes: ReadonlyArray<string> | null | undefined, eventType: string): boolean =>
  eventTypes === null || eventTypes === undefined || eventTypes.includes(eventType)

/**
 * Which webhook URLs the service may call: `check` answers why a URL is refused (in production, one that is
 * or resolves to a non-public address), or undefined when it may be used. Provided by the app
 * (WebhookTarget.ts), the same check the operator's setting goes through.
 */
export class WebhookTargets extends Context.Service<
  WebhookTargets,
  { check(url: string): Effect.Effect<string | undefined> }
>()("partnerpay/domain/WebhookTargets") {
  /** Every URL allowed (the sandbox's policy; in-memory tests). */
  static readonly layerAllowAll: Layer.Layer<WebhookTargets> = Layer.succeed(
    WebhookTargets,
    WebhookTargets.of({ check: () => Effect.succeed(undefined) }),
  )
}

export type RedeliverOutcome = "queued" | "not found" | "in progress"

export class WebhookLog extends Context.Service<
  WebhookLog,
  {
    endpoint(partnerId: string): Effect.Effect<WebhookEndpoint | undefined, EventStoreUnavailable>
    deliveries(
      partnerId: string,
      page: WebhookPageRequest,
    ): Effect.Effect<WebhookPage<DeliveryView>, EventStoreUnavailable>
    events(
      partnerId: string,
      page: WebhookPageRequest & EventFilter & { readonly maxAgeDays: number },
    ): Effect.Effect<WebhookPage<EventView>, EventStoreUnavailable>
    /** One of the partner's events of the last `maxAgeDays` days (undefined: none such, or another partner's). */
    event(
      partnerId: string,
      id: string,
      maxAgeDays: number,
    ): Effect.Effect<EventView | undefined, EventStoreUnavailable>
    redeliver(partnerId: string, id: string): Effect.Effect<RedeliverOutcome, EventStoreUnavailable>
    /** Sets the partner's endpoint with a new signing secret (undefined: no such partner). */
    setEndpoint(
      partnerId: string,
      setting: EndpointSetting,
    ): Effect.Effect<RolledEndpoint | undefined, EventStoreUnavailable>
  }
>()("partnerpay/domain/WebhookLog") {
  /**
   * In memory, over the `MemoryOutbox` (tests, embedders): nothing is ever delivered there, so every
   * notification is pending (a redelivery is "in progress"); an endpoint exists once the partner set one
   * (`setEndpoint`; secrets are random, the replaced one kept for the grace period).
   */
  static readonly layerMemory: Layer.Layer<WebhookLog, never, MemoryOutbox> = Layer.effect(
    WebhookLog,
    Effect.gen(function* () {
      const { recorded } = yield* MemoryOutbox
      const own = (partnerId: string, page: WebhookPageRequest & EventFilter) => {
        const ordered = recorded.filter(
          (n) =>
            n.partnerId === partnerId &&
            (page.type === undefined || n.eventType === page.type) &&
            (page.resourceId === undefined || namesResource(n.data, page.resourceId)),
        )
        const rows = page.order === "asc" ? ordered : ordered.reverse()
        const start = page.startingAfter === undefined ? 0 : rows.findIndex((n) => n.id === page.startingAfter) + 1
        const from = page.startingAfter !== undefined && start === 0 ? rows.length : start
        return { rows: rows.slice(from, from + page.limit), hasMore: from + page.limit < rows.length }
      }
      const epoch = DateTime.makeUnsafe(0)
      const endpoints = new Map<string, WebhookEndpoint>()
      return WebhookLog.of({
        endpoint: (partnerId) => Effect.sync(() => endpoints.get(partnerId)),
        setEndpoint: Effect.fnUntraced(function* (partnerId, setting) {
          const now = yield* DateTime.now
          const bytes = crypto.getRandomValues(new Uint8Array(32))
          const secret = `whsec_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`
          const hadOne = endpoints.has(partnerId)
          const endpoint: WebhookEndpoint = { ...setting, signingSecret: Redacted.make(secret) }
          endpoints.set(partnerId, endpoint)
          return {
            ...endpoint,
            previousSecretExpiresAt: hadOne ? DateTime.add(now, { milliseconds: previousSecretGraceMillis }) : null,
          }
        }),
        deliveries: (partnerId, page) =>
          Effect.sync(() => {
            const { rows, hasMore } = own(partnerId, page)
            const items = rows.map(
              (n): DeliveryView => ({
                id: n.id,
                eventType: n.eventType,
                status: "pending",
                attempts: 0,
                lastResponseStatus: null,
                lastError: null,
                createdAt: epoch,
                deliveredAt: null,
                nextAttemptAt: epoch,
              }),
            )
            return { items, hasMore }
          }),
        events: (partnerId, page) =>
          Effect.sync(() => {
            const { rows, hasMore } = own(partnerId, page)
            return {
              items: rows.map((n) => ({ id: n.id, eventType: n.eventType, data: n.data, createdAt: epoch })),
              hasMore,
            }
          }),
        event: (partnerId, id) =>
          Effect.sync(() => {
            const found = recorded.find((n) => n.id === id && n.partnerId === partnerId)
            return found === undefined
              ? undefined
              : { id: found.id, eventType: found.eventType, data: found.data, createdAt: epoch }
          }),
        redeliver: (partnerId, id) =>
          Effect.succeed(
            recorded.some((n) => n.id === id && n.partnerId === partnerId)
              ? ("in progress" as const)
              : ("not found" as const),
          ),
      })
    }),
  )
}
