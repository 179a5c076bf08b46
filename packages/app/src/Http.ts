/**
 * The HTTP server of the service: the adapters-http routes on a Node server,
 * plus request logging (composed in Service.ts). Every request gets a `requestId` log annotation, so
 * each line logged while serving it (including ProblemHandling's failure
 * logs, which carry the client-visible `correlationId`) can be grouped; one
 * access line per request records method, path (query string dropped: it may
 * carry ids a partner considers sensitive), status, duration and the
 * correlation id sent to the client in `X-Correlation-Id` (written cheaply:
 * `Logging.accessLine`).
 */
import { createServer } from "node:http"
import { NodeHttpServer } from "@effect/platform-node"
import { Server } from "@partnerpay/adapters-http"
import { Cause, Effect, Layer, References } from "effect"
import { HttpRouter, HttpServerRequest, type HttpServerResponse } from "effect/http"
import * as Logging from "./Logging.ts"

export interface HttpOptions {
  readonly port: number
  readonly host: string
}

const pathOf = (url: string): string => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

/** Writes the access line of a served request (when Info lines are on). */
const logAccess = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse,
  requestId: string,
  started: number,
) =>
  Effect.withFiber((fiber) => {
    if (Logging.infoEnabled(fiber.getRef(References.MinimumLogLevel))) {
      const durationMs = Math.round((performance.now() - started) * 10) / 10
      fiber.getRef(Logging.AccessLog)(
        Logging.accessLine(
          {
            requestId,
            method: request.method,
            path: pathOf(request.url),
            status: response.status,
            durationMs,
            correlationId: response.headers["x-correlation-id"],
          },
          new Date(),
        ),
      )
    }
    return Effect.void
  })

/** Server middleware: request id annotation and one access log line per request. */
export const requestLogging = <E, R>(
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const requestId = crypto.randomUUID()
    const started = performance.now()
    return httpEffect.pipe(
      Effect.tap((response) => logAccess(request, response, requestId, started)),
      Effect.tapCause((cause) =>
        // An interrupted request (client gone, shutdown) is not a failure worth a warning.
        Cause.hasInterruptsOnly(cause)
          ? Effect.void
          : Effect.logWarning("request failed", cause).pipe(
              Effect.annotateLogs({ method: request.method, path: pathOf(request.url) }),
            ),
      ),
      Effect.annotateLogs("requestId", requestId),
    )
  })

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
  HttpRouter.serve(routes, { ...serveOptions, middleware: (effect) => requestLogging(effect) }).pipe(
    Layer.provideMerge(nodeServer(options)),
    Layer.provide(tracing(options.tracing)),
  )
