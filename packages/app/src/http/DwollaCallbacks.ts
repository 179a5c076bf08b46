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
 *   nothing); Dwolla asking for documents or the data again is recorded on that
 *   company (`Companies.requireKybAction`, once per requirement); a transfer's outcome goes to the movement whose provider
 *   reference it is (`MoneyMovements.recordNotification` for a debit or a
 *   refund, `Payouts.recordOutcome` for a payout: the same decisions as the
 *   pollers'; a failed transfer's return code is asked of Dwolla,
 *   and so is the correlation id (our movement id) of a transfer whose
 *   reference is not recorded yet: the webhook came before the originator
 *   recorded it); an event about nothing of ours is recorded and acknowledged;
 * - answered fast: 200; a database failure (or Dwolla not answering the
 *   return code) 503, so that Dwolla sends it again.
 */

import { Problem, RequestRecord } from "@partnerpay/adapters-http"
import { PgMovementReferences, PgProviderCallbacks, PgWorkClaims } from "@partnerpay/adapters-pg"
import {
  Companies,
  Ids,
  type MoneyMovement,
  MoneyMovements,
  Payouts,
  Traced,
  type TransferEvents,
} from "@partnerpay/domain"
import type { Dwolla } from "dwolla"
import { Effect, Layer } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import type { SqlClient } from "effect/sql/SqlClient"
import * as DwollaClient from "../providers/DwollaClient.ts"
import * as DwollaMoneyMovement from "../providers/DwollaMoneyMovement.ts"
import * as DwollaWebhooks from "../providers/DwollaWebhooks.ts"
import * as KybWorker from "../workers/KybWorker.ts"

export const path = "/ProviderWebhooks/Dwolla"

const provider = "Dwolla"

const problem = (value: Problem.Problem) =>
  Effect.withFiber((fiber) => Problem.toResponse(value, RequestRecord.correlationIdOf(fiber)))

const unauthorized = new Problem.Unauthorized({
  detail: "The webhook is not signed with the Dwolla webhook subscription's secret.",
  code: "UNAUTHORIZED",
})

/** A company's verdict (the domain decides; another verdict already recorded changes nothing). */
const applyVerdict = Traced.fn("DwollaCallbacks.applyVerdict")(function* (
  event: DwollaWebhooks.Event,
  customerId: string,
  outcome: "Verified" | "Rejected" | "Suspended",
) {
  const company = yield* PgWorkClaims.companyOfKybSubmission(customerId)
  if (company === undefined) return "unknown" as const
  const companyId = Ids.CompanyId.make(company.id)
  // A suspension: Verified -> Suspended, not verified yet -> Rejected (the domain decides).
  const completed = yield* Effect.result(
    outcome === "Suspended"
      ? Companies.suspend(companyId, `Dwolla: ${event.topic}`)
      : Companies.completeKyb(companyId, outcome, outcome === "Rejected" ? `Dwolla: ${event.topic}` : undefined),
  )
  if (completed._tag === "Failure" && completed.failure._tag === "EventStoreUnavailable") {
    return yield* Effect.fail(completed.failure)
  }
  // Decided: the KYB worker has nothing left to poll for it.
  yield* PgWorkClaims.finish(KybWorker.pollKind, company.id)
  return completed._tag === "Success" ? ("applied" as const) : ("refused" as const)
})

/** What Dwolla asks before deciding on a company (the domain records it once; after the verdict, nothing). */
const applyRequirement = Traced.fn("DwollaCallbacks.applyRequirement")(function* (
  customerId: string,
  requirement: "DocumentRequired" | "RetryRequired",
) {
  const company = yield* PgWorkClaims.companyOfKybSubmission(customerId)
  if (company === undefined) return "unknown" as const
  const required = yield* Effect.result(Companies.requireKybAction(Ids.CompanyId.make(company.id), requirement))
  if (required._tag === "Failure" && required.failure._tag === "EventStoreUnavailable") {
    return yield* Effect.fail(required.failure)
  }
  yield* Effect.logWarning("Dwolla asks for more to verify a company (its dashboard)", { customerId, requirement })
  return required._tag === "Success" && required.success.changed ? ("applied" as const) : ("unchanged" as const)
})

/** A transfer's outcome (the domain decides; a repeat, or a stale one, changes nothing). */
const applyTransfer = Traced.fn("DwollaCallbacks.applyTransfer")(function* (
  dwolla: Dwolla,
  transferId: string,
  outcome: "Settled" | "Failed" | "Cancelled",
) {
  // Not found by its reference: the webhook may come before the originator recorded it; the transfer's
  // correlation id (our movement id) names it, and recording the outcome records the reference first.
  const referenced = yield* PgMovementReferences.movementOf(transferId)
  const correlationId =
    referenced === undefined ? yield* DwollaMoneyMovement.correlationOf(dwolla, transferId) : undefined
  const movement =
    referenced ?? (correlationId === undefined ? undefined : yield* PgMovementReferences.movementById(correlationId))
  if (movement === undefined) return "unknown" as const
  const returnCode =
    outcome === "Failed" ? yield* DwollaMoneyMovement.failureCode(dwolla, transferId) : ("R06" as const)
  const decided: MoneyMovement.MovementOutcome =
    outcome === "Settled" ? { status: "Settled" } : { status: "Failed", returnCode }
  if (movement._tag === "Payout") {
    const paid = yield* Effect.result(Payouts.recordOutcome(Ids.PayoutId.make(movement.payoutId), decided))
    if (paid._tag === "Success") return "applied" as const
    if (paid.failure._tag === "EventStoreUnavailable") return yield* Effect.fail(paid.failure)
    return "refused" as const
  }
  const recorded = yield* Effect.result(
    MoneyMovements.recordNotification({
      movement:
        movement._tag === "Debit"
          ? { _tag: "Debit", transferId: Ids.TransferId.make(movement.transferId) }
          : {
              _tag: "Credit",
              transferId: Ids.TransferId.make(movement.transferId),
              refundId: movement.refundId as TransferEvents.RefundId,
            },
      providerReference: transferId,
      outcome: decided,
    }),
  )
  if (recorded._tag === "Success") return "applied" as const
  if (recorded.failure._tag === "EventStoreUnavailable") return yield* Effect.fail(recorded.failure)
  return "refused" as const
})

/** Applies a verified event's action. */
const apply = (dwolla: Dwolla, event: DwollaWebhooks.Event) => {
  const action = DwollaWebhooks.actionOf(event)
  switch (action._tag) {
    case "None":
      return Effect.succeed("ignored" as const)
    case "KybRequirement":
      return applyRequirement(action.customerId, action.requirement)
    case "KybVerdict":
      return applyVerdict(event, action.customerId, action.outcome)
    case "TransferOutcome":
      return applyTransfer(dwolla, action.transferId, action.outcome)
  }
}

/** One webhook: verified, deduplicated, applied, recorded. */
const receive = Traced.fn("DwollaCallbacks.receive")(function* (
  config: DwollaClient.DwollaConfig,
  dwolla: Dwolla,
  request: HttpServerRequest.HttpServerRequest,
) {
  const secrets = [config.webhookSecret, config.previousWebhookSecret]
  const body = yield* request.text.pipe(Effect.orElseSucceed(() => undefined))
  if (
    body === undefined ||
    !DwollaWebhooks.isSignedByAny(secrets, request.headers[DwollaWebhooks.signatureHeader], body)
  ) {
    yield* Effect.logWarning("Dwolla webhook refused: not signed with the subscription's secret")
    return yield* problem(unauthorized)
  }
  const decoded = yield* Effect.result(DwollaWebhooks.decodeEvent(body))
  if (decoded._tag === "Failure") return yield* problem(Problem.badRequest("Payload", decoded.failure.issue))
  const event = decoded.success
  const handled = yield* Effect.result(
    Effect.gen(function* () {
      if (yield* PgProviderCallbacks.seen(provider, event.id)) return "repeated" as const
      const outcome = yield* apply(dwolla, event)
      yield* PgProviderCallbacks.record(provider, event.id, event.topic, event.resourceId)
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
export type Requirements =
  | Effect.Services<ReturnType<typeof Companies.completeKyb>>
  | Effect.Services<ReturnType<typeof MoneyMovements.recordNotification>>
  | Effect.Services<ReturnType<typeof Payouts.recordOutcome>>
  | SqlClient

/** The route, where a port is on Dwolla (its settings and webhook secret); no route at all otherwise (404). */
export const routes = (
  config: DwollaClient.DwollaConfig | undefined,
): Layer.Layer<never, never, HttpRouter.HttpRouter | Requirements> =>
  config === undefined
    ? Layer.empty
    : HttpRouter.use(
        Effect.fnUntraced(function* (router) {
          const context = yield* Effect.context<Requirements>()
          const dwolla = DwollaClient.client(config)
          yield* router.add("POST", path, (request) => receive(config, dwolla, request).pipe(Effect.provide(context)))
        }),
      )
