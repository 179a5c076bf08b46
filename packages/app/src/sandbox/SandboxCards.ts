/**
 * Sandbox test cards. The interface has no operation to save a card (card
 * details never pass through partnerpay: the card processor integration saves
 * them), so a sandbox client cannot otherwise see anything in
 * `GET /Payment/CardPaymentMethods/{registrationId}`.
 *
 * `POST /Sandbox/CardPaymentMethods` (sandbox only, partner token; not in the
 * OpenAPI document) with `{ "registrationId": "<uuid>", "brand"?: "visa",
 * "last4"?: "4242" }` saves a test card for one of the partner's customers
 * through `CustomerPreferences.saveCardPaymentMethod` and answers it:
 * `{ id, type: "card", brand, last4, expMonth: 12, expYear: <this year + 3> }`.
 * Another partner's or an unknown customer: 404.
 *
 * 3-D Secure: an in-app card payment (`PayWithCard`) with the test card
 * ending in `3155` answers `RequiresAction` (nothing charged, the request
 * still Pending). `POST /Sandbox/CardAuthentications` (sandbox only, partner
 * token) with `{ "paymentRequestId": "<uuid>", "outcome": "Succeeded" |
 * "Failed" }` stands for the payer authenticating it in the app and the
 * processor's webhook: Succeeded pays the request (PAYMENT_REQUEST_STATUS_CHANGED
 * Paid), Failed leaves it payable. As every other sandbox card payment, the
 * authenticated payment's money is available to the company one settlement
 * cycle (`settlementCycleMillis`) after it is charged, pending until then.
 * Answers `{ "outcome": "Paid" | "Failed" |
 * "Refunded" }` (Refunded: the request had been paid another way meanwhile).
 * Another partner's request, or none awaiting authentication: 404.
 */
import { Problem, Tokens } from "@partnerpay/adapters-http"
import {
  type CardCharger,
  CustomerPreferences,
  type EventStore,
  type IdGenerator,
  Ids,
  InAppCardAuthentication,
  type Policy,
  Traced,
  type UnitOfWork,
} from "@partnerpay/domain"
import { Clock, DateTime, Effect, type Layer, Schema } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { asPartner, jsonBody, problem } from "./SandboxClock.ts"

/** Validates the body; the card to save, or every bad field. */
export const parseCard = (
  body: unknown,
  year: number,
):
  | {
      readonly registrationId: Ids.RegistrationId
      readonly card: { type: string; brand: string; last4: string; expMonth: number; expYear: number }
    }
  | { readonly errors: Array<Problem.FieldError> } => {
  const record =
    typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {}
  const errors: Array<Problem.FieldError> = []
  const registrationId = Schema.decodeUnknownOption(Ids.RegistrationId)(record.registrationId)
  if (registrationId._tag === "None")
    errors.push({ field: "registrationId", message: "must be a registration id (uuid)" })
  const brand = record.brand ?? "visa"
  if (typeof brand !== "string" || brand.trim() === "" || brand.length > 32) {
    errors.push({ field: "brand", message: "must be a brand name of 1 to 32 characters" })
  }
  const last4 = record.last4 ?? "4242"
  if (typeof last4 !== "string" || !/^\d{4}$/.test(last4)) {
    errors.push({ field: "last4", message: "must be exactly 4 digits" })
  }
  if (errors.length > 0 || registrationId._tag === "None") return { errors }
  return {
    registrationId: registrationId.value,
    card: { type: "card", brand: brand as string, last4: last4 as string, expMonth: 12, expYear: year + 3 },
  }
}

/** The body of `POST /Sandbox/CardAuthentications`. */
const AuthenticationBody = Schema.Struct({
  paymentRequestId: Ids.PaymentRequestId,
  outcome: Schema.Literals(["Succeeded", "Failed"]),
})

/** The sandbox card routes; an authenticated payment's money available `settlementCycleMillis` after it. */
export const routes = (options: {
  readonly settlementCycleMillis: number
}): Layer.Layer<
  never,
  never,
  | HttpRouter.HttpRouter
  | Tokens.Tokens
  | EventStore.EventStore
  | IdGenerator.IdGenerator
  | UnitOfWork.UnitOfWork
  | Policy.Policies
  | CardCharger.CardCharger
> =>
  HttpRouter.use(
    Effect.fnUntraced(function* (router) {
      const tokens = yield* Tokens.Tokens
      const context = yield* Effect.context<
        | EventStore.EventStore
        | IdGenerator.IdGenerator
        | UnitOfWork.UnitOfWork
        | Policy.Policies
        | CardCharger.CardCharger
      >()
      const saveCard = Traced.fn("SandboxCards.saveCard")(
        function* (request: HttpServerRequest.HttpServerRequest, partnerId: Ids.PartnerId) {
          const body = yield* jsonBody(request)
          const now = yield* Clock.currentTimeMillis
          const parsed = parseCard(body, new Date(now).getUTCFullYear())
          if ("errors" in parsed) {
            return yield* problem(
              new Problem.ValidationProblem({
                detail: "The test card is not valid.",
                code: "VALIDATION_FAILED",
                errors: parsed.errors,
              }),
            )
          }
          const method = { id: `card_sandbox_${crypto.randomUUID().slice(0, 8)}`, ...parsed.card }
          yield* CustomerPreferences.saveCardPaymentMethod(partnerId, parsed.registrationId, method as never).pipe(
            Effect.mapError((error) =>
              Problem.isDomainFailure(error) ? Problem.fromDomain(error) : Problem.internalError(),
            ),
          )
          return HttpServerResponse.jsonUnsafe(method)
        },
        (effect) => effect.pipe(Effect.provideContext(context), Effect.catch(problem)),
      )
      yield* router.add("POST", "/Sandbox/CardPaymentMethods", (request) =>
        asPartner(tokens, request, (partnerId) => saveCard(request, partnerId)),
      )
      const authenticate = Traced.fn("SandboxCards.authenticate")(
        function* (request: HttpServerRequest.HttpServerRequest, partnerId: Ids.PartnerId) {
          const body = yield* jsonBody(request)
          const parsed = Schema.decodeUnknownOption(AuthenticationBody)(body)
          if (parsed._tag === "None")
            return yield* problem(
              new Problem.ValidationProblem({
                detail: "The authentication is not valid.",
                code: "VALIDATION_FAILED",
                errors: [{ field: "outcome", message: "paymentRequestId (uuid) and outcome: Succeeded or Failed" }],
              }),
            )
          const { paymentRequestId, outcome } = parsed.value
          const now = yield* DateTime.now
          const completed = yield* InAppCardAuthentication.completeAwaited(
            partnerId,
            paymentRequestId,
            outcome === "Succeeded"
              ? { _tag: "Succeeded", availableAt: DateTime.add(now, { milliseconds: options.settlementCycleMillis }) }
              : { _tag: "Failed", code: "payment_intent_authentication_failure" },
          ).pipe(
            Effect.mapError((error) =>
              Problem.isDomainFailure(error) ? Problem.fromDomain(error) : Problem.internalError(),
            ),
          )
          return HttpServerResponse.jsonUnsafe({ outcome: completed })
        },
        (effect) => effect.pipe(Effect.provideContext(context), Effect.catch(problem)),
      )
      yield* router.add("POST", "/Sandbox/CardAuthentications", (request) =>
        asPartner(tokens, request, (partnerId) => authenticate(request, partnerId)),
      )
    }),
  )
