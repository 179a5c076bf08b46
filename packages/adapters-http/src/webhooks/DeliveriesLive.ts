/**
 * Handlers of the `webhookDeliveries` group: the calling partner's deliveries,
 * redelivery and webhook endpoint, through the `WebhookLog` port (which only
 * ever reads the caller's rows). A URL the partner sets is checked by the
 * `WebhookTargets` port (the app's policy: public addresses only in production).
 */
import { DomainError, Traced, WebhookLog } from "@partnerpay/domain"
import { DateTime, Redacted } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { requirePartner } from "../cross-cutting/Authentication.ts"
import * as Problem from "../cross-cutting/Problem.ts"

const notHttpUrl = "must be an absolute http:// or https:// URL"

/** Whether `url` is an absolute http(s) URL with a host. */
const isHttpUrl = (url: string): boolean => {
  try {
    const parsed = new URL(url)
    return (parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.hostname !== ""
  } catch {
    return false
  }
}

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
        return {
          url: endpoint.url,
          eventTypes: endpoint.eventTypes,
          signingSecret: Redacted.value(endpoint.signingSecret),
        }
      }, Problem.domainProblems),
    )
    .handle(
      "setEndpoint",
      Traced.fn("DeliveriesLive.setEndpoint")(function* ({ payload }) {
        const { partnerId } = yield* requirePartner
        const url = payload.url.trim()
        const refused = isHttpUrl(url) ? yield* (yield* WebhookLog.WebhookTargets).check(url) : notHttpUrl
        if (refused !== undefined) {
          return yield* new Problem.BadRequest({
            detail: `url ${refused}`,
            code: "BAD_REQUEST",
            errors: [{ field: "url", message: refused }],
          })
        }
        const log = yield* WebhookLog.WebhookLog
        const set = yield* log.setEndpoint(partnerId, { url, eventTypes: payload.eventTypes ?? null })
        if (set === undefined) return yield* new DomainError.NotFound({ entity: "Partner" })
        return {
          url: set.url,
          eventTypes: set.eventTypes,
          signingSecret: Redacted.value(set.signingSecret),
          previousSecretExpiresAt: iso(set.previousSecretExpiresAt),
        }
      }, Problem.domainProblems),
    ),
)
