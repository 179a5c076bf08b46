/**
 * The client's request handling against a fake fetch (test/fakeFetch.ts): idempotency keys,
 * retries of retryable answers (Retry-After, cap, jittered backoff), the partner token
 * (acquisition, refresh before expiry and after a 401), customer tokens, and the typed error.
 */
import { assert, describe, it } from "@effect/vitest"
import { PartnerpayError, unwrap } from "../src/index.ts"
import { fakeServer, json, networkError, problem, testClient, tokenAnswer } from "./fakeFetch.ts"

const ok = () => json(200, { ok: true })
const sendOtp = { body: { phoneNumber: "+14155550123" } }

describe("Idempotency-Key", () => {
  it("a POST gets a generated key, kept on every retry of that call", async () => {
    const server = fakeServer({ "POST /Login/SendOtp": [() => problem(503, "SERVICE_UNAVAILABLE"), networkError, ok] })
    const { client } = testClient(server)
    const result = await client.POST("/Login/SendOtp", sendOtp)
    assert.strictEqual(result.response.status, 200)
    const keys = server.calls().map((request) => request.headers.get("idempotency-key"))
    assert.deepStrictEqual(keys, ["key-1", "key-1", "key-1"])
    assert.deepStrictEqual(
      server.calls().map((request) => request.body),
      Array(3).fill('{"phoneNumber":"+14155550123"}'),
    )
  })

  it("each call gets a new key", async () => {
    const server = fakeServer({ "POST /Login/SendOtp": ok })
    const { client } = testClient(server)
    await client.POST("/Login/SendOtp", sendOtp)
    await client.POST("/Login/SendOtp", sendOtp)
    assert.deepStrictEqual(
      server.calls().map((request) => request.headers.get("idempotency-key")),
      ["key-1", "key-2"],
    )
  })

  it("a key the caller gives is sent as given, on the retries too", async () => {
    const server = fakeServer({ "POST /Login/SendOtp": [() => problem(429, "RATE_LIMITED"), ok] })
    const { client } = testClient(server)
    await client.POST("/Login/SendOtp", { ...sendOtp, headers: { "Idempotency-Key": "order-1001" } })
    assert.deepStrictEqual(
      server.calls().map((request) => request.headers.get("idempotency-key")),
      ["order-1001", "order-1001"],
    )
  })

  it("GET, PUT and POST /auth/token carry none", async () => {
    const server = fakeServer({ "GET /company/status": ok, "PUT /Payment/p-1/Cancel": ok })
    const { client } = testClient(server)
    await client.GET("/company/status", { params: { query: { companyId: "c-1" } } })
    await client.PUT("/Payment/{paymentRequestId}/Cancel", { params: { path: { paymentRequestId: "p-1" } } })
    assert.deepStrictEqual(
      server.sent.map((request) => [request.method, request.headers.get("idempotency-key")]),
      [
        ["POST", null],
        ["GET", null],
        ["PUT", null],
      ],
    )
  })
})

describe("retries", () => {
  it("429 waits the Retry-After seconds, then sends again", async () => {
    const server = fakeServer({
      "GET /company/status": [() => problem(429, "RATE_LIMITED", { "retry-after": "2" }), ok],
    })
    const { client, sleeps } = testClient(server)
    const result = await client.GET("/company/status", { params: { query: { companyId: "c-1" } } })
    assert.strictEqual(result.response.status, 200)
    assert.deepStrictEqual(sleeps, [2000])
  })

  it("Retry-After as an HTTP date waits until then", async () => {
    const server = fakeServer({
      "GET /company/status": [
        () => problem(503, "SERVICE_UNAVAILABLE", { "retry-after": new Date(1_700_000_003_000).toUTCString() }),
        ok,
      ],
    })
    const { client, sleeps } = testClient(server)
    await client.GET("/company/status", { params: { query: { companyId: "c-1" } } })
    assert.deepStrictEqual(sleeps, [3000])
  })

  it("without Retry-After: jittered exponential backoff (d/2 + random * d/2, d doubling from 500 ms)", async () => {
    const server = fakeServer({ "GET /company/status": [networkError, networkError, networkError, ok] })
    const { client, sleeps } = testClient(server, { random: () => 0.5 })
    const result = await client.GET("/company/status", { params: { query: { companyId: "c-1" } } })
    assert.strictEqual(result.response.status, 200)
    assert.deepStrictEqual(sleeps, [375, 750, 1500])
  })

  it("a Retry-After shorter than the backoff waits the backoff", async () => {
    const server = fakeServer({
      "GET /company/status": [() => problem(429, "RATE_LIMITED", { "retry-after": "0" }), ok],
    })
    const { client, sleeps } = testClient(server, { random: () => 0 })
    await client.GET("/company/status", { params: { query: { companyId: "c-1" } } })
    assert.deepStrictEqual(sleeps, [250])
  })

  it("the backoff step is capped at maxDelayMs", async () => {
    const server = fakeServer({ "GET /company/status": networkError })
    const { client, sleeps } = testClient(server, {
      random: () => 0.5,
      retry: { maxRetries: 6, baseDelayMs: 1000, maxDelayMs: 4000 },
    })
    await client.GET("/company/status", { params: { query: { companyId: "c-1" } } }).catch(() => undefined)
    assert.deepStrictEqual(sleeps, [750, 1500, 3000, 3000, 3000, 3000])
  })

  it("409 IDEMPOTENCY_REQUEST_IN_PROGRESS and CONCURRENT_MODIFICATION are retried", async () => {
    const server = fakeServer({
      "POST /Login/SendOtp": [
        () => problem(409, "IDEMPOTENCY_REQUEST_IN_PROGRESS", { "retry-after": "1" }),
        () => problem(409, "CONCURRENT_MODIFICATION"),
        ok,
      ],
    })
    const { client } = testClient(server)
    const result = await client.POST("/Login/SendOtp", sendOtp)
    assert.strictEqual(result.response.status, 200)
    assert.strictEqual(server.calls().length, 3)
  })

  it("other answers are final: another 409, 400, 422, 500", async () => {
    for (const [status, code] of [
      [409, "ILLEGAL_TRANSITION"],
      [400, "BAD_REQUEST"],
      [422, "IDEMPOTENCY_KEY_REUSED"],
      [500, "INTERNAL_ERROR"],
    ] as const) {
      const server = fakeServer({ "POST /Login/SendOtp": [() => problem(status, code), ok] })
      const { client, sleeps } = testClient(server)
      const result = await client.POST("/Login/SendOtp", sendOtp)
      assert.strictEqual(result.response.status, status)
      assert.strictEqual(server.calls().length, 1, code)
      assert.deepStrictEqual(sleeps, [])
    }
  })

  it("after maxRetries the last answer is returned", async () => {
    const server = fakeServer({ "GET /company/status": () => problem(503, "SERVICE_UNAVAILABLE") })
    const { client } = testClient(server, { retry: { maxRetries: 2 } })
    const result = await client.GET("/company/status", { params: { query: { companyId: "c-1" } } })
    assert.strictEqual(result.response.status, 503)
    assert.strictEqual(server.calls().length, 3)
  })

  it("after maxRetries a network error is thrown", async () => {
    const server = fakeServer({ "GET /company/status": networkError })
    const { client } = testClient(server, { retry: { maxRetries: 1 } })
    const error = await client.GET("/company/status", { params: { query: { companyId: "c-1" } } }).catch((e) => e)
    assert.instanceOf(error, TypeError)
    assert.strictEqual(server.calls().length, 2)
  })

  it("a Retry-After above maxRetryAfterMs is answered to the caller at once", async () => {
    const server = fakeServer({
      "GET /company/status": [() => problem(429, "RATE_LIMITED", { "retry-after": "61" }), ok],
    })
    const { client, sleeps } = testClient(server)
    const result = await client.GET("/company/status", { params: { query: { companyId: "c-1" } } })
    assert.strictEqual(result.response.status, 429)
    assert.deepStrictEqual(sleeps, [])
  })

  it("retry: false sends once", async () => {
    const server = fakeServer({ "GET /company/status": [() => problem(503, "SERVICE_UNAVAILABLE"), ok] })
    const { client } = testClient(server, { retry: false })
    const result = await client.GET("/company/status", { params: { query: { companyId: "c-1" } } })
    assert.strictEqual(result.response.status, 503)
  })

  it("a request the caller aborted is not retried", async () => {
    const controller = new AbortController()
    const server = fakeServer({
      "GET /company/status": () => {
        controller.abort()
        throw new DOMException("aborted", "AbortError")
      },
    })
    const { client } = testClient(server)
    const error = await client
      .GET("/company/status", { params: { query: { companyId: "c-1" } }, signal: controller.signal })
      .catch((e) => e)
    assert.strictEqual(error.name, "AbortError")
    assert.strictEqual(server.calls().length, 1)
  })
})

describe("partner token", () => {
  it("is obtained with the client credentials on first use and sent as the bearer", async () => {
    const server = fakeServer({ "GET /company/status": ok })
    const { client } = testClient(server)
    await client.GET("/company/status", { params: { query: { companyId: "c-1" } } })
    assert.deepStrictEqual(JSON.parse(server.tokenRequests()[0]!.body), {
      ClientId: "client-1",
      ClientSecret: "secret-1",
    })
    assert.strictEqual(server.calls()[0]!.headers.get("authorization"), "Bearer t1")
  })

  it("is reused until shortly before it expires, then renewed", async () => {
    const server = fakeServer({ "GET /company/status": ok })
    const { client, clock } = testClient(server, { refreshBeforeExpirySeconds: 60 })
    const status = () => client.GET("/company/status", { params: { query: { companyId: "c-1" } } })
    await status()
    clock.now += (3600 - 61) * 1000
    await status()
    clock.now += 1000 // 60 s before expiry
    await status()
    assert.deepStrictEqual(
      server.calls().map((request) => request.headers.get("authorization")),
      ["Bearer t1", "Bearer t1", "Bearer t2"],
    )
    assert.strictEqual(server.tokenRequests().length, 2)
  })

  it("concurrent first calls share one token request", async () => {
    const server = fakeServer({ "GET /company/status": ok })
    const { client } = testClient(server)
    await Promise.all(
      Array.from({ length: 5 }, () => client.GET("/company/status", { params: { query: { companyId: "c-1" } } })),
    )
    assert.strictEqual(server.tokenRequests().length, 1)
  })

  it("after a 401 a new token is obtained and the request sent once more", async () => {
    const server = fakeServer({ "POST /Login/SendOtp": [() => problem(401, "UNAUTHORIZED"), ok] })
    const { client } = testClient(server)
    const result = await client.POST("/Login/SendOtp", sendOtp)
    assert.strictEqual(result.response.status, 200)
    assert.deepStrictEqual(
      server.calls().map((request) => [request.headers.get("authorization"), request.headers.get("idempotency-key")]),
      [
        ["Bearer t1", "key-1"],
        ["Bearer t2", "key-1"],
      ],
    )
  })

  it("a second 401 in the same call is answered (no loop)", async () => {
    const server = fakeServer({ "GET /company/status": () => problem(401, "UNAUTHORIZED") })
    const { client } = testClient(server)
    const result = await client.GET("/company/status", { params: { query: { companyId: "c-1" } } })
    assert.strictEqual(result.response.status, 401)
    assert.strictEqual(server.calls().length, 2)
    assert.strictEqual(server.tokenRequests().length, 2)
  })

  it("the token request is retried like any other (429 with Retry-After)", async () => {
    const server = fakeServer({
      "POST /auth/token": [() => problem(429, "RATE_LIMITED", { "retry-after": "1" }), () => tokenAnswer("t9")],
      "GET /company/status": ok,
    })
    const { client, sleeps } = testClient(server)
    await client.GET("/company/status", { params: { query: { companyId: "c-1" } } })
    assert.deepStrictEqual(sleeps, [1000])
    assert.strictEqual(server.calls()[0]!.headers.get("authorization"), "Bearer t9")
  })

  it("refused credentials throw a PartnerpayError with the problem", async () => {
    const server = fakeServer({
      "POST /auth/token": () =>
        problem(401, "UNAUTHORIZED", { "x-correlation-id": "corr-1" }, { title: "Unauthorized" }),
    })
    const { client } = testClient(server)
    const error = await client.GET("/company/status", { params: { query: { companyId: "c-1" } } }).catch((e) => e)
    assert.instanceOf(error, PartnerpayError)
    assert.strictEqual(error.status, 401)
    assert.strictEqual(error.code, "UNAUTHORIZED")
    assert.strictEqual(error.title, "Unauthorized")
    assert.strictEqual(error.correlationId, "corr-1")
    assert.strictEqual(server.calls().length, 0)
  })

  it("accessToken() answers the current token", async () => {
    const { client } = testClient(fakeServer())
    assert.strictEqual(await client.accessToken(), "t1")
    assert.strictEqual(await client.accessToken(), "t1")
  })
})

describe("customer token", () => {
  it("withCustomerToken sends the customer's token, and a 401 is answered without a token request", async () => {
    const server = fakeServer({
      "POST /Verification/StartKyc": [() => json(200, { tokenId: "s-1" }), () => problem(401, "UNAUTHORIZED")],
    })
    const { client } = testClient(server)
    const customer = client.withCustomerToken("customer-token")
    const first = await customer.POST("/Verification/StartKyc", { body: { deviceId: "phone" } })
    assert.strictEqual(first.response.status, 200)
    const second = await customer.POST("/Verification/StartKyc", { body: { deviceId: "phone" } })
    assert.strictEqual(second.response.status, 401)
    assert.deepStrictEqual(
      server.calls().map((request) => [request.headers.get("authorization"), request.headers.get("idempotency-key")]),
      [
        ["Bearer customer-token", "key-1"],
        ["Bearer customer-token", "key-2"],
      ],
    )
    assert.strictEqual(server.tokenRequests().length, 0)
  })

  it("an Authorization header given with the request is sent as given", async () => {
    const server = fakeServer({ "GET /company/status": ok })
    const { client } = testClient(server)
    await client.GET("/company/status", {
      params: { query: { companyId: "c-1" } },
      headers: { Authorization: "Bearer mine" },
    })
    assert.strictEqual(server.calls()[0]!.headers.get("authorization"), "Bearer mine")
    assert.strictEqual(server.tokenRequests().length, 0)
  })

  it("a client made with accessToken uses it and never requests one", async () => {
    const server = fakeServer({ "GET /company/status": ok })
    const { client } = testClient(server, {
      clientId: undefined,
      clientSecret: undefined,
      accessToken: "given",
    } as never)
    await client.GET("/company/status", { params: { query: { companyId: "c-1" } } })
    assert.strictEqual(server.calls()[0]!.headers.get("authorization"), "Bearer given")
    assert.strictEqual(server.tokenRequests().length, 0)
  })
})

describe("raw fetch (paths outside the document)", () => {
  it("carries the token, an Idempotency-Key on POST, and the retries", async () => {
    const server = fakeServer({
      "POST /Sandbox/Clock/Advance": [
        () => problem(503, "SERVICE_UNAVAILABLE"),
        () => json(200, { offsetSeconds: 60 }),
      ],
    })
    const { client } = testClient(server)
    const response = await client.fetch("/Sandbox/Clock/Advance", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ seconds: 60 }),
    })
    assert.deepStrictEqual(await response.json(), { offsetSeconds: 60 })
    assert.deepStrictEqual(
      server
        .calls()
        .map((request) => [request.headers.get("authorization"), request.headers.get("idempotency-key"), request.body]),
      [
        ["Bearer t1", "key-1", '{"seconds":60}'],
        ["Bearer t1", "key-1", '{"seconds":60}'],
      ],
    )
  })
})

describe("errors", () => {
  it("unwrap answers the data of a success", async () => {
    const server = fakeServer({
      "GET /company/status": () => json(200, { CompanyId: "c-1", Status: "Verified", Metadata: {} }),
    })
    const { client } = testClient(server)
    const status = unwrap(await client.GET("/company/status", { params: { query: { companyId: "c-1" } } }))
    assert.deepStrictEqual(status, { CompanyId: "c-1", Status: "Verified", Metadata: {} })
  })

  it("unwrap throws a PartnerpayError carrying the problem+json fields", async () => {
    const server = fakeServer({
      "POST /Login/SendOtp": () =>
        problem(
          400,
          "BAD_REQUEST",
          { "x-correlation-id": "corr-2" },
          {
            title: "Bad Request",
            status: 400,
            instance: "urn:uuid:corr-2",
            errors: [{ field: "phoneNumber", message: "must be an E.164 phone number" }],
          },
        ),
    })
    const { client } = testClient(server)
    const result = await client.POST("/Login/SendOtp", sendOtp)
    let error: unknown
    try {
      unwrap(result)
    } catch (thrown) {
      error = thrown
    }
    assert.instanceOf(error, PartnerpayError)
    const failure = error as PartnerpayError
    assert.deepStrictEqual(
      {
        status: failure.status,
        code: failure.code,
        type: failure.type,
        title: failure.title,
        detail: failure.detail,
        instance: failure.instance,
        errors: failure.errors,
        correlationId: failure.correlationId,
      },
      {
        status: 400,
        code: "BAD_REQUEST",
        type: "/docs/problems/bad-request",
        title: "Bad Request",
        detail: "BAD_REQUEST",
        instance: "urn:uuid:corr-2",
        errors: [{ field: "phoneNumber", message: "must be an E.164 phone number" }],
        correlationId: "corr-2",
      },
    )
    assert.include(failure.message, "phoneNumber: must be an E.164 phone number")
  })

  it("an answer that is not a problem gets the code HTTP_<status>", async () => {
    const server = fakeServer({ "GET /company/status": () => new Response("bad gateway", { status: 502 }) })
    const { client } = testClient(server)
    const result = await client.GET("/company/status", { params: { query: { companyId: "c-1" } } })
    const error = (() => {
      try {
        unwrap(result)
      } catch (thrown) {
        return thrown as PartnerpayError
      }
    })()
    assert.strictEqual(error?.code, "HTTP_502")
    assert.strictEqual(error?.body, "bad gateway")
  })
})
