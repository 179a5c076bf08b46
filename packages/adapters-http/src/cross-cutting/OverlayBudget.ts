/**
 * The request contexts of the HTTP server: their overlay budget, and how many services they copy.
 *
 * Effect keeps each service a fiber is provided (`provideService`, the router's request services,
 * the API middleware's caller) as an overlay on its context, and past `maxDepth` overlays (8 by
 * default) it copies the whole context, every service of the runtime, into a new map. A write
 * request puts more than 8 on its context. A request's context derives from the context of the
 * fiber that started the server (`NodeHttpServer` adds the request to it) and keeps its `maxDepth`,
 * so the server is started in a fiber whose context was made once with
 * `Context.makeUnsafe(map, { maxDepth })` (Effect's own setting for "additions to a large base").
 *
 * Each API request also merges its group's build context into its own (`HttpApiBuilder`'s
 * `Effect.provideContext`): Effect 4.1 flattens the request's context (a copy of every service the
 * server started with, plus the request's overlays) and copies it again to add the group's services.
 * `serveLean` starts the server with a small context (the ports left out: only the routes use them,
 * and the routes provide them themselves), so that those two copies are of a few dozen services.
 */
import { Context, Effect, Layer, Scope } from "effect"
import { type HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"

/** Overlays a request's context keeps before Effect copies it whole (Effect's default: 8). */
export const requestMaxDepth = 32

/**
 * `layer` (a server: `HttpRouter.serve(...)`) built in a fiber whose context allows `maxDepth`
 * overlays; every context derived from it (`add`, and `merge` into it) keeps that budget.
 */
export const serveWith =
  (maxDepth: number = requestMaxDepth) =>
  <A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
    Layer.fromBuild((memoMap, scope) =>
      Effect.updateContext(Layer.buildWithMemoMap(layer, memoMap, scope), (context: Context.Context<R>) =>
        Context.makeUnsafe<R>(context.mapUnsafe, { maxDepth }),
      ),
    )

/**
 * The server `serve` makes of `routes` (`(routes) => HttpRouter.serve(routes, ...)`), started in a
 * context without the services `routeOnly` names (with the overlay budget `maxDepth`): each request's
 * context derives from that small one. `routes` is built with every service of the context (an API
 * group captures them and provides them to each of its requests); a route that is no API endpoint
 * must provide what it uses itself (`provideBuildContext`), and whatever runs around the routes (the
 * server's and the router's middleware) must use no service `routeOnly` names, unless it captured
 * the service when it was built.
 */
export const serveLean =
  (routeOnly: (key: string) => boolean, maxDepth: number = requestMaxDepth) =>
  <A, E, R, A2, E2, R2>(
    routes: Layer.Layer<A, E, R>,
    serve: (routes: Layer.Layer<A, E, R>) => Layer.Layer<A2, E2, R2>,
  ): Layer.Layer<A2, E2, R2> =>
    Layer.fromBuild((memoMap, scope) =>
      Effect.contextWith((full: Context.Context<R2>) => {
        const lean = new Map<string, unknown>()
        for (const [key, value] of full.mapUnsafe) if (!routeOnly(key)) lean.set(key, value)
        const routesWithAll = Layer.provide(routes, Layer.succeedContext(Context.omit(Scope.Scope)(full)))
        return Effect.updateContext(
          Layer.buildWithMemoMap(serve(routesWithAll as Layer.Layer<A, E, R>), memoMap, scope),
          () => Context.makeUnsafe<R2>(lean, { maxDepth }),
        )
      }),
    )

/** `handler` (a route's, as `HttpRouter.add` takes it) run with `context` provided. */
const withContext = <H>(handler: H, context: Context.Context<never>): H => {
  if (HttpServerResponse.isHttpServerResponse(handler)) return handler
  if (Effect.isEffect(handler)) return Effect.provideContext(handler, context) as H
  return ((request: HttpServerRequest.HttpServerRequest) =>
    Effect.provideContext(
      (handler as (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<unknown>)(request),
      context,
    )) as H
}

/**
 * `router` adding each route with the context of the fiber that adds it (the routes' layer's, but its
 * scope) provided to the route's handler, as an API group does: the routes of a server started by
 * `serveLean` find the services it left out of the request's context.
 */
export const provideBuildContext = (router: HttpRouter.HttpRouter): HttpRouter.HttpRouter => ({
  ...router,
  add: (method, path, handler, options) =>
    Effect.contextWith((context: Context.Context<never>) =>
      router.add(method, path, withContext(handler, Context.omit(Scope.Scope)(context)), options),
    ),
  // The routes' requirements are the same (they are met by the context they are given): typed as `addAll`'s.
  addAll: ((routes: ReadonlyArray<HttpRouter.Route<unknown, unknown>>) =>
    Effect.contextWith((context: Context.Context<never>) => {
      const provided = Context.omit(Scope.Scope)(context)
      return router.addAll(
        routes.map((route) =>
          Object.assign(Object.create(Object.getPrototypeOf(route)), route, {
            handler: Effect.provideContext(route.handler, provided),
          }),
        ),
      )
    })) as HttpRouter.HttpRouter["addAll"],
})
