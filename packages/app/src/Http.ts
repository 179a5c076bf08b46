/**
 * The HTTP server of the service: the adapters-http routes on a Node server,
 * plus request logging. Every request gets a `requestId` log annotation, so
 * each line logged while serving it (including ProblemHandling's failure
 * logs, which carry the client-visible `correlationId`) can be grouped; one
 * access line per request records method, path (query string dropped: it may
 * carry ids a partner considers sensitive), status, duration and the
 * correlation id sent to the client in `X-Correlation-Id`.
 */
import { createServer } from "node:http"
import { NodeHttpServer } from "@effect/platform-node"
import { Server } from "@partnerpay/adapters-http"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"

export interface HttpOptions {
  readonly port: number
  readonly host: string
}

const pathOf = (url: string): string => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

/** Serves `Server.Routes` on a Node HTTP server with request logging. */
export const layer = (options: HttpOptions) =>
  HttpRouter.serve(Server.Routes, {
    routerConfig: Server.routerConfig,
    disableLogger: true,
    disableListenLog: true,
    middleware: (httpEffect) =>
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
            Effect.logWarning("request failed", cause).pipe(
              Effect.annotateLogs({ method: request.method, path: pathOf(request.url) }),
            ),
          ),
          Effect.annotateLogs({ requestId }),
        )
      }),
  }).pipe(
    // The HttpServer stays visible (to read the bound address when PORT=0).
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: options.port, host: options.host })),
  )
