/**
 * `GET /Events`: the partner's notifications of the last 30 days, newest
 * first (or oldest first: `order=asc`), with the payload its webhook carried
 * (`event`, `data`), so a partner that missed webhooks (endpoint down longer
 * than the retries, a bug) can reconcile by reading them, filtered by type,
 * resource and time; `GET /Events/{eventId}` reads one. `partnerpay listen`
 * follows them. Not in the interface: docs/api/webhooks.md.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Authentication } from "../cross-cutting/Authentication.ts"
import * as Problem from "../cross-cutting/Problem.ts"
import { DeliveryId, PageQuery } from "./DeliveriesApi.ts"
import { eventNames } from "./WebhookEvents.ts"

/** The `Event` of the sandbox's plain test webhook (`POST /Sandbox/Webhooks/Test`). */
export const testEventName = "WEBHOOK_TEST"

/** Every event type a partner may filter on: the documented webhooks and the sandbox's test. */
export const EventType = Schema.Literals([testEventName, ...eventNames]).annotate({
  description: "A webhook Event (see the webhooks section)",
})

const Instant = Schema.DateTimeUtcFromString.annotate({ description: "ISO 8601 instant" })

/** The filters and page of `GET /Events`. */
export const EventsQuery = {
  ...PageQuery,
  type: Schema.optionalKey(EventType),
  resourceId: Schema.optionalKey(
    Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(200)).annotate({
      description: "Only events whose data names this id (PaymentRequestId, ConsentId, CompanyId, ...)",
    }),
  ),
  createdFrom: Schema.optionalKey(Instant.annotate({ description: "Recorded at or after this instant" })),
  createdTo: Schema.optionalKey(Instant.annotate({ description: "Recorded before this instant" })),
  order: Schema.optionalKey(
    Schema.Literals(["asc", "desc"]).annotate({ description: "desc: newest first (default); asc: oldest first" }),
  ),
}

/** How far back `GET /Events` reaches. */
export const eventsRetentionDays = 30

export const EventItem = Schema.Struct({
  id: DeliveryId,
  event: Schema.String.annotate({ description: "The webhook's Event" }),
  data: Schema.Record(Schema.String, Schema.Unknown).annotate({ description: "The webhook's Data, as delivered" }),
  createdAt: Schema.String.annotate({ description: "ISO 8601 instant the notification was recorded" }),
})

export const EventsResponse = Schema.Struct({ data: Schema.Array(EventItem), hasMore: Schema.Boolean })

export class EventsApi extends HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.get("list", "/Events", {
      query: EventsQuery,
      success: EventsResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "List your events",
        description: `For partners: the notifications your webhooks carry (id = X-Partnerpay-Event-Id, event, data) of the last ${eventsRetentionDays} days (the retention), whether or not they were delivered; newest first, or oldest first with order=asc. Filters: type (an unknown type is 400), resourceId (an id the data names), createdFrom (inclusive) and createdTo (exclusive). Pages: limit (1..100, default 20) and startingAfter (the last id of the previous page); hasMore says whether more follow.`,
      }),
    ),
    HttpApiEndpoint.get("get", "/Events/:eventId", {
      params: { eventId: DeliveryId },
      success: EventItem,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Read one of your events",
        description: `For partners: one notification of the last ${eventsRetentionDays} days by its id (X-Partnerpay-Event-Id). Another partner's, or an older one, is 404.`,
      }),
    ),
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Events", description: "Your notifications, for reconciliation" })) {}
