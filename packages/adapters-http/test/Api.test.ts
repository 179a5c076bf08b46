/**
 * The HTTP surface beyond authentication: exact-case routing, health, the HEAD
 * notification endpoints, problem+json for every error, the OpenAPI document.
 *
 * A test-only `probe` group (added the same way a business group would be)
 * exercises partner/customer narrowing, domain error mapping, 429 and defects.
 */

import { assert, describe, it } from "@effect/vitest"
import { DomainError, EventStore } from "@partnerpay/domain"
import { Effect, Layer, Schema } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { afterAll } from "vitest"
import { Api } from "../src/Api.ts"
import { Authentication, requireCustomer, requirePartner } from "../src/cross-cutting/Authentication.ts"
import * as Problem from "../src/cross-cutting/Problem.ts"
import { ProblemHandling } from "../src/cross-cutting/ProblemHandling.ts"
import { Tokens } from "../src/cross-cutting/Tokens.ts"
import * as Server from "../src/Server.ts"
import {
  bearer,
  type Handler,
  health,
  makeServer,
  Ports,
  partnerId,
  partnerToken,
  postJson,
  registrationId,
  send,
  typedClient,
} from "./fixtures.ts"

// ---------------------------------------------------------------------------
// A test-only group, wired exactly like a future business group.

const DomainErrorKind = Schema.Literals([
  "ValidationFailed",
  "IllegalTransition",
  "RuleViolated",
  "NotFound",
  "AlreadyExists",
  "VersionConflict",
  "EventStoreUnavailable",
])

class ProbeApi extends HttpApiGroup.make("probe")
  .add(
    HttpApiEndpoint.get("partnerOnly", "/Probe/PartnerOnly", { success: Schema.Struct({ partnerId: Schema.String }) }),
    HttpApiEndpoint.get("customerOnly", "/Probe/CustomerOnly", {
      success: Schema.Struct({ registrationId: Schema.String }),
    }),
    HttpApiEndpoint.get("domainError", "/Probe/DomainError/:kind", {
      params: { kind: DomainErrorKind },
      error: Problem.DomainProblems,
    }),
    HttpApiEndpoint.get("rateLimited", "/Probe/RateLimited"),
    HttpApiEndpoint.get("defect", "/Probe/Defect"),
    HttpApiEndpoint.get("query", "/Probe/Query", {
      query: { page: Schema.FiniteFromString, size: Schema.FiniteFromString },
    }),
  )
  .middleware(Authentication)
  .middleware(ProblemHandling) {}

const TestApi = Api.add(ProbeApi)

const domainErrors = {
  ValidationFailed: new DomainError.ValidationFailed({
    issues: [
      { field: "owner.emailAddress", message: "must be an email address" },
      { field: "employees[1].emailAddress", message: "duplicates employees[0].emailAddress" },
    ],
  }),
  IllegalTransition: new DomainError.IllegalTransition({
    entity: "Consent",
    state: "Revoked",
    command: "AcceptConsent",
    reason: "a revoked consent cannot be accepted",
  }),
  RuleViolated: new DomainError.RuleViolated({
    code: "DEBIT_LIMIT_EXCEEDED",
    reason: "the amount exceeds the authorized limit",
  }),
  NotFound: new DomainError.NotFound({ entity: "PaymentRequest" }),
  AlreadyExists: new DomainError.AlreadyExists({ entity: "Company" }),
  VersionConflict: new EventStore.VersionConflict({ streamId: "Consent-1", expected: "3", actual: 4 }),
  EventStoreUnavailable: new EventStore.EventStoreUnavailable({ reason: "connection refused to db.internal:5432" }),
} as const

const ProbeLive = HttpApiBuilder.group(TestApi, "probe", (handlers) =>
  handlers
    .handle("partnerOnly", () => Effect.map(requirePartner, (caller) => ({ partnerId: caller.partnerId })))
    .handle("customerOnly", () => Effect.map(requireCustomer, (caller) => ({ registrationId: caller.registrationId })))
    .handle("domainError", ({ params }) => Effect.fail(Problem.fromDomain(domainErrors[params.kind])))
    .handle("rateLimited", () => Effect.fail(Problem.tooManyRequests(30)))
    .handle("defect", () => Effect.die(new Error("secret internals: password=hunter2")))
    .handle("query", () => Effect.void),
)

const TestRoutes = Layer.mergeAll(
  HttpApiBuilder.layer(TestApi, { openapiPath: Server.openApiPath }),
  Server.RouterProblems,
).pipe(Layer.provide(ProbeLive), Layer.provide(Server.HandlersLive))

const probe = HttpRouter.toWebHandler(TestRoutes.pipe(Layer.provide(Ports), Layer.provide(HttpServer.layerServices)), {
  routerConfig: Server.routerConfig,
  disableLogger: true,
})
const probeHandler = probe.handler as unknown as Handler

const { handler, dispose } = makeServer()
afterAll(async () => {
  await dispose()
  await probe.dispose()
})

const expectProblem = (
  r: { status: number; headers: Headers; json: unknown },
  status: number,
  type: string,
  code: string,
) => {
  assert.strictEqual(r.status, status)
  assert.strictEqual(r.headers.get("content-type"), "application/problem+json")
  const body = r.json as Record<string, unknown>
  assert.strictEqual(body.type, `/docs/problems/${type}`)
  assert.strictEqual(body.status, status)
  assert.strictEqual(body.code, code)
  assert.isString(body.title)
  assert.isString(body.detail)
  const correlationId = r.headers.get("x-correlation-id")
  assert.isString(correlationId)
  assert.strictEqual(body.instance, `urn:uuid:${correlationId}`)
  return body
}

const customerToken = Effect.gen(function* () {
  const tokens = yield* Tokens
  const issued = yield* tokens.issue({ _tag: "Customer", partnerId, registrationId })
  return issued.accessToken
}).pipe(Effect.provide(Ports))

// ---------------------------------------------------------------------------

describe("routing is case-sensitive", () => {
  it.effect("/AUTH/token is 404 problem+json", () =>
    Effect.gen(function* () {
      const r = yield* send(handler, "/AUTH/token", postJson({ ClientId: "x", ClientSecret: "y" }))
      expectProblem(r, 404, "not-found", "ROUTE_NOT_FOUND")
    }),
  )

  it.effect("/healthcheck/get is 404 even with a valid token", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(handler)
      expectProblem(yield* send(handler, "/healthcheck/get", bearer(token)), 404, "not-found", "ROUTE_NOT_FOUND")
      expectProblem(yield* send(handler, "/auth/exchangetoken", bearer(token)), 404, "not-found", "ROUTE_NOT_FOUND")
    }),
  )

  it.effect("an unknown path is 404 problem+json", () =>
    Effect.gen(function* () {
      expectProblem(yield* send(handler, "/no/such/thing"), 404, "not-found", "ROUTE_NOT_FOUND")
    }),
  )
})

describe("a known path called with a method it is not served with", () => {
  it.effect("answers 405 problem+json with Allow listing the methods it is served with", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(handler)
      const r = yield* send(handler, `/Payment/${crypto.randomUUID()}`, { method: "DELETE", ...bearer(token) })
      const body = expectProblem(r, 405, "method-not-allowed", "METHOD_NOT_ALLOWED")
      assert.strictEqual(r.headers.get("allow"), "GET, HEAD")
      assert.deepStrictEqual(body.allow, ["GET", "HEAD"])
    }),
  )

  it.effect("lists every method of the path (GET /Company/{id}/PayoutAccount and PUT)", () =>
    Effect.gen(function* () {
      const r = yield* send(handler, "/Company/c-1/PayoutAccount?x=1", { method: "DELETE" })
      expectProblem(r, 405, "method-not-allowed", "METHOD_NOT_ALLOWED")
      assert.strictEqual(r.headers.get("allow"), "GET, HEAD, PUT")
    }),
  )

  it.effect("in other casing is still 404 (routing is case-sensitive)", () =>
    Effect.gen(function* () {
      const r = yield* send(handler, `/payment/${crypto.randomUUID()}`, { method: "DELETE" })
      expectProblem(r, 404, "not-found", "ROUTE_NOT_FOUND")
    }),
  )
})

describe("GET /HealthCheck/Get", () => {
  it.effect("is 200 with no body when healthy", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(handler)
      const r = yield* send(handler, "/HealthCheck/Get", bearer(token))
      assert.strictEqual(r.status, 200)
      assert.strictEqual(r.text, "")
    }),
  )

  it.effect("is 503 problem+json when the health check fails, without the internal reason", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(handler)
      health.healthy = false
      const r = yield* send(handler, "/HealthCheck/Get", bearer(token)).pipe(
        Effect.ensuring(Effect.sync(() => (health.healthy = true))),
      )
      expectProblem(r, 503, "unavailable", "SERVICE_UNAVAILABLE")
      assert.notInclude(JSON.stringify(r.json), "database unreachable")
    }),
  )

  it.effect("the typed client calls it", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(handler)
      const client = yield* typedClient(handler, token)
      yield* client.health.check()
    }),
  )
})

describe("HEAD notification endpoints", () => {
  for (const path of ["/SaleProviderWebhook/ReceiveSaleEvent", "/BankLinkWebhook/UpdateItem"]) {
    it.effect(`HEAD ${path} with a token is 200 with no body`, () =>
      Effect.gen(function* () {
        const token = yield* partnerToken(handler)
        const r = yield* send(handler, path, { method: "HEAD", ...bearer(token) })
        assert.strictEqual(r.status, 200)
        assert.strictEqual(r.text, "")
      }),
    )

    it.effect(`HEAD ${path} without a token is 401`, () =>
      Effect.gen(function* () {
        const r = yield* send(handler, path, { method: "HEAD" })
        assert.strictEqual(r.status, 401)
        assert.strictEqual(r.headers.get("www-authenticate"), "Bearer")
      }),
    )
  }
})

describe("POST /BankLinkWebhook/UpdateItem (the bank-link provider's deliveries)", () => {
  it.effect(
    "where no provider sends notifications (the sandbox), a delivery is 401 problem+json and changes nothing",
    () =>
      Effect.gen(function* () {
        const r = yield* send(
          handler,
          "/BankLinkWebhook/UpdateItem",
          postJson(JSON.stringify({ webhook_type: "ITEM", webhook_code: "USER_PERMISSION_REVOKED", item_id: "x" })),
        )
        assert.strictEqual(r.status, 401)
        assert.include(r.headers.get("content-type") ?? "", "application/problem+json")
      }),
  )
})

describe("request decoding failures are 400 problem+json with field errors", () => {
  it.effect("malformed JSON", () =>
    Effect.gen(function* () {
      const r = yield* send(handler, "/auth/token", postJson('{"ClientId": '))
      const body = expectProblem(r, 400, "bad-request", "BAD_REQUEST")
      assert.deepStrictEqual(body.errors, [{ field: "body", message: "must be a valid JSON body" }])
    }),
  )

  it.effect("wrong types and missing fields: every bad field is named", () =>
    Effect.gen(function* () {
      const r = yield* send(handler, "/auth/token", postJson({ ClientId: 42 }))
      const body = expectProblem(r, 400, "bad-request", "BAD_REQUEST")
      const errors = body.errors as ReadonlyArray<{ field: string; message: string }>
      assert.deepStrictEqual(
        errors.map((e) => e.field),
        ["ClientId", "ClientSecret"],
      )
      for (const e of errors) assert.isAbove(e.message.length, 0)
    }),
  )

  it.effect("an empty secret breaks the length rule", () =>
    Effect.gen(function* () {
      const r = yield* send(handler, "/auth/token", postJson({ ClientId: "a", ClientSecret: "" }))
      const body = expectProblem(r, 400, "bad-request", "BAD_REQUEST")
      assert.deepStrictEqual(body.errors, [{ field: "ClientSecret", message: "must not be empty" }])
    }),
  )

  it.effect("an unsupported content type is 415 problem+json", () =>
    Effect.gen(function* () {
      const r = yield* send(handler, "/auth/token", {
        method: "POST",
        headers: { "content-type": "text/plain" },
        body: "ClientId=x",
      })
      expectProblem(r, 415, "unsupported-media-type", "UNSUPPORTED_MEDIA_TYPE")
    }),
  )

  it.effect("bad path parameters are named with a path. prefix", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(probeHandler)
      const r = yield* send(probeHandler, "/Probe/DomainError/Nonsense", bearer(token))
      const body = expectProblem(r, 400, "bad-request", "BAD_REQUEST")
      const errors = body.errors as ReadonlyArray<{ field: string }>
      assert.strictEqual(errors[0]?.field, "path.kind")
    }),
  )

  it.effect("bad query parameters are all named with a query. prefix", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(probeHandler)
      const r = yield* send(probeHandler, "/Probe/Query?page=abc", bearer(token))
      const body = expectProblem(r, 400, "bad-request", "BAD_REQUEST")
      const errors = body.errors as ReadonlyArray<{ field: string }>
      assert.deepStrictEqual(
        errors.map((e) => e.field),
        ["query.page", "query.size"],
      )
    }),
  )
})

describe("partner and customer tokens", () => {
  it.live("a customer token on a partner-only operation is 403 problem+json", () =>
    Effect.gen(function* () {
      const r = yield* send(probeHandler, "/Probe/PartnerOnly", bearer(yield* customerToken))
      expectProblem(r, 403, "forbidden", "FORBIDDEN")
    }),
  )

  it.effect("a partner token on a customer-only operation is 403", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(probeHandler)
      expectProblem(yield* send(probeHandler, "/Probe/CustomerOnly", bearer(token)), 403, "forbidden", "FORBIDDEN")
    }),
  )

  it.live("each kind reaches its own operation with its own identity", () =>
    Effect.gen(function* () {
      const partner = yield* send(probeHandler, "/Probe/PartnerOnly", bearer(yield* partnerToken(probeHandler)))
      assert.deepStrictEqual(partner.json, { partnerId })
      const customer = yield* send(probeHandler, "/Probe/CustomerOnly", bearer(yield* customerToken))
      assert.deepStrictEqual(customer.json, { registrationId })
    }),
  )
})

describe("domain errors map to problems", () => {
  const cases = [
    ["ValidationFailed", 422, "validation", "VALIDATION_FAILED"],
    ["IllegalTransition", 409, "illegal-transition", "ILLEGAL_TRANSITION"],
    ["RuleViolated", 422, "rule-violated", "DEBIT_LIMIT_EXCEEDED"],
    ["NotFound", 404, "not-found", "NOT_FOUND"],
    ["AlreadyExists", 409, "already-exists", "ALREADY_EXISTS"],
    ["VersionConflict", 409, "concurrent-modification", "CONCURRENT_MODIFICATION"],
    ["EventStoreUnavailable", 503, "unavailable", "SERVICE_UNAVAILABLE"],
  ] as const
  for (const [kind, status, type, code] of cases) {
    it.effect(`${kind} -> ${status} ${code}`, () =>
      Effect.gen(function* () {
        const token = yield* partnerToken(probeHandler)
        const r = yield* send(probeHandler, `/Probe/DomainError/${kind}`, bearer(token))
        expectProblem(r, status, type, code)
      }),
    )
  }

  it.effect("ValidationFailed lists every field", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(probeHandler)
      const r = yield* send(probeHandler, "/Probe/DomainError/ValidationFailed", bearer(token))
      assert.deepStrictEqual((r.json as { errors: unknown }).errors, [
        { field: "owner.emailAddress", message: "must be an email address" },
        { field: "employees[1].emailAddress", message: "duplicates employees[0].emailAddress" },
      ])
    }),
  )

  it.effect("EventStoreUnavailable does not leak the store's internals", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(probeHandler)
      const r = yield* send(probeHandler, "/Probe/DomainError/EventStoreUnavailable", bearer(token))
      assert.notInclude(JSON.stringify(r.json), "db.internal")
    }),
  )
})

describe("other problems", () => {
  it.effect("429 carries Retry-After", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(probeHandler)
      const r = yield* send(probeHandler, "/Probe/RateLimited", bearer(token))
      const body = expectProblem(r, 429, "rate-limited", "RATE_LIMITED")
      assert.strictEqual(r.headers.get("retry-after"), "30")
      assert.strictEqual(body.retryAfterSeconds, 30)
    }),
  )

  it.effect("an unexpected failure is 500 problem+json with a correlation id and no internals", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(probeHandler)
      const r = yield* send(probeHandler, "/Probe/Defect", bearer(token))
      expectProblem(r, 500, "internal", "INTERNAL_ERROR")
      assert.notInclude(JSON.stringify(r.json), "hunter2")
      assert.notInclude(JSON.stringify(r.json), "secret internals")
    }),
  )
})

describe("GET /openapi.json", () => {
  it.effect(
    "is an OpenAPI 3.1 document listing every decided operation with the bearer scheme and problem responses",
    () =>
      Effect.gen(function* () {
        const r = yield* send(handler, "/openapi.json")
        assert.strictEqual(r.status, 200)
        const doc = r.json as {
          openapi: string
          paths: Record<string, Record<string, { security?: unknown; responses: Record<string, { content?: object }> }>>
          components: { securitySchemes: Record<string, { type: string; scheme: string; bearerFormat?: string }> }
        }
        assert.match(doc.openapi, /^3\.1/)
        // The spec's own endpoint table is checked in OpenApi.test.ts; these are the operations
        // the spec only names in its changelog, at the paths partnerpay decided (docs/api/*.md).
        const decided: ReadonlyArray<readonly [string, string]> = [
          ["post", "/Payment/Create"],
          ["get", "/Payment/{paymentRequestId}"],
          ["get", "/Payment/History"],
          ["post", "/Transaction/{transferId}/Refund"],
          ["get", "/Transaction/Report"],
          ["post", "/PaymentPlan/Create"],
          ["get", "/PaymentPlan/{paymentPlanId}"],
          ["put", "/PaymentPlan/{paymentPlanId}/Activate"],
          ["put", "/PaymentPlan/{paymentPlanId}/Pause"],
          ["put", "/PaymentPlan/{paymentPlanId}/Resume"],
          ["put", "/PaymentPlan/{paymentPlanId}/Cancel"],
          ["get", "/Consent/List"],
          ["get", "/Consent/{consentId}"],
          ["put", "/Consent/{consentId}/Accept"],
          ["put", "/Consent/{consentId}/Decline"],
          ["post", "/DebitAuth/Set"],
          ["put", "/DebitAuth/{debitAuthId}/Update"],
          ["post", "/cardpayment"],
          ["post", "/Login/SendOtp"],
          ["get", "/Account/List"],
        ]
        const missing = decided.filter(([method, path]) => doc.paths[path]?.[method] === undefined)
        assert.deepStrictEqual(missing, [])
        assert.deepStrictEqual(Object.keys(doc.paths["/auth/token"] ?? {}), ["post"])
        assert.deepStrictEqual(Object.keys(doc.paths["/HealthCheck/Get"] ?? {}), ["get"])
        // HEAD: the interface's reachability probe (bearer); POST: the provider's own signed deliveries.
        assert.deepStrictEqual(Object.keys(doc.paths["/BankLinkWebhook/UpdateItem"] ?? {}).sort(), ["head", "post"])
        assert.deepStrictEqual(doc.paths["/BankLinkWebhook/UpdateItem"]?.post?.security, [])
        const schemes = Object.values(doc.components.securitySchemes)
        assert.deepStrictEqual(schemes, [{ type: "http", scheme: "bearer", bearerFormat: "JWT" }])
        const health = doc.paths["/HealthCheck/Get"]?.get
        assert.deepStrictEqual(health?.security, [{ bearer: [] }])
        for (const status of ["400", "401", "403", "500", "503"]) {
          assert.property(health?.responses, status)
          assert.property(health?.responses[status]?.content, "application/problem+json")
        }
        assert.deepStrictEqual(doc.paths["/auth/token"]?.post?.security, [])
      }),
  )

  it.effect("GET /docs serves an interactive reference page", () =>
    Effect.gen(function* () {
      const r = yield* send(handler, "/docs")
      assert.strictEqual(r.status, 200)
      assert.include(r.headers.get("content-type") ?? "", "text/html")
      assert.include(r.text, "/HealthCheck/Get")
    }),
  )
})
