/**
 * `POST /providers/stripe/webhooks`: Stripe's webhooks about the card
 * payments of a service whose card processor is Stripe
 * (PARTNERPAY_PROVIDER_CARD_PROCESSOR=stripe). Not part of the partner
 * interface (not in the OpenAPI document); no route at all otherwise (404).
 * Its own rate-limit class (`stripe`, CrossCutting.providerCallbackPaths).
 *
 * Verified with the SDK (`stripe.webhooks.constructEvent`: the
 * `Stripe-Signature` header, HMAC-SHA256 with the endpoint's signing secret
 * PARTNERPAY_STRIPE_WEBHOOK_SECRET, signed at most `toleranceSeconds` ago):
 * a forged, altered or stale one is 401 and changes nothing. Each event is
 * applied once (`provider_notifications`, by Stripe's event id): a retry of
 * Stripe or a replay of a recorded event is answered 200 and changes nothing.
 *
 * What each event asks, as the card processor bridge's notifications ask it
 * (`CardProcessorCallbacks.record`, the same use cases):
 * - `charge.dispute.created` / `charge.dispute.updated`: the dispute opened
 *   (amount, Stripe's dispute fee from its balance transactions, reason,
 *   `needs_response` -> NeedsResponse, `under_review` -> UnderReview), then
 *   its status. The disputed payment is named by the metadata partnerpay
 *   wrote on its PaymentIntent or charge (`partnerpay_payment_request_id`:
 *   in-app; `partnerpay_card_payment_id`: terminal), read from Stripe.
 * - `charge.dispute.closed`: `won` (and `warning_closed`: an inquiry that
 *   never became a chargeback) -> Won, the money back; `lost` -> Lost.
 * - `charge.refunded`, `refund.updated`, `refund.failed`: each refund of
 *   ours on the charge (metadata `partnerpay_refund_id` and
 *   `partnerpay_card_payment_id`) that Stripe decided: `succeeded` ->
 *   Completed; `failed` / `canceled` -> Failed with Stripe's failure reason.
 *   A refund made in Stripe's dashboard (no metadata of ours) is ignored.
 * - `setup_intent.succeeded`: the card the payer added through the SetupIntent
 *   of `StripeCardProcessor.setupCard` saved with the payer
 *   (`CustomerPreferences.saveCardPaymentMethod`; the payer named by the
 *   SetupIntent's or its Customer's metadata, the card's brand, last 4 digits
 *   and expiry asked of Stripe); a SetupIntent of no payer of ours is ignored.
 * - `payment_intent.succeeded` / `payment_intent.payment_failed` of a
 *   PaymentIntent of ours (metadata `partnerpay_payment_request_id`): the
 *   outcome of an in-app card payment that waited for the payer's
 *   authentication (3-D Secure, `InAppCardAuthentication.complete`):
 *   succeeded pays the request (its money available on the charge's balance
 *   transaction's date, asked of Stripe), failed leaves it payable (Stripe's
 *   decline or error code). A PaymentIntent charged at once (no
 *   authentication awaited) is refused by the domain (NotFound) and ignored.
 * - `balance.available` and every other event: acknowledged, nothing
 *   recorded (a charge's availability date is recorded with the payment from
 *   its balance transaction).
 *
 * Answers: 200 applied, repeated or ignored (a payment or refund partnerpay
 * does not know is logged, not retried); 401 unverified; 503 when it could
 * not be applied (the database, or Stripe unreachable when asked about the
 * charge): Stripe sends it again.
 */
import { Problem, RequestRecord } from "@partnerpay/adapters-http"
import { PgProviderCallbacks } from "@partnerpay/adapters-pg"
import { CustomerPreferences, Ids, Traced } from "@partnerpay/domain"
import { DateTime, Effect, Layer, Redacted, Schema } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import type { SqlClient } from "effect/sql/SqlClient"
import type Stripe from "stripe"
import * as StripeCardProcessor from "../providers/StripeCardProcessor.ts"
import * as StripeClient from "../providers/StripeClient.ts"
import * as CardProcessorCallbacks from "./CardProcessorCallbacks.ts"

export const path = "/providers/stripe/webhooks"

/** How old a signature may be (Stripe's SDK default): older is a replay, refused. */
export const toleranceSeconds = 300

const provider = StripeClient.provider

const problem = (value: Problem.Problem) =>
  Effect.withFiber((fiber) => Problem.toResponse(value, RequestRecord.correlationIdOf(fiber)))

const unauthorized = new Problem.Unauthorized({
  detail: "The webhook is not signed with the Stripe endpoint's signing secret, or its signature is stale.",
  code: "UNAUTHORIZED",
})

/** A verified event, or undefined (forged, altered, stale, or not an event). */
export const verify = (
  stripe: Stripe,
  secret: Redacted.Redacted<string>,
  body: string,
  signature: string | undefined,
): Stripe.Event | undefined => {
  if (signature === undefined) return undefined
  try {
    return stripe.webhooks.constructEvent(body, signature, Redacted.value(secret), toleranceSeconds)
  } catch {
    return undefined
  }
}

const decodeCallback = Schema.decodeUnknownEffect(CardProcessorCallbacks.CallbackBody)

/** Dispute statuses still open, as the domain names them. */
const openStatusOf = (status: Stripe.Dispute.Status) =>
  status.includes("under_review") ? ("UnderReview" as const) : ("NeedsResponse" as const)

/** The payment partnerpay wrote on the disputed charge (or its PaymentIntent), asked of Stripe. */
const paymentOf = Traced.fn("StripeCallbacks.paymentOf")(function* (stripe: Stripe, dispute: Stripe.Dispute) {
  const chargeId = StripeClient.idOf(dispute.charge)
  if (chargeId === undefined) return undefined
  const params: Stripe.ChargeRetrieveParams = { expand: ["payment_intent"] }
  const charge = yield* StripeClient.call("charges.retrieve", () => stripe.charges.retrieve(chargeId, params))
  const intent = typeof charge.payment_intent === "object" ? charge.payment_intent : null
  const metadata = { ...(intent?.metadata ?? {}), ...charge.metadata }
  const cardPaymentId = metadata[StripeCardProcessor.metadataKeys.cardPaymentId]
  const paymentRequestId = metadata[StripeCardProcessor.metadataKeys.paymentRequestId]
  if (cardPaymentId !== undefined) return { cardPaymentId }
  if (paymentRequestId !== undefined) return { paymentRequestId }
  return undefined
})

const money = (minorUnits: number, currency: string) => ({ minorUnits, currency: currency.toUpperCase() })

/** A refund's outcome, when it is one of ours that Stripe decided. */
const refundOutcome = (refund: Stripe.Refund) => {
  const refundId = refund.metadata?.[StripeCardProcessor.metadataKeys.refundId]
  const cardPaymentId = refund.metadata?.[StripeCardProcessor.metadataKeys.cardPaymentId]
  if (refundId === undefined || cardPaymentId === undefined) return undefined
  if (refund.status === "succeeded") return { kind: "RefundOutcome", cardPaymentId, refundId, status: "Completed" }
  if (refund.status === "failed" || refund.status === "canceled")
    return {
      kind: "RefundOutcome",
      cardPaymentId,
      refundId,
      status: "Failed",
      reason: `refused by Stripe (${refund.failure_reason ?? refund.status})`,
    }
  return undefined
}

/** The notifications an event asks (bodies of `CardProcessorCallbacks`, not yet decoded). */
export const callbacksOf = Traced.fn("StripeCallbacks.callbacksOf")(function* (stripe: Stripe, event: Stripe.Event) {
  switch (event.type) {
    case "charge.dispute.created":
    case "charge.dispute.updated": {
      const dispute = event.data.object
      if (event.type === "charge.dispute.updated")
        return [{ kind: "DisputeStatus", disputeId: dispute.id, status: openStatusOf(dispute.status) }]
      const payment = yield* paymentOf(stripe, dispute)
      if (payment === undefined) return []
      const fee = dispute.balance_transactions.reduce((sum, transaction) => sum + Math.max(transaction.fee, 0), 0)
      return [
        {
          kind: "DisputeOpened",
          disputeId: dispute.id,
          ...payment,
          amount: money(dispute.amount, dispute.currency),
          fee: money(fee, dispute.currency),
          reason: dispute.reason,
          status: openStatusOf(dispute.status),
        },
      ]
    }
    case "charge.dispute.closed": {
      const dispute = event.data.object
      const outcome = dispute.status === "lost" ? "Lost" : dispute.status === "won" ? "Won" : undefined
      const closed = outcome ?? (dispute.status === "warning_closed" ? "Won" : undefined)
      return closed === undefined ? [] : [{ kind: "DisputeClosed", disputeId: dispute.id, outcome: closed }]
    }
    case "charge.refunded": {
      const charge = event.data.object
      const params: Stripe.RefundListParams = { charge: charge.id, limit: 100 }
      const refunds = yield* StripeClient.call("refunds.list", () => stripe.refunds.list(params))
      return refunds.data.flatMap((refund) => {
        const outcome = refundOutcome(refund)
        return outcome === undefined ? [] : [outcome]
      })
    }
    case "payment_intent.succeeded": {
      const paymentRequestId = event.data.object.metadata?.[StripeCardProcessor.metadataKeys.paymentRequestId]
      if (paymentRequestId === undefined) return []
      const id = event.data.object.id
      const params: Stripe.PaymentIntentRetrieveParams = { expand: ["latest_charge.balance_transaction"] }
      const intent = yield* StripeClient.call("paymentIntents.retrieve", () =>
        stripe.paymentIntents.retrieve(id, params),
      )
      if (intent.status !== "succeeded") return []
      const availableAt = StripeCardProcessor.availableAtOf(intent.latest_charge)
      return [
        {
          kind: "AuthenticationOutcome",
          paymentRequestId,
          processorReference: intent.id,
          status: "Succeeded",
          ...(availableAt === undefined ? {} : { availableAt: DateTime.formatIso(availableAt) }),
        },
      ]
    }
    case "payment_intent.payment_failed": {
      const intent = event.data.object
      const paymentRequestId = intent.metadata?.[StripeCardProcessor.metadataKeys.paymentRequestId]
      if (paymentRequestId === undefined) return []
      const error = intent.last_payment_error
      return [
        {
          kind: "AuthenticationOutcome",
          paymentRequestId,
          processorReference: intent.id,
          status: "Failed",
          code: error?.decline_code ?? error?.code ?? "payment_failed",
        },
      ]
    }
    case "refund.updated":
    case "refund.failed": {
      const outcome = refundOutcome(event.data.object)
      return outcome === undefined ? [] : [outcome]
    }
    default:
      return []
  }
})

/**
 * A card the payer added through a SetupIntent (`setup_intent.succeeded`): saved with the payer named by
 * the SetupIntent's metadata (or its Customer's), its details asked of Stripe. Undefined: not ours.
 */
const savedCard = Traced.fn("StripeCallbacks.savedCard")(function* (stripe: Stripe, intent: Stripe.SetupIntent) {
  const methodId = StripeClient.idOf(intent.payment_method)
  if (methodId === undefined) return undefined
  let metadata: Stripe.Metadata = intent.metadata ?? {}
  const customerId = StripeClient.idOf(intent.customer)
  if (metadata[StripeCardProcessor.metadataKeys.registrationId] === undefined && customerId !== undefined) {
    const customer = yield* StripeClient.call("customers.retrieve", () => stripe.customers.retrieve(customerId))
    metadata = "deleted" in customer && customer.deleted === true ? {} : (customer as Stripe.Customer).metadata
  }
  const registrationId = metadata[StripeCardProcessor.metadataKeys.registrationId]
  const partnerId = metadata[StripeCardProcessor.metadataKeys.partnerId]
  if (registrationId === undefined || partnerId === undefined) return undefined
  const method = yield* StripeClient.call("paymentMethods.retrieve", () => stripe.paymentMethods.retrieve(methodId))
  if (method.card === undefined || method.card === null) return undefined
  return {
    partnerId: Ids.PartnerId.make(partnerId),
    registrationId: Ids.RegistrationId.make(registrationId),
    method: {
      id: method.id,
      type: "card",
      brand: method.card.brand,
      last4: method.card.last4,
      expMonth: method.card.exp_month,
      expYear: method.card.exp_year,
    },
  }
})

/** Applies each callback; what the domain refuses (unknown payment, contrary outcome) is logged. */
const apply = Traced.fn("StripeCallbacks.apply")(function* (stripe: Stripe, event: Stripe.Event) {
  if (event.type === "setup_intent.succeeded") {
    const card = yield* savedCard(stripe, event.data.object)
    if (card === undefined) return "ignored"
    const saved = yield* Effect.result(
      CustomerPreferences.saveCardPaymentMethod(card.partnerId, card.registrationId, card.method),
    )
    if (saved._tag === "Success") return "card saved"
    if (isDomainRefusal(saved.failure)) return `refused: ${saved.failure._tag}`
    return yield* Effect.fail(saved.failure)
  }
  const bodies: ReadonlyArray<unknown> = yield* callbacksOf(stripe, event)
  const outcomes: Array<string> = []
  for (const body of bodies) {
    const decoded = yield* Effect.result(decodeCallback(body))
    if (decoded._tag === "Failure") {
      outcomes.push("ignored: not a callback partnerpay knows")
      continue
    }
    const recorded = yield* Effect.result(CardProcessorCallbacks.record(decoded.success))
    if (recorded._tag === "Success") outcomes.push("recorded")
    else if (isDomainRefusal(recorded.failure)) outcomes.push(`refused: ${recorded.failure._tag}`)
    else return yield* Effect.fail(recorded.failure)
  }
  return outcomes.length === 0 ? "ignored" : outcomes.join(", ")
})

const domainRefusals = new Set(["NotFound", "RuleViolated", "IllegalTransition", "ValidationFailed", "AlreadyExists"])

const isDomainRefusal = (error: unknown): error is { readonly _tag: string } =>
  typeof error === "object" && error !== null && domainRefusals.has((error as { _tag?: string })._tag ?? "")

/** One webhook: verified, deduplicated, applied, recorded. */
const receive = Traced.fn("StripeCallbacks.receive")(function* (
  config: StripeClient.StripeConfig,
  stripe: Stripe,
  request: HttpServerRequest.HttpServerRequest,
) {
  const body = yield* request.text.pipe(Effect.orElseSucceed(() => undefined))
  const signature = request.headers["stripe-signature"]
  const event = body === undefined ? undefined : verify(stripe, config.webhookSecret, body, signature)
  if (event === undefined) {
    yield* Effect.logWarning("Stripe webhook refused: not signed with the endpoint's signing secret, or stale")
    return yield* problem(unauthorized)
  }
  const handled = yield* Effect.result(
    Effect.gen(function* () {
      if (yield* PgProviderCallbacks.seen(provider, event.id)) return "repeated"
      const outcome = yield* apply(stripe, event)
      const object = event.data.object as { readonly id?: string }
      yield* PgProviderCallbacks.record(provider, event.id, event.type, object.id ?? "")
      return outcome
    }),
  )
  if (handled._tag === "Failure") {
    yield* Effect.logWarning("Stripe webhook not applied (Stripe sends it again)", {
      eventId: event.id,
      type: event.type,
    })
    return yield* problem(new Problem.ServiceUnavailable({ detail: "Try again later.", code: "SERVICE_UNAVAILABLE" }))
  }
  yield* Effect.logInfo("Stripe webhook", { eventId: event.id, type: event.type, outcome: handled.success })
  return HttpServerResponse.empty({ status: 200 })
})

/** What applying a webhook needs (the domain's stores and the database, provided by the service). */
export type Requirements =
  | CardProcessorCallbacks.Requirements
  | Effect.Services<ReturnType<typeof CustomerPreferences.saveCardPaymentMethod>>
  | SqlClient

/** The route, when the card processor is Stripe; no route at all otherwise (404). */
export const routes = (
  config: StripeClient.StripeConfig | undefined,
): Layer.Layer<never, never, HttpRouter.HttpRouter | Requirements> =>
  config === undefined
    ? Layer.empty
    : HttpRouter.use(
        Effect.fnUntraced(function* (router) {
          const context = yield* Effect.context<Requirements>()
          const stripe = StripeClient.client(config)
          yield* router.add("POST", path, (request) => receive(config, stripe, request).pipe(Effect.provide(context)))
        }),
      )
