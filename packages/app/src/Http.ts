/**
 * The HTTP server of the service: the adapters-http routes on a Node server,
 * plus request logging (composed in Service.ts). Every request gets a `requestId` log annotation, so
 * each line logged while serving it (including ProblemHandling's failure
 * logs, which carry the client-visible `correlationId`) can be grouped; one
 * access line per request records method, path (query string dropped: it may
 * carry ids a partner considers sensitive), status, duration and the
 * correlation id sent to the client in `X-Correlation-Id`.
 */
import { createServer } from "node:http"
import { NodeHttpServer } from "@effect/platform-node"
import { Server } from "@partnerpay/adapters-http"
import { Cause, Effect } from "effect"
import { HttpServerRequest, type HttpServerResponse } from "effect/http"

export interface HttpOptions {
  readonly port: number
  readonly host: string
}

const pathOf = (url: string): string => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

/** Server middleware: request id annotation and one access log line per request. */
export const requestLogging = <E, R>(
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const requestId = crypto.randomUUID()
    const started = performance.now()
    return yield* httpEffect.pipe(
      Effect.tap((response) =>
        Effect.logInfo("request").pipe(
          Effect.annotateLogs({
            method: request.method,
            path: pathOf(request.url),
            status: response.status,
            durationMs: Math.round((performance.now() - started) * 10) / 10,
            correlationId: response.headers["x-correlation-id"] ?? null,
          }),
        ),
      ),
      Effect.tapCause((cause) =>
        // An interrupted request (client gone, shutdown) is not a failure worth a warning.
        Cause.hasInterruptsOnly(cause)
          ? Effect.void
          : Effect.logWarning("request failed", cause).pipe(
              Effect.annotateLogs({ method: request.method, path: pathOf(request.url) }),
            ),
      ),
      Effect.annotateLogs({ requestId }),
    )
  })

/** Router and server options of the service's HTTP server (plus `middleware: requestLogging`). */
export const serveOptions = {
  routerConfig: Server.routerConfig,
  disableLogger: true,
  disableListenLog: true,
} as const

/** The Node HTTP server; the HttpServer stays visible to read the bound address when PORT=0. */
export const nodeServer = (options: HttpOptions) =>
  NodeHttpServer.layer(createServer, { port: options.port, host: options.host })
