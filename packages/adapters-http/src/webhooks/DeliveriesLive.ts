/**
 * Handlers of the `webhookDeliveries` group: the calling partner's deliveries,
 * redelivery and webhook endpoint, through the `WebhookLog` port (which only
 * ever reads the caller's rows).
 */
import { DomainError, Traced, WebhookLog } from "@partnerpay/domain"
import { DateTime, Redacted } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { requirePartner } from "../cross-cutting/Authentication.ts"
import * as Problem from "../cross-cutting/Problem.ts"

const iso = (instant: DateTime.Utc | null): string | null => (instant === null ? null : DateTime.formatIso(instant))

export const toDelivery = (view: WebhookLog.DeliveryView) => ({
  id: view.id,
  event: view.eventType,
  status: view.status,
  attempts: view.attempts,
  lastResponseStatus: view.lastResponseStatus,
  lastError: view.lastError,
  createdAt: DateTime.formatIso(view.createdAt),
  deliveredAt: iso(view.deliveredAt),
  nextAttemptAt: iso(view.nextAttemptAt),
})

export const DeliveriesLive = HttpApiBuilder.group(Api, "webhookDeliveries", (handlers) =>
  handlers
    .handle(
      "list",
      Traced.fn("DeliveriesLive.list")(function* ({ query }) {
        const { partnerId } = yield* requirePartner
        const log = yield* WebhookLog.WebhookLog
        const page = yield* log.deliveries(partnerId, { limit: query.limit ?? 20, startingAfter: query.startingAfter })
        return { data: page.items.map(toDelivery), hasMore: page.hasMore }
      }, Problem.domainProblems),
    )
    .handle(
      "redeliver",
      Traced.fn("DeliveriesLive.redeliver")(function* ({ params }) {
        const { partnerId } = yield* requirePartner
        const log = yield* WebhookLog.WebhookLog
        const outcome = yield* log.redeliver(partnerId, params.deliveryId)
        if (outcome === "not found") return yield* new DomainError.NotFound({ entity: "Delivery" })
        if (outcome === "in progress") {
          return yield* new Problem.IllegalTransitionProblem({
            detail: "The delivery is still queued; it will be sent without a redelivery.",
            code: "DELIVERY_IN_PROGRESS",
            state: "pending",
          })
        }
        return { id: params.deliveryId, status: "pending" as const }
      }, Problem.domainProblems),
    )
    .handle(
      "endpoint",
      Traced.fn("DeliveriesLive.endpoint")(function* () {
        const { partnerId } = yield* requirePartner
        const log = yield* WebhookLog.WebhookLog
        const endpoint = yield* log.endpoint(partnerId)
        if (endpoint === undefined) return yield* new DomainError.NotFound({ entity: "Webhook endpoint" })
        return { url: endpoint.url, signingSecret: Redacted.value(endpoint.signingSecret) }
      }, Problem.domainProblems),
    ),
)
