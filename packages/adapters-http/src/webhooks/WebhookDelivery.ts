/**
 * One delivery of an outgoing webhook, as the partner receives it: the body
 * (the envelope `{ Live, Event, Data }`) and the headers
 * (`app/src/workers/WebhookDispatcher.ts` sends them). SIGNATURES: the one place
 * where the signature headers are documented; the receiver verifies one of them
 * with its signing secret. A new delivery header: add it to `deliveryHeaders`.
 */
import { Schema } from "effect"

/** The body of a delivery: `{ Live, Event, Data }`. */
export const envelope = (name: string, data: Schema.Top) =>
  Schema.Struct({
    Live: Schema.Boolean.annotate({ description: "true when sent from production, false from the sandbox" }),
    Event: Schema.Literal(name).annotate({ description: "The event's name" }),
    Data: data.annotate({ description: "The event's data" }),
  })

/** One header of a delivery, as the OpenAPI `webhooks` section documents it. */
export interface DeliveryHeader {
  readonly name: string
  readonly description: string
  readonly required: boolean
  readonly schema: Record<string, unknown>
  readonly example: string
}

const eventId = { schema: { type: "string", format: "uuid" }, example: "6f1e2d3c-4b5a-4987-8a6b-5c4d3e2f1a0b" }
const unixSeconds = { schema: { type: "string", pattern: "^[0-9]+$" }, example: "1795425300" }

/** A header sent on every delivery. */
const always = (
  name: string,
  description: string,
  value: Pick<DeliveryHeader, "schema" | "example">,
): DeliveryHeader => ({ name, description, required: true, ...value })

/** A header sent only when the partner has a signing secret. */
const whenSigned = (
  name: string,
  description: string,
  value: Pick<DeliveryHeader, "schema" | "example">,
): DeliveryHeader => ({
  name,
  description: `${description} Sent when a signing secret is configured.`,
  required: false,
  ...value,
})

/** The headers of every delivery. */
export const deliveryHeaders: ReadonlyArray<DeliveryHeader> = [
  always(
    "X-Partnerpay-Event-Id",
    "The notification id (the causing event's id): the same on every retry of the event; delivery is at least once, so de-duplicate on it.",
    eventId,
  ),
  always(
    "X-Partnerpay-Delivery-Attempt",
    "1 for the first attempt, then 2, 3, ... (retries with exponential backoff for up to 72 hours).",
    { schema: { type: "string", pattern: "^[1-9][0-9]*$" }, example: "1" },
  ),
  whenSigned(
    "X-HMAC-Signature",
    "`sha256=<hex>`: hex HMAC-SHA256 of the exact body bytes with the partner's signing secret.",
    {
      schema: { type: "string", pattern: "^sha256=[0-9a-f]{64}$" },
      example: "sha256=3b9c358f36f0a31b7a1e2d8e5f4c6b7a8d9e0f1a2b3c4d5e6f708192a3b4c5d6",
    },
  ),
  whenSigned(
    "X-Partnerpay-Signature",
    "`t=<unix seconds>,v1=<hex>`: v1 is the hex HMAC-SHA256, with the partner's signing secret, of `t.eventId.body` (the timestamp, a dot, the X-Partnerpay-Event-Id value, a dot, the exact body bytes). Compare t with your clock to refuse replayed deliveries.",
    {
      schema: { type: "string", pattern: "^t=[0-9]+,v1=[0-9a-f]{64}$" },
      example: "t=1795425300,v1=5f0c1e2d3b4a59687f6e5d4c3b2a19087f6e5d4c3b2a19087f6e5d4c3b2a1908",
    },
  ),
  always(
    "webhook-id",
    "Standard Webhooks (standardwebhooks.com): the event id, the same as X-Partnerpay-Event-Id.",
    eventId,
  ),
  always("webhook-timestamp", "Standard Webhooks: the unix seconds the delivery was signed at.", unixSeconds),
  always(
    "webhook-signature",
    'Standard Webhooks: `v1,<base64 HMAC-SHA256 of "webhook-id.webhook-timestamp.body">` keyed with the UTF-8 bytes of the partner\'s signing secret; during a secret roll, one `v1,<signature>` per valid secret separated by a space (the new secret\'s first). The `standardwebhooks` library verifies a delivery with `new Webhook("whsec_" + base64(signingSecret)).verify(body, headers)`.',
    {
      schema: { type: "string", pattern: "^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$" },
      example: "v1,XwweLTs6WWh/bl1MOyoZCH9uXUw7KhkIf25dTDsqGQg=",
    },
  ),
]
