/**
 * The operator API under `/admin`: partner onboarding (create, rotate the
 * client secret, revoke its tokens, set the webhook) and webhook delivery inspection and
 * redelivery. Plain `HttpRouter` routes added to the service's server, NOT
 * part of the partner `HttpApi` (so /openapi.json never lists them).
 *
 * - Enabled only when PARTNERPAY_ADMIN_TOKEN is set; otherwise no /admin
 *   route exists and every /admin path is the router's 404 problem.
 * - Authentication: `Authorization: Bearer <admin token>`, compared in
 *   constant time (`timingSafeEqual` on the SHA-256 digests, so lengths leak
 *   nothing either). Missing or wrong -> 401 problem.
 * - Failed tokens are limited per client address (`CrossCutting.clientIp`),
 *   as POST /auth/token's failed logins are (`operatorFailureLimit`: 10, then
 *   one every 6 s): while the address's bucket is empty every /admin request
 *   from it is 429 with `Retry-After`, before the token is looked at.
 * - Served with the partner API, or on a listener of its own
 *   (PARTNERPAY_ADMIN_PORT, `Service.ts`).
 * - Errors are `application/problem+json` problems like the partner API's
 *   (400 malformed body/query, 401, 404 unknown partner or delivery, 409
 *   redelivering a row still pending, 422 invalid field values, 503 database).
 * - Secrets: a client secret is shown once (create, rotate); a webhook
 *   signing secret given is never returned (one generated because none was
 *   given is answered once); delivery listings carry no payload.
 * - In production a webhook URL that is or resolves to a non-public address
 *   is a 400 naming `url` (WebhookTarget.ts).
 *
 * Fee schedules (`FeeOperations.ts`, packages/domain/docs/Fees.md): `GET /admin/partners/{partnerId}/fees`
 * and `PUT /admin/partners/{partnerId}/fees/{rail}` (rail `AchDebit` or `Card`; a bad field -> 400
 * naming it; unknown partner -> 404).
 * The platform's books: `GET /admin/ledger/trial-balance?asOf=<date-time>` (200 with the trial
 * balance per account and what is wrong, `balanced` false when something is; LedgerCheck.ts; a bad
 * `asOf` or an unknown parameter -> 400 naming it).
 *
 * Personal data erasure (docs/personal-data.md): `POST /admin/customers/{registrationId}/erase`
 * and `POST /admin/companies/{companyId}/erase-owner` (200 with what was
 * erased; repeating is harmless; unknown id -> 404).
 *
 * The operations themselves (`Operations`, `Erasure`) are shared with the CLI.
 */
import { createHash, timingSafeEqual } from "node:crypto"
import { CrossCutting, Problem, RateLimit, RequestRecord } from "@partnerpay/adapters-http"
import { PgLedger, type PgOutbox, type PgPartnerCredentials } from "@partnerpay/adapters-pg"
import { type TokenGenerations, Traced } from "@partnerpay/domain"
import { Clock, Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import type { SqlClient } from "effect/sql/SqlClient"
import * as Erasure from "./Erasure.ts"
import * as FeeOperations from "./FeeOperations.ts"
import * as LedgerCheck from "./LedgerCheck.ts"
import * as Operations from "./Operations.ts"

/** What the admin routes use (provided by the service's ports). */
export type AdminRequirements =
  | PgOutbox.OutboxDispatch
  | PgPartnerCredentials.Partners
  | SqlClient
  | TokenGenerations.TokenGenerations
  | Erasure.ErasureRequirements
  | FeeOperations.FeeRequirements

/** Every admin path starts with this. */
export const prefix = "/admin"

/** Failed operator tokens allowed per client address: 10, then one every 6 s (as a ClientId at POST /auth/token). */
export const operatorFailureLimit = Context.Reference<RateLimit.RateLimitRule>(
  "partnerpay/app/Admin/operatorFailureLimit",
  { defaultValue: () => ({ perSecond: 1 / 6, burst: 10 }) },
)

const digest = (value: string): Buffer => createHash("sha256").update(value, "utf8").digest()

/** Constant-time check of an `Authorization` header value against the admin token. */
export const isAuthorized = (header: string | undefined, token: Redacted.Redacted<string>): boolean => {
  const match = header === undefined ? null : /^Bearer[ ]+(\S+)\s*$/i.exec(header)
  const given = match?.[1] ?? ""
  // Always compare (even when the header is missing) so timing says nothing about the token.
  const equal = timingSafeEqual(digest(given), digest(Redacted.value(token)))
  return match !== null && equal
}

const validation = (errors: ReadonlyArray<Problem.FieldError>) =>
  new Problem.ValidationProblem({
    detail: `The request has ${errors.length} invalid field(s).`,
    code: "VALIDATION_FAILED",
    errors: [...errors],
  })

const badRequest = (field: string, message: string) =>
  new Problem.BadRequest({
    detail: "The request has an invalid value.",
    code: "BAD_REQUEST",
    errors: [{ field, message }],
  })

/** The operation errors as problems. */
const toProblem = (error: Operations.OperationError): Problem.Problem => {
  switch (error._tag) {
    case "InvalidInput":
      return validation(error.issues)
    case "UnsafeUrl":
      return badRequest(error.field, error.message)
    case "NotFound":
      return new Problem.ResourceNotFound({ detail: `${error.entity} not found.`, code: "NOT_FOUND" })
    case "DeliveryInProgress":
      return new Problem.IllegalTransitionProblem({
        detail: `Delivery is ${error.status}: it is already queued for delivery.`,
        code: "ILLEGAL_TRANSITION",
        state: error.status,
      })
    case "EventStoreUnavailable":
      return new Problem.ServiceUnavailable({
        detail: "The service is temporarily unavailable; retry later.",
        code: "SERVICE_UNAVAILABLE",
      })
  }
}

/** Reads the JSON body as an object; malformed -> 400. */
const jsonBody = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const body = yield* request.json.pipe(Effect.mapError(() => badRequest("body", "must be a JSON object")))
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return yield* Effect.fail(badRequest("body", "must be a JSON object"))
  }
  return body as Readonly<Record<string, unknown>>
})

const stringField = (body: Readonly<Record<string, unknown>>, field: string) =>
  typeof body[field] === "string"
    ? Effect.succeed(body[field] as string)
    : Effect.fail(badRequest(field, "must be a string"))

const json = (body: unknown, status = 200) => HttpServerResponse.jsonUnsafe(body, { status })

const searchParams = Effect.map(
  HttpServerRequest.HttpServerRequest,
  (request) => new URL(request.url, "http://admin.invalid").searchParams,
)

const routeParam = (name: string) => Effect.map(HttpRouter.params, (params) => params[name] ?? "")

/**
 * Wraps an admin handler: correlation id, authentication, problem rendering.
 * Every failure (including defects) becomes a problem; nothing internal leaks.
 */
const guarded = (
  token: Redacted.Redacted<string>,
  context: Context.Context<AdminRequirements>,
  failures: RateLimit.RateLimiter,
) =>
  Traced.fn("Admin.guarded")(function* (
    handler: Effect.Effect<
      HttpServerResponse.HttpServerResponse,
      Problem.Problem | Operations.OperationError,
      AdminRequirements | HttpServerRequest.HttpServerRequest | HttpRouter.RouteContext
    >,
  ): Effect.fn.Return<
    HttpServerResponse.HttpServerResponse,
    never,
    HttpServerRequest.HttpServerRequest | HttpRouter.RouteContext
  > {
    const correlationId = RequestRecord.correlationIdOf(yield* Effect.fiber)
    const request = yield* HttpServerRequest.HttpServerRequest
    // Failures are counted per client address; while its bucket is empty, nothing is checked.
    const bucket = `operator:${CrossCutting.clientIp(request, yield* CrossCutting.HttpLimits)}`
    const rule = yield* operatorFailureLimit
    const now = yield* Clock.currentTimeMillis
    const wait = failures.peek(bucket, rule, now)
    if (!wait.allowed) {
      return yield* Problem.toResponse(Problem.tooManyRequests(wait.retryAfterSeconds), correlationId)
    }
    if (!isAuthorized(request.headers.authorization, token)) {
      failures.take(bucket, rule, now)
      return yield* Problem.toResponse(
        Problem.unauthorized("A valid operator bearer token is required."),
        correlationId,
      )
    }
    return yield* handler.pipe(
      Effect.provide(context),
      Effect.catchCause((cause) => {
        const failure = Problem.squashCause(cause)
        if (Option.isSome(failure) && Problem.isProblem(failure.value)) {
          return Problem.toResponse(failure.value, correlationId)
        }
        if (Option.isSome(failure) && Operations.isOperationError(failure.value)) {
          return Problem.toResponse(toProblem(failure.value), correlationId)
        }
        // The cause goes to the logger as a cause, so SQL errors in it are redacted (Logging.ts).
        return Effect.logError("admin request failed", cause).pipe(
          Effect.annotateLogs({ correlationId }),
          Effect.andThen(Problem.toResponse(Problem.internalError(), correlationId)),
        )
      }),
      Effect.map(HttpServerResponse.setHeader("x-correlation-id", correlationId)),
      Effect.map(HttpServerResponse.setHeader("cache-control", "no-store")),
    )
  })

const Status = Schema.Literals(Operations.deliveryStatuses)

/** The admin routes, or no route at all when no admin token is configured. */
export const routes = (
  adminToken: Option.Option<Redacted.Redacted<string>>,
): Layer.Layer<never, never, HttpRouter.HttpRouter | AdminRequirements> => {
  if (Option.isNone(adminToken)) return Layer.empty
  const token = adminToken.value
  return Layer.unwrap(
    Effect.map(Effect.all([Effect.context<AdminRequirements>(), RateLimit.InstanceShare]), ([context, share]) => {
      // One failure table per listener the routes are served on (its share of the limits with several instances).
      const guard = guarded(token, context, RateLimit.make({ share }))
      return HttpRouter.addAll([
        HttpRouter.route(
          "POST",
          `${prefix}/partners`,
          guard(
            Effect.gen(function* () {
              const body = yield* jsonBody
              const name = yield* stringField(body, "name")
              const created = yield* Operations.createPartner({ name })
              return json(Operations.encodeCreated(created), 201)
            }),
          ),
        ),
        HttpRouter.route(
          "PUT",
          `${prefix}/partners/:partnerId/webhook`,
          guard(
            Effect.gen(function* () {
              const partnerId = yield* routeParam("partnerId")
              const body = yield* jsonBody
              const url = yield* stringField(body, "url")
              // Optional: without one, a secret is generated and answered once.
              const signingSecret =
                body.signingSecret === undefined ? undefined : yield* stringField(body, "signingSecret")
              const result = yield* Operations.setWebhook({
                partnerId,
                url,
                signingSecret: signingSecret === undefined ? undefined : Redacted.make(signingSecret),
              })
              return json(result)
            }),
          ),
        ),
        HttpRouter.route(
          "POST",
          `${prefix}/partners/:partnerId/rotate-secret`,
          guard(
            Effect.gen(function* () {
              const partnerId = yield* routeParam("partnerId")
              const rotated = yield* Operations.rotateSecret(partnerId)
              return json(Operations.encodeCreated(rotated))
            }),
          ),
        ),
        HttpRouter.route(
          "POST",
          `${prefix}/partners/:partnerId/revoke-tokens`,
          guard(
            Effect.gen(function* () {
              const partnerId = yield* routeParam("partnerId")
              return json(yield* Operations.revokeTokens(partnerId))
            }),
          ),
        ),
        HttpRouter.route(
          "GET",
          `${prefix}/partners/:partnerId/fees`,
          guard(Effect.flatMap(routeParam("partnerId"), (id) => Effect.map(FeeOperations.show(id), json))),
        ),
        HttpRouter.route(
          "PUT",
          `${prefix}/partners/:partnerId/fees/:rail`,
          guard(
            Effect.gen(function* () {
              const partnerId = yield* routeParam("partnerId")
              const rail = yield* routeParam("rail")
              const body = yield* jsonBody
              // A bad fee schedule is the client's input: 400 naming each field, nothing changed.
              const set = yield* FeeOperations.set(partnerId, rail, body).pipe(
                Effect.catchTag("InvalidInput", (invalid) =>
                  Effect.fail(
                    new Problem.BadRequest({
                      detail: `The fee schedule has ${invalid.issues.length} invalid field(s).`,
                      code: "BAD_REQUEST",
                      errors: [...invalid.issues],
                    }),
                  ),
                ),
              )
              return json(set)
            }),
          ),
        ),
        HttpRouter.route(
          "GET",
          `${prefix}/webhooks/deliveries`,
          guard(
            Effect.gen(function* () {
              const params = yield* searchParams
              const rawStatus = params.get("status")
              const rawLimit = params.get("limit")
              let status: Operations.DeliveryStatus | undefined
              if (rawStatus !== null && rawStatus !== "") {
                const decoded = Schema.decodeUnknownOption(Status)(rawStatus)
                if (Option.isNone(decoded)) {
                  return yield* Effect.fail(
                    badRequest("query.status", `must be one of ${Operations.deliveryStatuses.join(", ")}`),
                  )
                }
                status = decoded.value
              }
              let limit = Operations.defaultDeliveryLimit
              if (rawLimit !== null && rawLimit !== "") {
                const value = Number(rawLimit)
                if (!/^\d+$/.test(rawLimit) || value < 1 || value > Operations.maxDeliveryLimit) {
                  return yield* Effect.fail(
                    badRequest("query.limit", `must be an integer between 1 and ${Operations.maxDeliveryLimit}`),
                  )
                }
                limit = value
              }
              const deliveries = yield* Operations.listDeliveries(status === undefined ? { limit } : { status, limit })
              return json({ data: deliveries.map(Operations.encodeDelivery) })
            }),
          ),
        ),
        HttpRouter.route(
          "GET",
          `${prefix}/ledger/trial-balance`,
          guard(
            Effect.gen(function* () {
              const params = yield* searchParams
              for (const name of params.keys())
                if (name !== "asOf") return yield* Effect.fail(badRequest(`query.${name}`, "is not a known parameter"))
              const raw = params.get("asOf")
              const asOf = raw === null ? undefined : LedgerCheck.parseAsOf(raw)
              if (raw !== null && asOf === undefined)
                return yield* Effect.fail(
                  badRequest("query.asOf", "must be an ISO 8601 date-time with an offset, e.g. 2026-03-31T23:59:59Z"),
                )
              return json(LedgerCheck.encode(yield* PgLedger.check(asOf)))
            }),
          ),
        ),
        HttpRouter.route(
          "POST",
          `${prefix}/customers/:registrationId/erase`,
          guard(Effect.flatMap(routeParam("registrationId"), (id) => Effect.map(Erasure.eraseCustomer(id), json))),
        ),
        HttpRouter.route(
          "POST",
          `${prefix}/companies/:companyId/erase-owner`,
          guard(Effect.flatMap(routeParam("companyId"), (id) => Effect.map(Erasure.eraseCompanyOwner(id), json))),
        ),
        HttpRouter.route(
          "POST",
          `${prefix}/webhooks/deliveries/:id/redeliver`,
          guard(
            Effect.gen(function* () {
              const id = yield* routeParam("id")
              yield* Operations.redeliver(id)
              return json({ id, status: "pending" }, 202)
            }),
          ),
        ),
      ])
    }),
  )
}
