/**
 * The HTTP server of the service: the adapters-http routes on a Node server,
 * plus request logging (composed in Service.ts). Every request has one id:
 * the client's `X-Correlation-Id` when valid (1-128 of `A-Za-z0-9._:~-`), else
 * the trace id of a valid W3C `traceparent`, else a new UUID. It is returned
 * in `X-Correlation-Id` (and the problem `instance`), and is the `requestId`
 * annotation of every line logged while serving the request. One access line
 * per request records that id, method, route template, path (query string
 * dropped: it may carry ids a partner considers sensitive), status, duration
 * and the partner of a valid bearer token (written cheaply:
 * `Logging.AccessLog`, from the `RequestRecord` the API fills in).
 */
import { createServer } from "node:http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { OverlayBudget, RequestRecord, Server } from "@partnerpay/adapters-http"
import { Cause, Context, Effect, Layer, References } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as Logging from "../observability/Logging.ts"
import * as Metrics from "../observability/Metrics.ts"
import * as SandboxClock from "../sandbox/SandboxClock.ts"

export interface HttpOptions {
  readonly port: number
  readonly host: string
}

const pathOf = (url: string): string => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

/** Records a served request: its metrics, and its access line (when Info lines are on). */
const logAccess = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse,
  record: RequestRecord.RequestRecord,
  started: number,
) =>
  Effect.withFiber((fiber) => {
    const elapsed = performance.now() - started
    Metrics.recordRequestUnsafe(fiber.context, request.method, record.route, response.status, elapsed / 1000)
    if (Logging.infoEnabled(fiber.getRef(References.MinimumLogLevel))) {
      const durationMs = Math.round(elapsed * 10) / 10
      fiber.getRef(Logging.AccessLog)(
        {
          requestId: record.correlationId,
          method: request.method,
          route: record.route,
          path: pathOf(request.url),
          status: response.status,
          durationMs,
          partnerId: record.partnerId,
        },
        new Date(),
      )
    }
    return Effect.void
  })

/**
 * Server middleware: the request's one id (the client's `X-Correlation-Id`
 * or `traceparent` trace id when valid, else a new UUID) as the `requestId`
 * of every log line and in the `RequestRecord` the API fills in; one access
 * line per request.
 */
export const requestLogging = <E, R>(
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.withFiber((fiber) => {
    const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
    const headers = request.headers
    const record = new RequestRecord.RequestRecord(
      RequestRecord.fromHeaders(headers["x-correlation-id"], headers.traceparent) ?? crypto.randomUUID(),
    )
    const started = performance.now()
    const annotations = { ...fiber.getRef(References.CurrentLogAnnotations), requestId: record.correlationId }
    return httpEffect.pipe(
      Effect.tap((response) => logAccess(request, response, record, started)),
      Effect.tapCause((cause) =>
        // An interrupted request (client gone, shutdown) is not a failure worth a warning.
        Cause.hasInterruptsOnly(cause)
          ? Effect.void
          : Effect.logWarning("request failed", cause).pipe(
              Effect.annotateLogs({ method: request.method, path: pathOf(request.url) }),
            ),
      ),
      // The `requestId` of every line logged while serving, and the record: one context update for both.
      Effect.updateContext((context: Context.Context<R>) =>
        Context.add(
          Context.add(context, References.CurrentLogAnnotations, annotations),
          RequestRecord.CurrentRequestRecord,
          record,
        ),
      ),
    )
  })

/**
 * Route middleware for the service's own routes (outside the API's
 * ProblemHandling: sandbox, operator API, probes): records the route template
 * and sends the request's id in `X-Correlation-Id` when the route did not.
 */
export const serviceRoutes = HttpRouter.middleware((handler) =>
  Effect.withFiber((fiber) => {
    const record = fiber.getRef(RequestRecord.CurrentRequestRecord)
    if (record === undefined) return handler
    record.route = Context.getOrUndefined(fiber.context, HttpRouter.RouteContext)?.route.path
    return Effect.map(handler, (response) =>
      response.headers["x-correlation-id"] === undefined
        ? HttpServerResponse.setHeader(response, "x-correlation-id", record.correlationId)
        : response,
    )
  }),
).layer

/**
 * Span creation for the whole service: off unless PARTNERPAY_TRACING=on.
 * Off, `Effect.fn` and `Effect.withSpan` make no-op spans and the HTTP server
 * skips its per-request span (`References.TracerEnabled`), so tracing costs
 * (almost) nothing when nobody collects the spans.
 */
export const tracing = (enabled: boolean): Layer.Layer<never> => Layer.succeed(References.TracerEnabled, enabled)

/** Router and server options of the service's HTTP server (plus `middleware: requestLogging`). */
export const serveOptions = {
  routerConfig: Server.routerConfig,
  disableLogger: true,
  disableListenLog: true,
} as const

/** The Node HTTP server; the HttpServer stays visible to read the bound address when PORT=0. */
export const nodeServer = (options: HttpOptions) =>
  NodeHttpServer.layer(createServer, { port: options.port, host: options.host })

/**
 * Serves `routes` as the service does: exact-case routing, `requestLogging`,
 * the Node server (kept visible), spans on or off for every request fiber.
 */
export const serve = <A, E, R>(routes: Layer.Layer<A, E, R>, options: HttpOptions & { readonly tracing: boolean }) =>
  // Request contexts with a larger overlay budget than Effect's default, and without the ports
  // (adapters-http cross-cutting/OverlayBudget.ts): the API groups provide them, `recordRoutes` the others'.
  OverlayBudget.serveLean(routeOnly)(routes, (routes) =>
    HttpRouter.serve(routes, {
      ...serveOptions,
      middleware: (effect) => requestLogging(SandboxClock.requestClock(effect)),
    }),
  ).pipe(Layer.provideMerge(nodeServer(options)), Layer.provide(tracing(options.tracing)))

/**
 * The services a request's context starts without (`OverlayBudget.serveLean`): the domain's ports and
 * their PostgreSQL implementations, which only the routes use (and provide). What runs around the
 * routes (`requestLogging`, `SandboxClock.requestClock`, the router's middleware) uses none of them
 * at request time: the cross-cutting steps captured theirs when they were built.
 */
export const routeOnly = (key: string): boolean =>
  key.startsWith("partnerpay/domain/") ||
  key.startsWith("partnerpay/adapters-pg/") ||
  key.startsWith("@effect/sql-pg/") ||
  key.startsWith("effect/sql/") ||
  builtOnly.has(key)

/**
 * Services of the server's context that nothing running around the routes reads at request time: the
 * platform's (files, processes, terminal: only routes would use them), and those the cross-cutting steps and
 * the routes capture when they are built. Each request's context is copied twice when an API group adds its
 * services (`OverlayBudget.ts`): the fewer it holds, the less each request costs.
 *
 * Only services (`Context.Service`) may be listed: one missing at request time fails loudly. A
 * `Context.Reference` (HttpLimits, PinnedVersions, Workers, WebhookTargetPolicy, InstanceShare) would
 * silently read its default instead: the payer's address of an authorization's evidence was the proxy's
 * when HttpLimits was listed (AuthorizationEvidenceRetention.test).
 */
export const builtOnly: ReadonlySet<string> = new Set([
  "effect/FileSystem",
  "effect/Path",
  "~effect/Stdio",
  "effect/Terminal",
  "effect/process/ChildProcessSpawner",
  "effect/http/HttpPlatform",
  "effect/http/Etag/Generator",
  "partnerpay/adapters-http/Tokens",
  "partnerpay/adapters-http/HealthCheck",
  "partnerpay/adapters-http/ChatSigner",
])

/**
 * Serves `routes` recording each route they add (method and path) in `table`, which the server's
 * `Server.ServedRoutes` reads: a known path of the app's own routes (sandbox, operator API, probes,
 * metrics) called with another method answers 405 with `Allow`, as the API's paths do.
 */
export const recordRoutes = <A, E, R>(
  routes: Layer.Layer<A, E, R>,
  table: Array<{ readonly method: string; readonly path: string }>,
): Layer.Layer<A, E, R | HttpRouter.HttpRouter> =>
  Layer.provide(
    routes,
    Layer.effect(
      HttpRouter.HttpRouter,
      Effect.map(Effect.service(HttpRouter.HttpRouter), (served): HttpRouter.HttpRouter => {
        // Each route provided the services of its layer (`serve` leaves the ports out of a request's context).
        const router = OverlayBudget.provideBuildContext(served)
        return {
          ...router,
          add: (method, path, handler, options) => {
            table.push({ method, path })
            return router.add(method, path, handler, options)
          },
          addAll: (all) => {
            for (const route of all) table.push({ method: route.method, path: route.path })
            return router.addAll(all)
          },
        }
      }),
    ),
  )
