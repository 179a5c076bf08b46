/**
 * The partner's own webhooks (issue 14 section 3), so it can see what was
 * sent, what failed and why, ask for a redelivery, and learn its signing
 * secret. Not in the interface: decided in docs/api/webhooks.md.
 *
 * - `GET /Webhooks/Deliveries`: the partner's deliveries, newest first
 *   (commit order), `limit` / `startingAfter` / `hasMore` like every list.
 * - `POST /Webhooks/Deliveries/{deliveryId}/Redeliver`: a delivered or failed
 *   delivery is queued again (202); one still queued is 409; another
 *   partner's or an unknown id is 404.
 * - `GET /Webhooks/Endpoint`: the webhook URL, its subscribed event types and
 *   its signing secret (one is generated when none was configured); 404 when
 *   no URL is set.
 * - `PUT /Webhooks/Endpoint` (issue 26 section 1): the partner sets its URL
 *   and the event types it wants; a new signing secret is answered, the
 *   replaced one keeps signing deliveries (a second `v1=`) for 24 h.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication } from "../cross-cutting/Authentication.ts"
import * as Problem from "../cross-cutting/Problem.ts"
import { Limit } from "../payments/PaymentApi.ts"
import { eventNames } from "./WebhookEvents.ts"

/** A delivery (notification) id: the causing event's id. */
export const DeliveryId = Schema.String.check(
  Schema.isMinLength(1),
  Schema.isMaxLength(200, { message: "must be at most 200 characters" }),
).annotate({ description: "The delivery's id: the notification's id, sent as X-Partnerpay-Event-Id" })

export const Delivery = Schema.Struct({
  id: DeliveryId,
  event: Schema.String.annotate({ description: "The webhook's Event, e.g. PAYMENT_REQUEST_STATUS_CHANGED" }),
  status: Schema.Literals(["pending", "delivering", "delivered", "failed"]).annotate({
    description:
      "pending: queued (first attempt or retry at nextAttemptAt); delivering: being sent; delivered: your endpoint answered 2xx; failed: given up after 72 h of retries",
  }),
  attempts: Schema.Int.annotate({ description: "Attempts started so far" }),
  lastResponseStatus: Schema.NullOr(Schema.Int).annotate({
    description:
      "HTTP status of your endpoint's last answer; null when it has not answered (not tried yet, timeout, connection failed, address refused)",
  }),
  lastError: Schema.NullOr(Schema.String).annotate({ description: "Why the last attempt failed, if it did" }),
  createdAt: Schema.String.annotate({ description: "ISO 8601 instant the notification was recorded" }),
  deliveredAt: Schema.NullOr(Schema.String).annotate({
    description: "ISO 8601 instant your endpoint answered 2xx; null until delivered",
  }),
  nextAttemptAt: Schema.NullOr(Schema.String).annotate({ description: "When a pending delivery is next tried" }),
})

export const DeliveriesResponse = Schema.Struct({ data: Schema.Array(Delivery), hasMore: Schema.Boolean })

export const RedeliverResponse = Schema.Struct({ id: DeliveryId, status: Schema.Literal("pending") }).pipe(
  HttpApiSchema.status(202),
)

/** A webhook `Event` name of the API (WebhookEvents.ts). */
export const EventType = Schema.Literals(eventNames as readonly [string, ...Array<string>]).annotate({
  description: "A webhook Event (see the webhooks section)",
})

export const EventTypes = Schema.NullOr(Schema.Array(EventType)).annotate({
  description: "The webhook Events delivered to your endpoint; null: every Event",
})

export const EndpointResponse = Schema.Struct({
  url: Schema.String.annotate({ description: "Your webhook endpoint: every webhook is POSTed there" }),
  eventTypes: EventTypes,
  signingSecret: Schema.String.annotate({
    description: "Key of the HMAC-SHA256 signatures (X-Partnerpay-Signature, X-HMAC-Signature). Keep it secret.",
  }),
})

export const SetEndpointRequest = Schema.Struct({
  url: Schema.String.check(
    Schema.isMinLength(1),
    Schema.isMaxLength(2000, { message: "must be at most 2000 characters" }),
  ).annotate({
    description:
      "Your webhook endpoint, an absolute URL; in production a public https:// address (not loopback, private or link-local)",
  }),
  eventTypes: Schema.optionalKey(EventTypes),
})

export const SetEndpointResponse = Schema.Struct({
  ...EndpointResponse.fields,
  signingSecret: Schema.String.annotate({
    description:
      "The NEW signing secret, generated for this setting (GET /Webhooks/Endpoint shows it too). Keep it secret.",
  }),
  previousSecretExpiresAt: Schema.NullOr(Schema.String).annotate({
    description:
      "Until this ISO 8601 instant the replaced secret still signs deliveries (a second v1= in X-Partnerpay-Signature); null when there was none",
  }),
})

export const PageQuery = {
  limit: Schema.optionalKey(Limit),
  startingAfter: Schema.optionalKey(DeliveryId.annotate({ description: "The last id of the previous page" })),
}

export class DeliveriesApi extends HttpApiGroup.make("webhookDeliveries")
  .add(
    HttpApiEndpoint.get("list", "/Webhooks/Deliveries", {
      query: PageQuery,
      success: DeliveriesResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "List your webhook deliveries",
        description:
          "For partners: your webhook deliveries, newest first, with their state, attempts and your endpoint's last answer status. Pages: limit (1..100, default 20) and startingAfter (the last id of the previous page); hasMore says whether older ones follow.",
      }),
    ),
    HttpApiEndpoint.post("redeliver", "/Webhooks/Deliveries/:deliveryId/Redeliver", {
      params: { deliveryId: DeliveryId },
      success: RedeliverResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Redeliver a webhook",
        description:
          "For partners: queues a delivered or failed delivery again (202); it is sent with the same event id (X-Partnerpay-Event-Id), after your earlier queued deliveries. A delivery still pending or delivering is 409 DELIVERY_IN_PROGRESS; an unknown id, or another partner's, is 404.",
      }),
    ),
    HttpApiEndpoint.get("endpoint", "/Webhooks/Endpoint", {
      success: EndpointResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Your webhook endpoint and signing secret",
        description:
          "For partners: the URL your webhooks are sent to, the Events you subscribed to (null: all) and the secret they are signed with. A webhook set without a secret gets one generated (every delivery is signed). No webhook URL set: 404.",
      }),
    ),
    HttpApiEndpoint.put("setEndpoint", "/Webhooks/Endpoint", {
      payload: SetEndpointRequest,
      success: SetEndpointResponse,
      error: [...Problem.DomainProblems, Problem.BadRequest],
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Set your webhook endpoint (rolls the signing secret)",
        description:
          "For partners: sets the URL your webhooks are sent to and the Events you want (eventTypes omitted or null: all; each must be a webhook Event, else 400 naming eventTypes[i]). A notification of an Event you did not subscribe to is not sent (GET /Events still lists it; its delivery is failed with lastError saying so). A new signing secret is generated and answered; the previous one still signs for 24 h (previousSecretExpiresAt): meanwhile X-Partnerpay-Signature carries two v1= signatures, the new secret's first. The URL must be an absolute http(s) URL; in production a public https:// address (else 400 naming url, like the operator's setting). Unknown fields: 400.",
      }),
    ),
  )
  .middleware(Authentication)
  .annotateMerge(
    OpenApi.annotations({
      title: "Webhook deliveries",
      description: "Your outgoing webhooks: deliveries, redelivery, signing secret (see docs/api/webhooks.md)",
    }),
  ) {}
