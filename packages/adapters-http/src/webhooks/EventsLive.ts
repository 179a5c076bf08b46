/** Handlers of the `events` group: the calling partner's notifications of the last 30 days (`WebhookLog`). */
import { Traced, WebhookLog } from "@partnerpay/domain"
import { DateTime } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { requirePartner } from "../cross-cutting/Authentication.ts"
import * as Problem from "../cross-cutting/Problem.ts"
import { eventsRetentionDays } from "./EventsApi.ts"

export const EventsLive = HttpApiBuilder.group(Api, "events", (handlers) =>
  handlers.handle(
    "list",
    Traced.fn("EventsLive.list")(function* ({ query }) {
      const { partnerId } = yield* requirePartner
      const log = yield* WebhookLog.WebhookLog
      const page = yield* log.events(partnerId, {
        limit: query.limit ?? 20,
        startingAfter: query.startingAfter,
        maxAgeDays: eventsRetentionDays,
      })
      return {
        data: page.items.map((item) => ({
          id: item.id,
          event: item.eventType,
          data: item.data,
          createdAt: DateTime.formatIso(item.createdAt),
        })),
        hasMore: page.hasMore,
      }
    }, Problem.domainProblems),
  ),
)
