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
 * - `GET /Webhooks/Endpoint`: the webhook URL and its signing secret (one is
 *   generated when none was configured); 404 when no URL is set.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication } from "../cross-cutting/Authentication.ts"
import * as Problem from "../cross-cutting/Problem.ts"
import { Limit } from "../payments/PaymentApi.ts"

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

export const EndpointResponse = Schema.Struct({
  url: Schema.String.annotate({ description: "Your webhook endpoint: every webhook is POSTed there" }),
  signingSecret: Schema.String.annotate({
    description: "Key of the HMAC-SHA256 signatures (X-Partnerpay-Signature, X-HMAC-Signature). Keep it secret.",
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
          "For partners: the URL your webhooks are sent to and the secret they are signed with. A webhook set without a secret gets one generated (every delivery is signed). No webhook URL set: 404.",
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
