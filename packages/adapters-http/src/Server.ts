/**
 * Serving the API: the routes (API, /openapi.json, /docs), a Node HTTP server
 * layer, and an in-process web handler for tests.
 *
 * Routing is case-sensitive (`/company/status` and `/Company/Create` exactly as
 * the interface writes them; other casing is 404) and the default
 * per-request logger is off (it halves throughput): failures are logged
 * deliberately by `ProblemHandling`. Unknown routes answer a 404 problem; a
 * known path called with a method it is not served with answers 405 with
 * `Allow` (`AllowedMethods`).
 */
import { createServer } from "node:http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type {
  Attachments,
  CardCharger,
  CustomerProviders,
  EventStore,
  IdempotencyStore,
  IdGenerator,
  PartnerCredentials,
  PaymentProviders,
  ReadModel,
  UnitOfWork,
  WebhookLog,
} from "@partnerpay/domain"
import { Context, Effect, Fiber, Layer, Option, type Types } from "effect"
import {
  FetchHttpClient,
  type HttpClient,
  HttpRouter,
  HttpServer,
  HttpServerError,
  HttpServerResponse,
} from "effect/http"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"
import { Api } from "./Api.ts"
import { AuthLive } from "./auth/AuthLive.ts"
import { CardPaymentLive } from "./cards-and-charity/CardPaymentLive.ts"
import { CharityLive } from "./cards-and-charity/CharityLive.ts"
import { CompanyLive } from "./companies/CompanyLive.ts"
import { allowedMethods, type RouteTemplate, routesOf } from "./cross-cutting/AllowedMethods.ts"
import { AuthenticationLive } from "./cross-cutting/AuthenticationLive.ts"
import * as CrossCutting from "./cross-cutting/CrossCutting.ts"
import * as OverlayBudget from "./cross-cutting/OverlayBudget.ts"
import * as Problem from "./cross-cutting/Problem.ts"
import { failureResponse, ProblemHandling } from "./cross-cutting/ProblemHandling.ts"
import * as ProblemPages from "./cross-cutting/ProblemPages.ts"
import { correlationIdOf } from "./cross-cutting/RequestRecord.ts"
import type { Tokens } from "./cross-cutting/Tokens.ts"
import { AccountLive } from "./customers/AccountLive.ts"
import { BankLinkCallbackLive } from "./customers/BankLinkCallbackLive.ts"
import type { CustomerIdentityPorts } from "./customers/CustomerIdentityPorts.ts"
import { CustomerLive } from "./customers/CustomerLive.ts"
import { LoginLive } from "./customers/LoginLive.ts"
import { VerificationLive } from "./customers/VerificationLive.ts"
import type { HealthCheck } from "./health/HealthCheck.ts"
import { HealthLive } from "./health/HealthLive.ts"
import { DebitAuthLive } from "./payments/DebitAuthLive.ts"
import { PaymentLive } from "./payments/PaymentLive.ts"
import { TransactionLive } from "./payments/TransactionLive.ts"
import { PayoutLive } from "./payouts/PayoutLive.ts"
import { ConsentLive } from "./plans/ConsentLive.ts"
import { PaymentPlanLive } from "./plans/PaymentPlanLive.ts"
import { DeliveriesLive } from "./webhooks/DeliveriesLive.ts"
import { EventsLive } from "./webhooks/EventsLive.ts"
import { WebhookLive } from "./webhooks/WebhookLive.ts"

/** Router options used by every way of serving: exact-case paths. */
export const routerConfig = { caseSensitive: true } as const

/** The OpenAPI 3.1 document path and the interactive reference page path. */
export const openApiPath = "/openapi.json"
export const docsPath = "/docs"

/** Scalar's configuration (its `showDeveloperTools` is newer than the type Effect declares). */
const scalarConfig = { withDefaultFonts: false, showDeveloperTools: "never" } as HttpApiScalar.ScalarConfig

let knownRoutes: ReadonlyArray<{ readonly method: string; readonly path: string }> | undefined

/** The API's routes and the document's, made at the first unknown route. */
const routeTable = () =>
  (knownRoutes ??= routesOf(Api, [
    { method: "GET", path: openApiPath },
    { method: "GET", path: docsPath },
    { method: "GET", path: ProblemPages.pagesPath },
    { method: "GET", path: `${ProblemPages.pagesPath}/:type` },
  ]))

/**
 * The routes a server serves beside the API's (the app's sandbox, operator, probe and metrics routes),
 * filled as they are added (`recordRoutes` in the app), so that they answer 405 with `Allow` too.
 */
export const ServedRoutes = Context.Reference<ReadonlyArray<RouteTemplate>>("partnerpay/adapters-http/ServedRoutes", {
  defaultValue: () => [],
})

/** Whether a server serves the partner API (false on the operator and metrics listeners: their 405s name only their own routes). */
export const ServesApi = Context.Reference<boolean>("partnerpay/adapters-http/ServesApi", {
  defaultValue: () => true,
})

/** Unknown routes and failures outside the API middleware become problems too. */
export const RouterProblems = HttpRouter.middleware(
  (httpEffect) =>
    Effect.catchCause(httpEffect, (cause) => {
      const fiber = Fiber.getCurrent()
      const correlationId = fiber === undefined ? crypto.randomUUID() : correlationIdOf(fiber)
      const failure = Problem.squashCause(cause)
      if (
        Option.isSome(failure) &&
        HttpServerError.isHttpServerError(failure.value) &&
        failure.value.reason._tag === "RouteNotFound"
      ) {
        const request = failure.value.request
        const served = fiber === undefined ? [] : fiber.getRef(ServedRoutes)
        const api = fiber === undefined || fiber.getRef(ServesApi) ? routeTable() : []
        const allow = allowedMethods(served.length === 0 ? api : [...api, ...served], request.url)
        return Problem.toResponse(
          allow.length > 0 ? Problem.methodNotAllowed(request.method, allow) : Problem.routeNotFound(),
          correlationId,
        )
      }
      return failureResponse(cause, correlationId)
    }) as Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled>,
  { global: true },
)

/** The handler layers of every group, with the middleware implementations. */
export const HandlersLive = Layer.mergeAll(
  AuthLive,
  LoginLive,
  AccountLive,
  VerificationLive,
  HealthLive,
  WebhookLive,
  BankLinkCallbackLive,
  CompanyLive,
  CustomerLive,
  DebitAuthLive,
  CardPaymentLive,
  CharityLive,
  PaymentPlanLive,
  ConsentLive,
  PaymentLive,
  TransactionLive,
  DeliveriesLive,
  EventsLive,
  PayoutLive,
).pipe(Layer.provideMerge(AuthenticationLive), Layer.provideMerge(ProblemHandling.layer))

let docsPage: Promise<string> | undefined

/**
 * The reference page's HTML, made once, at its first request: Scalar's inlined script is 6 MB of
 * source (12 MB of heap with its module), which an instance that never serves /docs never loads.
 */
const loadDocsPage = (): Promise<string> => {
  docsPage ??= (async () => {
    const { handler, dispose } = HttpRouter.toWebHandler(
      HttpApiScalar.layer(Api, { path: docsPath, scalar: scalarConfig }).pipe(Layer.provide(HttpServer.layerServices)),
      { disableLogger: true },
    )
    try {
      return await (await handler(new Request(`http://localhost${docsPath}`))).text()
    } finally {
      await dispose()
    }
  })().catch((error: unknown) => {
    docsPage = undefined
    throw error
  })
  return docsPage
}

/** GET /docs: the API reference page (Scalar, self-contained; see `Routes`). */
const DocsRoute = HttpRouter.add(
  "GET",
  docsPath,
  Effect.map(Effect.promise(loadDocsPage), (page) => HttpServerResponse.text(page, { contentType: "text/html" })),
)

const markdown = (text: string) => HttpServerResponse.text(text, { contentType: "text/markdown; charset=utf-8" })

/** GET /docs/problems: the index of problem types (markdown). */
const ProblemIndexRoute = HttpRouter.add(
  "GET",
  ProblemPages.pagesPath,
  Effect.sync(() => markdown(ProblemPages.renderIndex())),
)

/** GET /docs/problems/{type}: the page of a problem type (the slug of its `type` URI, or one of its codes). */
const ProblemPageRoute = HttpRouter.add(
  "GET",
  `${ProblemPages.pagesPath}/:type`,
  Effect.flatMap(HttpRouter.params, (params) => {
    const found = ProblemPages.find(params.type ?? "")
    return found === undefined
      ? Effect.fail(Problem.routeNotFound())
      : Effect.succeed(markdown(ProblemPages.render(found.slug, found.page)))
  }),
)

/**
 * All routes; requires the ports: `Tokens`, `PartnerCredentials`, `HealthCheck`
 * (and `HttpRouter`, supplied by `serve`/`toWebHandler`).
 */
export const Routes = Layer.mergeAll(
  HttpApiBuilder.layer(Api, { openapiPath: openApiPath }),
  // The reference page is self-contained: Scalar's script is inlined and its default web fonts (fetched from
  // Scalar's CDN) are off, so /docs makes no request outside the service (tested in a real browser).
  // Scalar's developer toolbar (shown on localhost, with buttons that upload the document to Scalar's
  // cloud to share or deploy it) is off: the reference never sends the document anywhere.
  DocsRoute,
  ProblemIndexRoute,
  ProblemPageRoute,
  RouterProblems,
  // rate limits, body size limit, Idempotency-Key on every POST (see CrossCutting.ts)
  CrossCutting.layer,
).pipe(Layer.provide(HandlersLive))

export interface ServeOptions {
  readonly port: number
  readonly host?: string | undefined
}

/** Serves the API on a Node HTTP server. */
export const layer = (options: ServeOptions) =>
  // Request contexts with a larger overlay budget, started without the domain's ports (the API groups
  // provide them to their requests; see cross-cutting/OverlayBudget.ts).
  OverlayBudget.serveLean((key) => key.startsWith("partnerpay/domain/"))(Routes, (routes) =>
    HttpRouter.serve(routes, { routerConfig, disableLogger: true }),
  ).pipe(
    // The HttpServer stays visible (e.g. to read the bound address when port is 0).
    Layer.provideMerge(
      NodeHttpServer.layer(
        createServer,
        options.host === undefined ? { port: options.port } : { port: options.port, host: options.host },
      ),
    ),
  )

/**
 * An in-process `fetch`-style handler for the API (no port), built from the
 * given port implementations. Call `dispose` when done.
 */
export const toWebHandler = <E>(ports: Layer.Layer<RoutesPorts, E>) =>
  HttpRouter.toWebHandler(Routes.pipe(Layer.provide(ports), Layer.provide(HttpServer.layerServices)), {
    routerConfig,
    disableLogger: true,
  })

/** Provider ports the handlers use (named here so the layers' types can be emitted). */
export type HandlerProviders =
  | CustomerProviders.BankLinker
  | CustomerProviders.KycProvider
  | CustomerProviders.OtpSender

/** The ports `Routes` needs from the application. */
export type RoutesPorts =
  | Tokens
  | PartnerCredentials.PartnerCredentials
  | HealthCheck
  // the domain's ports, used by the business groups' handlers
  | EventStore.EventStore
  | ReadModel.ReadModelStore
  | UnitOfWork.UnitOfWork
  | IdGenerator.IdGenerator
  // Idempotency-Key records (CrossCutting.ts)
  | IdempotencyStore.IdempotencyStore
  // customer login, bank accounts, verification (CustomerIdentityPorts.ts)
  | CustomerIdentityPorts
  // reimbursement signing (the app provides the sandbox or a real provider)
  | PaymentProviders.ESignature
  // in-app card payment of a payment request (POST .../PayWithCard)
  | CardCharger.CardCharger
  // terminal card payments registered with the processor (POST /cardpayment)
  | CustomerProviders.CardProcessor
  // the partner's own webhooks: deliveries, events, endpoint (DeliveriesApi.ts, EventsApi.ts)
  | WebhookLog.WebhookLog
  // which webhook URLs a partner may set (the app's WebhookTarget policy)
  | WebhookLog.WebhookTargets
  // payment attachments: listed with a request, downloaded by the partner or the payer
  | Attachments.PaymentAttachments

/** An `HttpClient` that sends every request to a web handler in-process. */
export const clientFor = (handler: (request: Request) => Promise<Response>): Layer.Layer<HttpClient.HttpClient> =>
  FetchHttpClient.layer.pipe(
    Layer.provide(
      Layer.succeed(FetchHttpClient.Fetch, ((input: string | URL | Request, init?: RequestInit) =>
        handler(new Request(input, init))) as typeof globalThis.fetch),
    ),
  )
