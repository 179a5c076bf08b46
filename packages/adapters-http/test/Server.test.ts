/** The Node server layer: same routes, exact-case routing, on a real (ephemeral) port. */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import * as Server from "../src/Server.ts"
import { Ports } from "./fixtures.ts"

describe("Server.layer", () => {
  it.live("serves the API over HTTP with case-sensitive routing and problem+json 404s", () =>
    Effect.gen(function* () {
      const server = yield* HttpServer.HttpServer
      const address = server.address
      assert.strictEqual(address._tag, "InetAddressV4")
      const port = address._tag === "InetAddressV4" ? address.port : 0
      const get = (path: string) => Effect.promise(() => fetch(`http://127.0.0.1:${port}${path}`))
      const ok = yield* get("/HealthCheck/Get")
      assert.strictEqual(ok.status, 401)
      assert.strictEqual(ok.headers.get("www-authenticate"), "Bearer")
      const wrongCase = yield* get("/healthcheck/get")
      assert.strictEqual(wrongCase.status, 404)
      assert.strictEqual(wrongCase.headers.get("content-type"), "application/problem+json")
    }).pipe(Effect.provide(Server.layer({ port: 0, host: "127.0.0.1" }).pipe(Layer.provide(Ports)))),
  )
})
