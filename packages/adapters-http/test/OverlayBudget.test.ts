/**
 * The request contexts of a server started with `OverlayBudget.serveWith`: Effect's `maxDepth`
 * (how many provided services a context keeps as overlays before copying every service of the
 * runtime) is the budget, for every request, and a request's services are its own. A server started
 * with `OverlayBudget.serveLean` leaves the route-only services out of a request's context; a route
 * added through `provideBuildContext` still finds them.
 */
import { createServer } from "node:http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as OverlayBudget from "../src/cross-cutting/OverlayBudget.ts"

class RequestId extends Context.Service<RequestId, string>()("test/OverlayBudget/RequestId") {}
class Runtime extends Context.Service<Runtime, string>()("test/OverlayBudget/Runtime") {}

/** Effect's own field: the overlays a context keeps before it is copied (not in the public type). */
const maxDepthOf = (context: Context.Context<never>): number => (context as unknown as { maxDepth: number }).maxDepth

/** GET /budget?id=...: the request's context's budget, and its id read back after 20 services provided on top. */
const route = HttpRouter.add(
  "GET",
  "/budget",
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const id = new URL(request.url, "http://localhost").searchParams.get("id") ?? ""
    let answer: Effect.Effect<
      { readonly maxDepth: number; readonly id: string; readonly runtime: string },
      never,
      RequestId | Runtime
    > = Effect.withFiber((fiber) =>
      Effect.succeed({
        maxDepth: maxDepthOf(fiber.context as Context.Context<never>),
        id: Context.getUnsafe(fiber.context as Context.Context<RequestId>, RequestId),
        runtime: Context.getUnsafe(fiber.context as Context.Context<Runtime>, Runtime),
      }),
    )
    for (let index = 0; index < 20; index++) {
      answer = Effect.provideService(answer, Context.Service<never, number>(`test/OverlayBudget/Extra${index}`), index)
    }
    return HttpServerResponse.jsonUnsafe(yield* Effect.provideService(answer, RequestId, id))
  }),
)

const serverLayer = (
  budget: (
    layer: Layer.Layer<never, never, HttpServer.HttpServer | Runtime>,
  ) => Layer.Layer<never, never, HttpServer.HttpServer | Runtime>,
) =>
  budget(HttpRouter.serve(route, { disableLogger: true, disableListenLog: true })).pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
    Layer.provide(Layer.succeed(Runtime, "built")),
  )

const get = (id: string) =>
  Effect.gen(function* () {
    const address = (yield* HttpServer.HttpServer).address
    const port = address._tag === "InetAddressV4" ? address.port : 0
    return yield* Effect.promise(async () => (await fetch(`http://127.0.0.1:${port}/budget?id=${id}`)).json())
  })

describe("a server started with the request overlay budget", () => {
  it.live("gives every request's context that budget", () =>
    Effect.gen(function* () {
      const answers = yield* Effect.all([get("a"), get("b")], { concurrency: 2 })
      assert.deepStrictEqual(answers, [
        { maxDepth: OverlayBudget.requestMaxDepth, id: "a", runtime: "built" },
        { maxDepth: OverlayBudget.requestMaxDepth, id: "b", runtime: "built" },
      ])
    }).pipe(Effect.provide(serverLayer(OverlayBudget.serveWith()))),
  )
})

describe("a server started without it", () => {
  it.live("gives its requests Effect's default budget (8), the same services", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* get("c"), { maxDepth: 8, id: "c", runtime: "built" })
    }).pipe(Effect.provide(serverLayer((layer) => layer))),
  )
})

class Port extends Context.Service<Port, string>()("test/port/Store") {}

/** GET /<path>: the budget of the request's context, and the port as the route finds it (or "absent"). */
const portRoute = (path: `/${string}`) =>
  HttpRouter.add(
    "GET",
    path,
    Effect.withFiber((fiber) =>
      Effect.succeed(
        HttpServerResponse.jsonUnsafe({
          maxDepth: maxDepthOf(fiber.context as Context.Context<never>),
          port: Context.getOrUndefined(fiber.context as Context.Context<Port>, Port) ?? "absent",
        }),
      ),
    ),
  )

/** `/provided` added through `provideBuildContext`, `/bare` straight to the router; served lean (without the port). */
const leanServer = OverlayBudget.serveLean((key) => key.startsWith("test/port/"))(
  Layer.mergeAll(
    portRoute("/provided").pipe(
      Layer.provide(
        Layer.effect(
          HttpRouter.HttpRouter,
          Effect.map(Effect.service(HttpRouter.HttpRouter), OverlayBudget.provideBuildContext),
        ),
      ),
    ),
    portRoute("/bare"),
  ),
  (routes) => HttpRouter.serve(routes, { disableLogger: true, disableListenLog: true }),
).pipe(
  Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
  Layer.provide(Layer.succeed(Port, "the store")),
)

const getPath = (path: string) =>
  Effect.gen(function* () {
    const address = (yield* HttpServer.HttpServer).address
    const port = address._tag === "InetAddressV4" ? address.port : 0
    return yield* Effect.promise(async () => (await fetch(`http://127.0.0.1:${port}${path}`)).json())
  })

describe("a server started lean", () => {
  it.live("starts each request's context without the route-only services, with the overlay budget", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* getPath("/bare"), { maxDepth: OverlayBudget.requestMaxDepth, port: "absent" })
    }).pipe(Effect.provide(leanServer)),
  )

  it.live("gives a route added through provideBuildContext the services of its layer", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* getPath("/provided"), {
        maxDepth: OverlayBudget.requestMaxDepth,
        port: "the store",
      })
    }).pipe(Effect.provide(leanServer)),
  )
})
