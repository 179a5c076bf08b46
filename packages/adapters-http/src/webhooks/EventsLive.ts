/** Handlers of the `events` group: the calling partner's notifications of the last 30 days (`WebhookLog`). */
import { DomainError, Traced, WebhookLog } from "@partnerpay/domain"
import { DateTime, Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { requirePartner } from "../cross-cutting/Authentication.ts"
import * as Problem from "../cross-cutting/Problem.ts"
import { eventsRetentionDays } from "./EventsApi.ts"

const itemOf = (item: WebhookLog.EventView) => ({
  id: item.id,
  event: item.eventType,
  data: item.data,
  createdAt: DateTime.formatIso(item.createdAt),
})

export const EventsLive = HttpApiBuilder.group(Api, "events", (handlers) =>
  handlers
    .handle(
      "list",
      Traced.fn("EventsLive.list")(function* ({ query }) {
        const { partnerId } = yield* requirePartner
        const log = yield* WebhookLog.WebhookLog
        const page = yield* log.events(partnerId, {
          limit: query.limit ?? 20,
          startingAfter: query.startingAfter,
          type: query.type,
          resourceId: query.resourceId,
          createdFrom: query.createdFrom,
          createdTo: query.createdTo,
          order: query.order,
          maxAgeDays: eventsRetentionDays,
        })
        return { data: page.items.map(itemOf), hasMore: page.hasMore }
      }, Problem.domainProblems),
    )
    .handle(
      "get",
      Traced.fn("EventsLive.get")(function* ({ params }) {
        const { partnerId } = yield* requirePartner
        const log = yield* WebhookLog.WebhookLog
        const found = yield* log.event(partnerId, params.eventId, eventsRetentionDays)
        if (found === undefined) return yield* Effect.fail(new DomainError.NotFound({ entity: "Event" }))
        return itemOf(found)
      }, Problem.domainProblems),
    ),
)
