/**
 * The sandbox message log over HTTP: what partnerpay "sent" to one of the
 * partner's customers (login codes, payment reminders, payment status
 * messages), as recorded by the sandbox senders (`SandboxProviders.messaging`).
 *
 * `GET /Sandbox/Messages?registrationId=<uuid>&limit=<1..100>&startingAfter=<message id>`
 * (sandbox only, partner token; not in the OpenAPI document) answers
 * `{ data: [{ id, channel, to, template, paymentRequestId?, sentAt }], hasMore }`,
 * newest first; `startingAfter` is the last id of the previous page. A
 * customer that is unknown or another partner's: 404 (tenant isolation).
 * Unknown query parameters and bad values: 422 naming each.
 */
import { Problem, Tokens } from "@partnerpay/adapters-http"
import { CustomerPreferences, type EventStore, Ids, Messaging, Traced } from "@partnerpay/domain"
import { DateTime, Effect, type Layer, Schema } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { asPartner, problem } from "./SandboxClock.ts"

export const defaultLimit = 20
export const maxLimit = 100

export interface MessagesQuery {
  readonly registrationId: Ids.RegistrationId
  readonly limit: number
  readonly startingAfter?: string | undefined
}

const known = new Set(["registrationId", "limit", "startingAfter"])

/** Validates the query string; the query, or every bad parameter. */
export const parseQuery = (params: URLSearchParams): MessagesQuery | { readonly errors: Array<Problem.FieldError> } => {
  const errors: Array<Problem.FieldError> = []
  for (const key of new Set(params.keys())) {
    if (!known.has(key)) errors.push({ field: key, message: "is not a known query parameter" })
    else if (params.getAll(key).length > 1) errors.push({ field: key, message: "must be given once" })
  }
  const registrationId = Schema.decodeUnknownOption(Ids.RegistrationId)(params.get("registrationId") ?? undefined)
  if (registrationId._tag === "None")
    errors.push({ field: "registrationId", message: "is required: a registration id (lowercase uuid)" })
  const rawLimit = params.get("limit")
  const limit = rawLimit === null ? defaultLimit : Number(rawLimit)
  if (rawLimit !== null && (!/^\d+$/.test(rawLimit) || limit < 1 || limit > maxLimit))
    errors.push({ field: "limit", message: `must be a whole number between 1 and ${maxLimit}` })
  const startingAfter = params.get("startingAfter") ?? undefined
  if (startingAfter !== undefined && Schema.decodeUnknownOption(Ids.Uuid)(startingAfter)._tag === "None")
    errors.push({ field: "startingAfter", message: "must be a message id (lowercase uuid)" })
  if (errors.length > 0 || registrationId._tag === "None") return { errors }
  return { registrationId: registrationId.value, limit, startingAfter }
}

/** A message as the partner reads it. */
export const toWire = (message: Messaging.SentMessage) => ({
  id: message.id,
  channel: message.channel,
  to: message.to,
  template: message.template,
  ...(message.paymentRequestId === undefined ? {} : { paymentRequestId: message.paymentRequestId }),
  sentAt: DateTime.formatIso(message.sentAt),
})

export const routes: Layer.Layer<
  never,
  never,
  HttpRouter.HttpRouter | Tokens.Tokens | EventStore.EventStore | Messaging.SentMessages
> = HttpRouter.use(
  Effect.fnUntraced(function* (router) {
    const tokens = yield* Tokens.Tokens
    const context = yield* Effect.context<EventStore.EventStore>()
    const log = yield* Messaging.SentMessages
    const listMessages = Traced.fn("SandboxMessages.list")(
      function* (request: HttpServerRequest.HttpServerRequest, partnerId: Ids.PartnerId) {
        const parsed = parseQuery(new URL(request.url, "http://sandbox.invalid").searchParams)
        if ("errors" in parsed) {
          return yield* problem(
            new Problem.ValidationProblem({
              detail: "The query is not valid.",
              code: "VALIDATION_FAILED",
              errors: parsed.errors,
            }),
          )
        }
        yield* CustomerPreferences.loadCustomer(partnerId, parsed.registrationId).pipe(
          Effect.provideContext(context),
          Effect.mapError((error) =>
            Problem.isDomainFailure(error) ? Problem.fromDomain(error) : Problem.internalError(),
          ),
        )
        const page = yield* log.list({ partnerId, ...parsed }).pipe(Effect.mapError(Problem.fromDomain))
        return HttpServerResponse.jsonUnsafe({ data: page.items.map(toWire), hasMore: page.hasMore })
      },
      (effect) => effect.pipe(Effect.catch(problem)),
    )
    yield* router.add("GET", "/Sandbox/Messages", (request) =>
      asPartner(tokens, request, (partnerId) => listMessages(request, partnerId)),
    )
  }),
)
