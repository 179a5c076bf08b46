/** Shared test wiring: in-memory ports, an in-process server, raw and typed clients. */
import {
  Attachments,
  CardCharger,
  CustomerProviderSandboxes,
  EventPipeline,
  IdempotencyStore,
  IdGenerator,
  Ids,
  TokenGenerations,
  Transfers,
  UnitOfWork,
  WebhookLog,
} from "@partnerpay/domain"
import { Clock, Context, Effect, Layer, Option, Redacted } from "effect"
import { HttpClient, HttpClientRequest, HttpServerRequest, type HttpServerResponse } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { Api } from "../src/Api.ts"
import * as CrossCutting from "../src/cross-cutting/CrossCutting.ts"
import { layerMemory } from "../src/cross-cutting/PartnerCredentialsMemory.ts"
import { Tokens } from "../src/cross-cutting/Tokens.ts"
import * as CustomerIdentityPorts from "../src/customers/CustomerIdentityPorts.ts"
import { HealthCheck, Unhealthy } from "../src/health/HealthCheck.ts"
import * as Server from "../src/Server.ts"

export const partnerId = Ids.PartnerId.make("0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b")
export const otherPartnerId = Ids.PartnerId.make("1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f")
export const registrationId = Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-00000000c0de")
export const clientId = "partner-client-1"
export const clientSecret = "correct horse battery staple"
export const tokenSecret = Redacted.make("test-secret-0123456789-abcdefghijklmnop")
export const baseUrl = "http://partnerpay.test"

/** Health is controlled by the test through this flag. */
export const health = { healthy: true }

/** Tokens with in-memory revocation (the same `TokenGenerations` is provided to the tests). */
export const TokensTest = Tokens.layer({ secret: tokenSecret }).pipe(
  Layer.provide(IdGenerator.IdGenerator.layerRandom),
  Layer.provideMerge(TokenGenerations.TokenGenerations.layerMemory),
)

/** The whole domain in memory: event store with projections and outbox, unit of work, ids, attachments. */
export const DomainInMemory = Layer.mergeAll(
  Layer.provideMerge(WebhookLog.WebhookLog.layerMemory, EventPipeline.layerMemory()),
  WebhookLog.WebhookTargets.layerAllowAll,
  UnitOfWork.UnitOfWork.layerMemory,
  IdGenerator.IdGenerator.layerRandom,
  Attachments.PaymentAttachments.layerMemory,
)

export const Ports = Layer.mergeAll(
  Transfers.eSignatureSandbox,
  CardCharger.CardCharger.layerSandbox,
  CustomerProviderSandboxes.layerCardProcessorSandbox,
  DomainInMemory,
  // OTP code always 123456, sandbox bank-link and KYC providers, recorded SMS
  CustomerIdentityPorts.layerSandbox,
  IdempotencyStore.layerMemory,
  // Suites send bursts of requests from one "IP"; CrossCutting.test.ts checks the real limits.
  CrossCutting.layerLimits({ rateLimiting: false }),
  layerMemory([
    { clientId, clientSecret: Redacted.make(clientSecret), partnerId },
    { clientId: "partner-client-2", clientSecret: Redacted.make("another secret"), partnerId: otherPartnerId },
  ]),
  TokensTest,
  Layer.succeed(
    HealthCheck,
    HealthCheck.of({
      check: Effect.suspend(() =>
        health.healthy ? Effect.void : Effect.fail(new Unhealthy({ reason: "database unreachable" })),
      ),
    }),
  ),
)

/**
 * The in-process server. Its handler's optional request context may override
 * services for one request (e.g. the test's Clock); the ports themselves are
 * provided by `Ports`, so the handler is typed as needing nothing.
 */
export const makeServer = (): { readonly handler: Handler; readonly dispose: () => Promise<void> } => {
  const { handler, dispose } = Server.toWebHandler(Ports)
  return { handler: handler as unknown as Handler, dispose }
}

/** Sends a raw request to the in-process server (with `context`, e.g. the test's Clock, for the request). */
export const send = (
  handler: Handler,
  path: string,
  init?: RequestInit,
  context?: Context.Context<never>,
): Effect.Effect<{ status: number; headers: Headers; text: string; json: unknown }> =>
  Effect.promise(async () => {
    const response = await handler(new Request(`${baseUrl}${path}`, init), context)
    const text = await response.text()
    let json: unknown
    try {
      json = text === "" ? undefined : JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: response.status, headers: response.headers, text, json }
  })

export type Handler = (request: Request, context?: Context.Context<never>) => Promise<Response>

/** A request context carrying the calling fiber's Clock, so the server sees TestClock time. */
export const withTestClock: Effect.Effect<Context.Context<never>> = Effect.gen(function* () {
  const clock = yield* Clock.Clock
  return Context.make(Clock.Clock, clock) as Context.Context<never>
})

export const bearer = (token: string): RequestInit => ({ headers: { authorization: `Bearer ${token}` } })

export const postJson = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: typeof body === "string" ? body : JSON.stringify(body),
})

/** The typed client derived from the API definition, talking to the in-process server. */
export const typedClient = (handler: Handler, token?: string) =>
  Effect.gen(function* () {
    const httpClient = yield* HttpClient.HttpClient
    return yield* HttpApiClient.makeWith(Api, {
      httpClient:
        token === undefined ? httpClient : httpClient.pipe(HttpClient.mapRequest(HttpClientRequest.bearerToken(token))),
      baseUrl,
    })
  }).pipe(Effect.provide(Server.clientFor(handler)))

/** A partner token obtained through POST /auth/token. */
export const partnerToken = (handler: Handler, context?: Context.Context<never>) =>
  Effect.map(
    send(handler, "/auth/token", postJson({ ClientId: clientId, ClientSecret: clientSecret }), context),
    (r) => {
      if (r.status !== 200) throw new Error(`token request failed: ${r.status} ${r.text}`)
      return (r.json as { AccessToken: string }).AccessToken
    },
  )

/** The header through which a test plays the socket peer of an in-process request (it has no socket). */
export const peerHeader = "x-test-socket-peer"

/**
 * Server middleware for in-process servers (`HttpRouter.toWebHandler`'s `middleware`): the
 * request's peer address is the `x-test-socket-peer` header, as a socket's would be.
 */
export const socketPeerFromHeader = <E, R>(effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.updateService(effect, HttpServerRequest.HttpServerRequest, (request) =>
    request.modify({ remoteAddress: Option.fromUndefinedOr(request.headers[peerHeader]) }),
  )
