/**
 * The overlay budget of the HTTP server's request contexts.
 *
 * Effect keeps each service a fiber is provided (`provideService`, the router's request services,
 * the API middleware's caller) as an overlay on its context, and past `maxDepth` overlays (8 by
 * default) it copies the whole context, every service of the runtime (about a hundred here), into a
 * new map. A write request puts more than 8 on its context. A request's context derives from the
 * context of the fiber that started the server (`NodeHttpServer` adds the request to it) and keeps its
 * `maxDepth`, so the server is started in a fiber whose context was made once with
 * `Context.makeUnsafe(map, { maxDepth })` (Effect's own setting for "additions to a large base").
 */
import { Context, Effect, Layer } from "effect"

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
