/**
 * `POST /Sandbox/Webhooks/Test` (sandbox only, partner token; not in the
 * OpenAPI document, like every sandbox route): queues a test notification
 * for the caller's webhook endpoint, so a partner can check its receiver
 * (reachability, signature verification) without causing a business event.
 *
 * The notification goes through the outbox like any other: the dispatcher
 * delivers it signed (`X-HMAC-Signature`, `X-Partnerpay-Signature`), with
 * retries, and it is listed by `GET /Webhooks/Deliveries` and `GET /Events`.
 * It is queued behind the partner's earlier notifications (per-partner
 * order). Body: none, or `{}`. Answer 202
 * `{ "id": "test_<uuid>", "event": "WEBHOOK_TEST", "status": "pending" }`;
 * the delivery's `Data` is `{ "Message": "...", "SentAt": "<ISO instant>" }`.
 * No webhook URL configured: 422 WEBHOOK_NOT_CONFIGURED.
 */
import { Problem, Tokens } from "@partnerpay/adapters-http"
import { type Ids, Outbox, Traced, WebhookLog } from "@partnerpay/domain"
import { DateTime, Effect, type Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { asPartner, problem } from "./SandboxClock.ts"

/** The `Event` of a test webhook. */
export const testEvent = "WEBHOOK_TEST"

export const routes: Layer.Layer<
  never,
  never,
  HttpRouter.HttpRouter | Tokens.Tokens | Outbox.Outbox | WebhookLog.WebhookLog
> = HttpRouter.use(
  Effect.fnUntraced(function* (router) {
    const tokens = yield* Tokens.Tokens
    const outbox = yield* Outbox.Outbox
    const log = yield* WebhookLog.WebhookLog
    const sendTest = Traced.fn("SandboxWebhooks.sendTest")(
      function* (partnerId: Ids.PartnerId) {
        const endpoint = yield* log.endpoint(partnerId)
        if (endpoint === undefined) {
          return yield* problem(
            new Problem.RuleViolation({
              detail: "No webhook URL is configured for this partner; ask the operator to set one.",
              code: "WEBHOOK_NOT_CONFIGURED",
            }),
          )
        }
        const id = `test_${crypto.randomUUID()}`
        const now = yield* DateTime.now
        yield* outbox.record([
          {
            id,
            partnerId,
            eventType: testEvent,
            data: { Message: "This is a test webhook from the partnerpay sandbox.", SentAt: DateTime.formatIso(now) },
            position: 0,
          },
        ])
        return HttpServerResponse.jsonUnsafe({ id, event: testEvent, status: "pending" }, { status: 202 })
      },
      (effect) =>
        effect.pipe(
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
    yield* router.add("POST", "/Sandbox/Webhooks/Test", (request) => asPartner(tokens, request, sendTest))
  }),
)
