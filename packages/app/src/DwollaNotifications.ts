/**
 * `POST /ProviderWebhooks/Dwolla`: Dwolla's webhooks (the subscription's URL),
 * served in production when a port is on Dwolla. Not part of the partner
 * interface; no bearer token: the signature is the proof.
 *
 * - verified first (`X-Request-Signature-SHA-256`, `providers/DwollaWebhooks.ts`):
 *   a missing or wrong signature is 401 and nothing is read further;
 * - idempotent by Dwolla's event id: an id already recorded
 *   (`provider_notifications`, migration 38) is answered 200 and changes
 *   nothing (Dwolla's retries, a replay);
 * - applied, then recorded: a customer's verdict goes to the company whose KYB
 *   submission is that customer (`Companies.completeKyb`, the same decision as
 *   the KYB worker's polls: whichever comes first decides, the other changes
 *   nothing); an event about nothing of ours is recorded and acknowledged;
 * - answered fast (no call to Dwolla): 200; a database failure 503, so that
 *   Dwolla sends it again.
 */

import { Problem, RequestRecord } from "@partnerpay/adapters-http"
import { PgProviderNotifications, PgWorkClaims } from "@partnerpay/adapters-pg"
import { Companies, Ids, Traced } from "@partnerpay/domain"
import { Effect, Layer, type Redacted } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import type { SqlClient } from "effect/sql/SqlClient"
import * as DwollaWebhooks from "./providers/DwollaWebhooks.ts"

export const path = "/ProviderWebhooks/Dwolla"

const provider = "Dwolla"

const problem = (value: Problem.Problem) =>
  Effect.withFiber((fiber) => Problem.toResponse(value, RequestRecord.correlationIdOf(fiber)))

const unauthorized = new Problem.Unauthorized({
  detail: "The webhook is not signed with the Dwolla webhook subscription's secret.",
  code: "UNAUTHORIZED",
})

/** Applies a verified event's action (the domain decides). */
const apply = Traced.fn("DwollaNotifications.apply")(function* (event: DwollaWebhooks.Event) {
  const action = DwollaWebhooks.actionOf(event)
  if (action._tag === "None") return "ignored" as const
  const company = yield* PgWorkClaims.companyOfKybSubmission(action.customerId)
  if (company === undefined) return "unknown" as const
  const completed = yield* Effect.result(
    Companies.completeKyb(
      Ids.CompanyId.make(company.id),
      action.outcome,
      action.outcome === "Rejected" ? `Dwolla: ${event.topic}` : undefined,
    ),
  )
  if (completed._tag === "Success") return "applied" as const
  const error = completed.failure
  // Another verdict already recorded (or a lost race): nothing to change.
  if (error._tag === "EventStoreUnavailable") return yield* Effect.fail(error)
  return "refused" as const
})

/** One webhook: verified, deduplicated, applied, recorded. */
const receive = Traced.fn("DwollaNotifications.receive")(function* (
  secret: Redacted.Redacted<string>,
  request: HttpServerRequest.HttpServerRequest,
) {
  const body = yield* request.text.pipe(Effect.orElseSucceed(() => undefined))
  if (body === undefined || !DwollaWebhooks.isSigned(secret, request.headers[DwollaWebhooks.signatureHeader], body)) {
    yield* Effect.logWarning("Dwolla webhook refused: not signed with the subscription's secret")
    return yield* problem(unauthorized)
  }
  const decoded = yield* Effect.result(DwollaWebhooks.decodeEvent(body))
  if (decoded._tag === "Failure") return yield* problem(Problem.badRequest("Payload", decoded.failure.issue))
  const event = decoded.success
  const handled = yield* Effect.result(
    Effect.gen(function* () {
      if (yield* PgProviderNotifications.seen(provider, event.id)) return "repeated" as const
      const outcome = yield* apply(event)
      yield* PgProviderNotifications.record(provider, event.id, event.topic, event.resourceId)
      return outcome
    }),
  )
  if (handled._tag === "Failure") {
    yield* Effect.logWarning("Dwolla webhook not recorded (Dwolla sends it again)", {
      eventId: event.id,
      topic: event.topic,
    })
    return yield* problem(new Problem.ServiceUnavailable({ detail: "Try again later.", code: "SERVICE_UNAVAILABLE" }))
  }
  yield* Effect.logInfo("Dwolla webhook", { eventId: event.id, topic: event.topic, outcome: handled.success })
  return HttpServerResponse.empty({ status: 200 })
})

/** What applying a webhook needs (the domain's stores and the database, provided by the service). */
export type Requirements = Effect.Services<ReturnType<typeof Companies.completeKyb>> | SqlClient

/** The route, where a port is on Dwolla (its webhook secret); no route at all otherwise (404). */
export const routes = (
  secret: Redacted.Redacted<string> | undefined,
): Layer.Layer<never, never, HttpRouter.HttpRouter | Requirements> =>
  secret === undefined
    ? Layer.empty
    : HttpRouter.use(
        Effect.fnUntraced(function* (router) {
          const context = yield* Effect.context<Requirements>()
          yield* router.add("POST", path, (request) => receive(secret, request).pipe(Effect.provide(context)))
        }),
      )
