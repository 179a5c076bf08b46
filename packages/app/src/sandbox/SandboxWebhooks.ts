/**
 * `POST /Sandbox/Webhooks/Test` (sandbox only, partner token; not in the
 * OpenAPI document, like every sandbox route): queues a test notification
 * for the caller's webhook endpoint, so a partner can check its receiver
 * (reachability, signature verification) without causing a business event.
 *
 * The notification goes through the outbox like any other: the dispatcher
 * delivers it signed (`X-HMAC-Signature`, `X-Partnerpay-Signature`), with
 * retries, and it is listed by `GET /Webhooks/Deliveries` and `GET /Events`.
 * It is queued behind the partner's earlier webhooks (per-partner
 * order). Body: none, `{}`, or `{ "type": "<event>" }` naming any event of
 * the OpenAPI `webhooks` section: a sample of that event (its documented
 * example `Data`, `Timestamp` now), so a receiver's handling of each type can
 * be tried (`partnerpay trigger <EVENT>` calls it). Answer 202 `{ "id":
 * "<uuid>", "event": "<type or WEBHOOK_TEST>", "status": "pending" }`; without
 * a type the delivery's `Data` is `{ "Message": "...", "SentAt": "<ISO
 * instant>" }`. An unknown type or field: 400 naming it. Without a webhook URL
 * the event is recorded all the same (listed by `GET /Events`, so `partnerpay
 * listen` forwards it); its delivery fails at once with a last error that
 * points at `PUT /Webhooks/Endpoint`.
 */
import { Problem, Tokens, WebhookEvents } from "@partnerpay/adapters-http"
import { type Ids, Outbox, Traced } from "@partnerpay/domain"
import { DateTime, Effect, type Layer } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { asPartner, jsonBody, problem } from "./SandboxClock.ts"

const badRequest = (field: string, message: string) =>
  new Problem.BadRequest({ detail: `${field} ${message}`, code: "BAD_REQUEST", errors: [{ field, message }] })

/** The event type a test asks for (undefined: the plain test webhook), or a 400 naming what is wrong. */
const requestedType = Traced.fn("SandboxWebhooks.requestedType")(function* (
  request: HttpServerRequest.HttpServerRequest,
) {
  const length = Number(request.headers["content-length"] ?? "0")
  if (!(length > 0) && request.headers["transfer-encoding"] === undefined) return undefined
  const body = yield* jsonBody(request)
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return yield* Effect.fail(badRequest("body", "must be a JSON object"))
  for (const key of Object.keys(body))
    if (key !== "type") return yield* Effect.fail(badRequest(key, "is not a field of this operation"))
  const type = (body as { type?: unknown }).type
  if (type === undefined) return undefined
  if (typeof type !== "string" || !WebhookEvents.eventNames.includes(type))
    return yield* Effect.fail(badRequest("type", `must be one of ${WebhookEvents.eventNames.join(", ")}`))
  return type
})

/** The `Event` of a test webhook. */
export const testEvent = "WEBHOOK_TEST"

export const routes: Layer.Layer<never, never, HttpRouter.HttpRouter | Tokens.Tokens | Outbox.Outbox> = HttpRouter.use(
  Effect.fnUntraced(function* (router) {
    const tokens = yield* Tokens.Tokens
    const outbox = yield* Outbox.Outbox
    const sendTest = Traced.fn("SandboxWebhooks.sendTest")(
      function* (request: HttpServerRequest.HttpServerRequest, partnerId: Ids.PartnerId) {
        const type = yield* requestedType(request)
        const id = crypto.randomUUID()
        const now = yield* DateTime.now
        const event = type ?? testEvent
        const data =
          type === undefined
            ? { Message: "This is a test webhook from the partnerpay sandbox.", SentAt: DateTime.formatIso(now) }
            : { ...WebhookEvents.sampleData(type), Timestamp: DateTime.formatIso(now) }
        yield* outbox.record([{ id, partnerId, eventType: event, data, position: 0 }])
        return HttpServerResponse.jsonUnsafe({ id, event, status: "pending" }, { status: 202 })
      },
      (effect) =>
        effect.pipe(
          Effect.catchTag("BadRequest", problem),
          Effect.catchTag("EventStoreUnavailable", () =>
            problem(
              new Problem.ServiceUnavailable({
                detail: "The service is temporarily unavailable; retry later.",
                code: "SERVICE_UNAVAILABLE",
              }),
            ),
          ),
        ),
    )
    yield* router.add("POST", "/Sandbox/Webhooks/Test", (request) =>
      asPartner(tokens, request, (partnerId) => sendTest(request, partnerId)),
    )
  }),
)
