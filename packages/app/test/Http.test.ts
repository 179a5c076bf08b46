/**
 * The service's HTTP serving (Http.ts) on a real Node server: spans only when
 * PARTNERPAY_TRACING asks for them, one cheap access line per request, one id
 * per request (the client's X-Correlation-Id or traceparent trace id when
 * valid), and log lines whose message is always a string.
 */
import { assert, describe, it } from "@effect/vitest"
import { RequestRecord, Server } from "@partnerpay/adapters-http"
import { Effect, Layer, Tracer } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import * as Http from "../src/http/Http.ts"
import * as Logging from "../src/observability/Logging.ts"

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
  yield* Effect.logInfo("handled", { extra: 1 })
  return HttpServerResponse.text("ok")
})

/** A plain route, as the service's own routes are served (route template and id header by `Http.serviceRoutes`). */
const Route = HttpRouter.add("GET", "/traced", handler()).pipe(Layer.provide(Http.serviceRoutes))

/** Serves the route on a free port, sends `path`, returns the status and the log lines. */
const serveAndGet = (
  options: {
    readonly tracing: boolean
    readonly tracer: Tracer.Tracer
    readonly logFormat?: "json" | "pretty"
  },
  path: string,
  headers: Record<string, string> = {},
  routes: Layer.Layer<never, never, HttpRouter.HttpRouter> = Route,
) =>
  Effect.gen(function* () {
    const lines: Array<string> = []
    let header: string | null = null
    const status = yield* Effect.gen(function* () {
      const server = yield* HttpServer.HttpServer
      const address = server.address
      if (address._tag !== "InetAddressV4") throw new Error("expected an IPv4 address")
      const response = yield* Effect.promise(() => fetch(`http://127.0.0.1:${address.port}${path}`, { headers }))
      yield* Effect.promise(() => response.text())
      header = response.headers.get("x-correlation-id")
      return response.status
    }).pipe(
      Effect.provide(
        Http.serve(routes, { port: 0, host: "127.0.0.1", tracing: options.tracing }).pipe(
          Layer.provide(Layer.succeed(Tracer.Tracer, options.tracer)),
          Layer.provide(Logging.layer("Info", (line) => lines.push(line), options.logFormat)),
        ),
      ),
      Effect.scoped,
    )
    return { status, lines, header }
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

  it.live("runs around the router's own middleware: an unknown route's 404 names the id of its access line", () =>
    Effect.gen(function* () {
      const { tracer } = countingTracer()
      const { status, lines, header } = yield* serveAndGet(
        { tracing: false, tracer },
        "/no-such-route",
        {},
        Layer.merge(Route, Server.RouterProblems),
      )
      assert.strictEqual(status, 404)
      const access = lines.filter((line) => line.includes('"message":"request"'))
      assert.strictEqual(access.length, 1)
      const line = JSON.parse(access[0]!) as { annotations: Record<string, unknown> }
      assert.strictEqual(line.annotations.status, 404)
      assert.strictEqual(header, line.annotations.requestId)
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
      assert.strictEqual(line.annotations.route, "/traced")
      assert.isNull(line.annotations.partnerId)
      assert.notInclude(access[0]!, "secret-looking-id")
    }),
  )

  it.live("with LOG_FORMAT=pretty, writes readable lines: time, level, message or request, then key=value", () =>
    Effect.gen(function* () {
      const { tracer } = countingTracer()
      const { lines } = yield* serveAndGet({ tracing: false, tracer, logFormat: "pretty" }, "/traced?q=hidden")
      const handled = lines.find((line) => line.includes(" handled"))
      assert.match(handled ?? "", /^\d{2}:\d{2}:\d{2}\.\d{3} INFO {2}handled .*extra=1/)
      const access = lines.filter((line) => line.includes(" GET /traced 200 "))
      assert.strictEqual(access.length, 1)
      assert.match(access[0]!, /^\d{2}:\d{2}:\d{2}\.\d{3} INFO {2}GET \/traced 200 [\d.]+ms requestId=[0-9a-f-]{36}$/)
      assert.notInclude(access[0]!, "hidden")
      for (const line of lines) assert.isFalse(line.startsWith("{"), line)
    }),
  )

  const requestIdsOf = (lines: ReadonlyArray<string>) =>
    lines.map((line) => (JSON.parse(line) as { annotations: { requestId?: string } }).annotations.requestId)

  it.live("uses the client's X-Correlation-Id as the id of every line of the request", () =>
    Effect.gen(function* () {
      const { tracer } = countingTracer()
      const { lines, header } = yield* serveAndGet({ tracing: false, tracer }, "/traced", {
        "x-correlation-id": "client-id.42",
        traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      })
      assert.strictEqual(header, "client-id.42")
      assert.strictEqual(lines.length, 2)
      assert.deepStrictEqual(requestIdsOf(lines), ["client-id.42", "client-id.42"])
    }),
  )

  it.live("uses the trace id of a valid traceparent when no X-Correlation-Id is sent", () =>
    Effect.gen(function* () {
      const { tracer } = countingTracer()
      const { lines, header } = yield* serveAndGet({ tracing: false, tracer }, "/traced", {
        traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      })
      assert.strictEqual(header, "4bf92f3577b34da6a3ce929d0e0e4736")
      assert.deepStrictEqual(requestIdsOf(lines), [
        "4bf92f3577b34da6a3ce929d0e0e4736",
        "4bf92f3577b34da6a3ce929d0e0e4736",
      ])
    }),
  )

  it.live("ignores an unusable X-Correlation-Id and makes one id for the request", () =>
    Effect.gen(function* () {
      const { tracer } = countingTracer()
      const { lines, header } = yield* serveAndGet({ tracing: false, tracer }, "/traced", {
        "x-correlation-id": "has spaces and {braces}",
      })
      const ids = requestIdsOf(lines)
      assert.strictEqual(header, ids[0])
      assert.match(String(ids[0]), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/)
      assert.strictEqual(ids[1], ids[0])
    }),
  )

  it.live("logs a message with other values as a string message and details", () =>
    Effect.gen(function* () {
      const { tracer } = countingTracer()
      const { lines } = yield* serveAndGet({ tracing: false, tracer }, "/traced")
      const handled = lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((l) => l.message === "handled")
      assert.deepStrictEqual(handled?.details, { extra: 1 })
    }),
  )
})

describe("a client's correlation id", () => {
  it("is its X-Correlation-Id when made of 1 to 128 letters, digits and -._:~", () => {
    assert.strictEqual(RequestRecord.fromHeaders("abc-123_x.y:z~", undefined), "abc-123_x.y:z~")
    assert.isUndefined(RequestRecord.fromHeaders("a".repeat(129), undefined))
    assert.isUndefined(RequestRecord.fromHeaders("", undefined))
    assert.isUndefined(RequestRecord.fromHeaders('x"\n', undefined))
  })

  it("is else the trace id of a valid traceparent (not all zeros, not version ff)", () => {
    const id = "4bf92f3577b34da6a3ce929d0e0e4736"
    assert.strictEqual(RequestRecord.fromHeaders(undefined, `00-${id}-00f067aa0ba902b7-01`), id)
    assert.strictEqual(RequestRecord.fromHeaders("bad id!", `00-${id}-00f067aa0ba902b7-01`), id)
    assert.isUndefined(RequestRecord.fromHeaders(undefined, `00-${"0".repeat(32)}-00f067aa0ba902b7-01`))
    assert.isUndefined(RequestRecord.fromHeaders(undefined, `ff-${id}-00f067aa0ba902b7-01`))
    assert.isUndefined(RequestRecord.fromHeaders(undefined, `00-${id.toUpperCase()}-00f067aa0ba902b7-01`))
    assert.isUndefined(RequestRecord.fromHeaders(undefined, "garbage"))
  })
})

describe("log messages", () => {
  it("are always strings", () => {
    assert.deepStrictEqual(Logging.withStringMessage({ message: "plain" }), { message: "plain" })
    assert.deepStrictEqual(Logging.withStringMessage({ message: ["sent", { count: 2 }] }), {
      message: "sent",
      details: { count: 2 },
    })
    assert.deepStrictEqual(Logging.withStringMessage({ message: ["a", 1, 2] }), { message: "a", details: [1, 2] })
    assert.deepStrictEqual(Logging.withStringMessage({ message: { _tag: "Oops" } }), {
      message: '{"_tag":"Oops"}',
      details: { _tag: "Oops" },
    })
  })
})

describe("the access line", () => {
  it("is valid JSON whatever the path holds", () => {
    const line = Logging.accessLine(
      {
        requestId: "r-1",
        method: "GET",
        route: undefined,
        path: '/a"b\\c\u0001\n',
        status: 404,
        durationMs: 0.3,
        partnerId: undefined,
      },
      new Date(0),
    )
    const parsed = JSON.parse(line) as { timestamp: string; annotations: Record<string, unknown> }
    assert.strictEqual(parsed.annotations.path, '/a"b\\c\u0001\n')
    assert.strictEqual(parsed.annotations.partnerId, null)
    assert.strictEqual(parsed.annotations.route, null)
    assert.strictEqual(parsed.timestamp, "1970-01-01T00:00:00.000Z")
  })

  it("is not written when the level is above Info", () => {
    assert.isTrue(Logging.infoEnabled("Info"))
    assert.isTrue(Logging.infoEnabled("Debug"))
    assert.isFalse(Logging.infoEnabled("Warn"))
    assert.isFalse(Logging.infoEnabled("None"))
  })
})
