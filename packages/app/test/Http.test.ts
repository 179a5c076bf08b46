/**
 * The service's HTTP serving (Http.ts) on a real Node server: spans only when
 * PARTNERPAY_TRACING asks for them, and one cheap access line per request.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Tracer } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import * as Http from "../src/Http.ts"
import * as Logging from "../src/Logging.ts"

/** A tracer that counts the spans it is asked to create. */
const countingTracer = () => {
  const created: Array<string> = []
  const tracer = Tracer.make({
    span(options) {
      created.push(options.name)
      return new Tracer.NativeSpan(options)
    },
  })
  return { created, tracer }
}

const handler = Effect.fn("HttpTest.handler")(function* () {
  yield* Effect.void
  return HttpServerResponse.text("ok", { headers: { "x-correlation-id": "c0ffee00-0000-4000-8000-000000000001" } })
})

const Route = HttpRouter.add("GET", "/traced", handler())

/** Serves the route on a free port, sends `path`, returns the status and the log lines. */
const serveAndGet = (options: { readonly tracing: boolean; readonly tracer: Tracer.Tracer }, path: string) =>
  Effect.gen(function* () {
    const lines: Array<string> = []
    const status = yield* Effect.gen(function* () {
      const server = yield* HttpServer.HttpServer
      const address = server.address
      if (address._tag !== "InetAddressV4") throw new Error("expected an IPv4 address")
      const response = yield* Effect.promise(() => fetch(`http://127.0.0.1:${address.port}${path}`))
      yield* Effect.promise(() => response.text())
      return response.status
    }).pipe(
      Effect.provide(
        Http.serve(Route, { port: 0, host: "127.0.0.1", tracing: options.tracing }).pipe(
          Layer.provide(Layer.succeed(Tracer.Tracer, options.tracer)),
          Layer.provide(Logging.layer("Info", (line) => lines.push(line))),
        ),
      ),
      Effect.scoped,
    )
    return { status, lines }
  })

describe("HTTP serving", () => {
  it.live("creates no span while serving a request when tracing is off", () =>
    Effect.gen(function* () {
      const { created, tracer } = countingTracer()
      const { status } = yield* serveAndGet({ tracing: false, tracer }, "/traced")
      assert.strictEqual(status, 200)
      assert.deepStrictEqual(created, [])
    }),
  )

  it.live("creates the request's spans (server and Effect.fn) when tracing is on", () =>
    Effect.gen(function* () {
      const { created, tracer } = countingTracer()
      const { status } = yield* serveAndGet({ tracing: true, tracer }, "/traced")
      assert.strictEqual(status, 200)
      assert.include(created, "HttpTest.handler")
      assert.isAbove(created.length, 1)
    }),
  )

  it.live("writes one access line per request: method, path without query, status, duration, request id", () =>
    Effect.gen(function* () {
      const { tracer } = countingTracer()
      const { lines } = yield* serveAndGet({ tracing: false, tracer }, "/traced?companyId=secret-looking-id")
      const access = lines.filter((line) => line.includes('"message":"request"'))
      assert.strictEqual(access.length, 1)
      const line = JSON.parse(access[0]!) as {
        message: string
        level: string
        timestamp: string
        annotations: Record<string, unknown>
      }
      assert.strictEqual(line.level, "INFO")
      assert.isFalse(Number.isNaN(Date.parse(line.timestamp)))
      assert.strictEqual(line.annotations.method, "GET")
      assert.strictEqual(line.annotations.path, "/traced")
      assert.strictEqual(line.annotations.status, 200)
      assert.isNumber(line.annotations.durationMs)
      assert.match(String(line.annotations.requestId), /^[0-9a-f]{8}-[0-9a-f]{4}-/)
      assert.strictEqual(line.annotations.correlationId, "c0ffee00-0000-4000-8000-000000000001")
      assert.notInclude(access[0]!, "secret-looking-id")
    }),
  )
})

describe("the access line", () => {
  it("is valid JSON whatever the path holds", () => {
    const line = Logging.accessLine(
      {
        requestId: "r-1",
        method: "GET",
        path: '/a"b\\c\u0001\n',
        status: 404,
        durationMs: 0.3,
        correlationId: undefined,
      },
      new Date(0),
    )
    const parsed = JSON.parse(line) as { timestamp: string; annotations: Record<string, unknown> }
    assert.strictEqual(parsed.annotations.path, '/a"b\\c\u0001\n')
    assert.strictEqual(parsed.annotations.correlationId, null)
    assert.strictEqual(parsed.timestamp, "1970-01-01T00:00:00.000Z")
  })

  it("is not written when the level is above Info", () => {
    assert.isTrue(Logging.infoEnabled("Info"))
    assert.isTrue(Logging.infoEnabled("Debug"))
    assert.isFalse(Logging.infoEnabled("Warn"))
    assert.isFalse(Logging.infoEnabled("None"))
  })
})
