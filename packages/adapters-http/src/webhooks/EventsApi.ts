/**
 * `GET /Events`: the partner's notifications of the last 30 days, newest
 * first, with the payload its webhook carried (`event`, `data`), so a partner
 * that missed webhooks (endpoint down longer than the retries, a bug) can
 * reconcile by reading them. Not in the interface: docs/api/webhooks.md.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Authentication } from "../cross-cutting/Authentication.ts"
import * as Problem from "../cross-cutting/Problem.ts"
import { DeliveryId, PageQuery } from "./DeliveriesApi.ts"

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
      query: PageQuery,
      success: EventsResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "List your events",
        description: `For partners: the notifications your webhooks carry (id = X-Partnerpay-Event-Id, event, data), newest first, of the last ${eventsRetentionDays} days, whether or not they were delivered. Pages: limit (1..100, default 20) and startingAfter (the last id of the previous page); hasMore says whether older ones follow.`,
      }),
    ),
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Events", description: "Your notifications, for reconciliation" })) {}
