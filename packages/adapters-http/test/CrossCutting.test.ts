/**
 * Cross-cutting behaviour of every route: Idempotency-Key on POST, per-caller
 * rate limits, the request body size limit.
 *
 * A test-only group with a POST operation (wired exactly like a business
 * group) counts how often its handler really ran.
 */

import { assert, describe, it } from "@effect/vitest"
import { PropertyParams } from "@partnerpay/domain/testing"
import { type Context, Effect, Fiber, Layer, Schema } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { IpNetwork } from "effect/net"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import { afterAll } from "vitest"
import { AuthApi } from "../src/auth/AuthApi.ts"
import { AuthLive } from "../src/auth/AuthLive.ts"
import { Authentication, requirePartner } from "../src/cross-cutting/Authentication.ts"
import { AuthenticationLive } from "../src/cross-cutting/AuthenticationLive.ts"
import * as CrossCutting from "../src/cross-cutting/CrossCutting.ts"
import * as Problem from "../src/cross-cutting/Problem.ts"
import { ProblemHandling } from "../src/cross-cutting/ProblemHandling.ts"
import * as RateLimit from "../src/cross-cutting/RateLimit.ts"
import { HealthApi } from "../src/health/HealthApi.ts"
import { HealthLive } from "../src/health/HealthLive.ts"
import * as Server from "../src/Server.ts"
import {
  bearer,
  clientId,
  clientSecret,
  type Handler,
  Ports,
  partnerToken,
  peerHeader,
  postJson,
  send,
  socketPeerFromHeader,
  withTestClock,
} from "./fixtures.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(20261125)

// ---------------------------------------------------------------------------
// A counting POST operation

const CreateRequest = Schema.Struct({ name: Schema.String })
const Created = Schema.Struct({ id: Schema.String, partnerId: Schema.String, run: Schema.Int })

class CountingApi extends HttpApiGroup.make("counting")
  .add(
    HttpApiEndpoint.post("create", "/Probe/Create", {
      payload: CreateRequest,
      success: Created,
      error: Problem.DomainProblems,
    }),
  )
  .middleware(Authentication) {}

/** Independent of the business groups being added to `Api`: auth, health and the counting group. */
class TestApi extends HttpApi.make("partnerpay")
  .add(AuthApi)
  .add(HealthApi)
  .add(CountingApi)
  .middleware(ProblemHandling) {}

let runs = 0
let failNext = false
let gate: { entered: () => void; release: Promise<void> } | undefined

const CountingLive = HttpApiBuilder.group(TestApi, "counting", (handlers) =>
  handlers.handle("create", ({ payload }) =>
    Effect.gen(function* () {
      const { partnerId } = yield* requirePartner
      runs++
      const run = runs
      if (failNext) {
        failNext = false
        return yield* Effect.die(new Error("boom"))
      }
      if (gate !== undefined) {
        const g = gate
        g.entered()
        yield* Effect.promise(() => g.release)
      }
      if (payload.name === "conflict") {
        return yield* new Problem.ConcurrentModification({
          detail: "The resource changed meanwhile; retry.",
          code: "CONCURRENT_MODIFICATION",
        })
      }
      if (payload.name === "unavailable") {
        return yield* new Problem.ServiceUnavailable({ detail: "The database is unavailable.", code: "UNAVAILABLE" })
      }
      if (payload.name === "transition") {
        return yield* new Problem.IllegalTransitionProblem({
          detail: "The request is already accepted.",
          code: "ILLEGAL_TRANSITION",
        })
      }
      if (payload.name === "invalid") {
        return yield* new Problem.ValidationProblem({
          detail: "The request has 1 invalid field(s).",
          code: "VALIDATION_FAILED",
          errors: [{ field: "name", message: "must not be 'invalid'" }],
        })
      }
      return { id: crypto.randomUUID(), partnerId, run }
    }),
  ),
)

/** An in-process server; a request's socket peer is its `x-test-socket-peer` header (fixtures.ts). */
const serverWith = (limits: Partial<CrossCutting.Limits>) => {
  const routes = Layer.mergeAll(
    HttpApiBuilder.layer(TestApi, { openapiPath: Server.openApiPath }),
    Server.RouterProblems,
    CrossCutting.layer,
  ).pipe(
    Layer.provide(
      Layer.mergeAll(CountingLive, AuthLive, HealthLive).pipe(
        Layer.provideMerge(AuthenticationLive),
        Layer.provideMerge(ProblemHandling.layer),
      ),
    ),
  )
  return HttpRouter.toWebHandler(
    routes.pipe(
      Layer.provide(Layer.mergeAll(Ports, CrossCutting.layerLimits(limits))),
      Layer.provide(HttpServer.layerServices),
    ),
    { routerConfig: Server.routerConfig, disableLogger: true, middleware: socketPeerFromHeader },
  )
}

const unlimited = serverWith({ rateLimiting: false })
const handler: Handler = unlimited.handler
afterAll(async () => {
  await unlimited.dispose()
})

const withKey = (token: string, key: string, body: unknown): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "idempotency-key": key },
  body: JSON.stringify(body),
})

const otherPartnerToken = (h: Handler, context?: Parameters<typeof send>[3]) =>
  Effect.map(
    send(h, "/auth/token", postJson({ ClientId: "partner-client-2", ClientSecret: "another secret" }), context),
    (r) => (r.json as { AccessToken: string }).AccessToken,
  )

const newKey = () => `key-${crypto.randomUUID()}`

const problemCode = (r: { json: unknown }) => (r.json as { code?: string }).code

// ---------------------------------------------------------------------------

describe("Idempotency-Key on POST", () => {
  it.effect("the same key with the same body replays the first response (status, body, content type)", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(handler)
      const key = newKey()
      const before = runs
      const first = yield* send(handler, "/Probe/Create", withKey(token, key, { name: "a" }))
      const second = yield* send(handler, "/Probe/Create", withKey(token, key, { name: "a" }))
      assert.strictEqual(first.status, 200)
      assert.strictEqual(second.status, 200)
      assert.strictEqual(second.text, first.text)
      assert.strictEqual(second.headers.get("content-type"), first.headers.get("content-type"))
      assert.strictEqual(second.headers.get("idempotent-replayed"), "true")
      assert.isNull(first.headers.get("idempotent-replayed"))
      assert.strictEqual(runs - before, 1)
    }),
  )

  it.effect("without a key, the same request runs twice", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(handler)
      const before = runs
      const request = { ...postJson({ name: "a" }), headers: { "content-type": "application/json", ...auth(token) } }
      const a = yield* send(handler, "/Probe/Create", request)
      const b = yield* send(handler, "/Probe/Create", request)
      assert.notStrictEqual(a.text, b.text)
      assert.strictEqual(runs - before, 2)
    }),
  )

  it.effect("the same key with a different body is 422 IDEMPOTENCY_KEY_REUSED", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(handler)
      const key = newKey()
      yield* send(handler, "/Probe/Create", withKey(token, key, { name: "a" }))
      const r = yield* send(handler, "/Probe/Create", withKey(token, key, { name: "b" }))
      assert.strictEqual(r.status, 422)
      assert.strictEqual(r.headers.get("content-type"), "application/problem+json")
      assert.strictEqual(problemCode(r), "IDEMPOTENCY_KEY_REUSED")
    }),
  )

  it.effect("keys are scoped per partner: another partner's identical key runs its own request", () =>
    Effect.gen(function* () {
      const key = newKey()
      const a = yield* send(handler, "/Probe/Create", withKey(yield* partnerToken(handler), key, { name: "a" }))
      const b = yield* send(handler, "/Probe/Create", withKey(yield* otherPartnerToken(handler), key, { name: "a" }))
      assert.strictEqual(b.status, 200)
      assert.isNull(b.headers.get("idempotent-replayed"))
      assert.notStrictEqual((a.json as { partnerId: string }).partnerId, (b.json as { partnerId: string }).partnerId)
    }),
  )

  it.live("a request still in flight with the key is 409 IDEMPOTENCY_REQUEST_IN_PROGRESS; afterwards it replays", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(handler)
      const key = newKey()
      let entered: () => void = () => {}
      let release: () => void = () => {}
      const enteredP = new Promise<void>((resolve) => (entered = resolve))
      gate = { entered, release: new Promise<void>((resolve) => (release = resolve)) }
      const first = yield* Effect.forkChild(send(handler, "/Probe/Create", withKey(token, key, { name: "a" })))
      yield* Effect.promise(() => enteredP)
      gate = undefined
      const during = yield* send(handler, "/Probe/Create", withKey(token, key, { name: "a" }))
      assert.strictEqual(during.status, 409)
      assert.strictEqual(problemCode(during), "IDEMPOTENCY_REQUEST_IN_PROGRESS")
      assert.strictEqual(during.headers.get("retry-after"), "1")
      release()
      const done = yield* Fiber.join(first)
      const after = yield* send(handler, "/Probe/Create", withKey(token, key, { name: "a" }))
      assert.strictEqual(after.text, done.text)
      assert.strictEqual(after.headers.get("idempotent-replayed"), "true")
    }),
  )

  it.live("two simultaneous requests with one key: one runs, the other gets 409 or the replay", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(handler)
      for (let round = 0; round < 10; round++) {
        const key = newKey()
        const before = runs
        const [a, b] = yield* Effect.all(
          [
            send(handler, "/Probe/Create", withKey(token, key, { name: "a" })),
            send(handler, "/Probe/Create", withKey(token, key, { name: "a" })),
          ],
          { concurrency: "unbounded" },
        )
        assert.strictEqual(runs - before, 1)
        const outcomes = [a, b]
          .map((r) =>
            r.status === 200
              ? r.headers.get("idempotent-replayed") === "true"
                ? "replay"
                : "ran"
              : `${r.status} ${problemCode(r)}`,
          )
          .sort()
        assert.include(
          [JSON.stringify(["409 IDEMPOTENCY_REQUEST_IN_PROGRESS", "ran"]), JSON.stringify(["ran", "replay"])],
          JSON.stringify(outcomes),
        )
      }
    }),
  )

  it.effect("a 5xx response is not stored: the key can be retried and the request runs again", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(handler)
      const key = newKey()
      const before = runs
      failNext = true
      const failed = yield* send(handler, "/Probe/Create", withKey(token, key, { name: "a" }))
      assert.strictEqual(failed.status, 500)
      const retried = yield* send(handler, "/Probe/Create", withKey(token, key, { name: "a" }))
      assert.strictEqual(retried.status, 200)
      assert.isNull(retried.headers.get("idempotent-replayed"))
      assert.strictEqual(runs - before, 2)
    }),
  )

  for (const [name, status] of [
    ["conflict", 409],
    ["unavailable", 503],
  ] as const) {
    it.effect(`a ${status} that tells the client to retry (${name}) is not stored: the key stays usable`, () =>
      Effect.gen(function* () {
        const token = yield* partnerToken(handler)
        const key = newKey()
        const before = runs
        const first = yield* send(handler, "/Probe/Create", withKey(token, key, { name }))
        assert.strictEqual(first.status, status)
        const again = yield* send(handler, "/Probe/Create", withKey(token, key, { name }))
        assert.strictEqual(again.status, status)
        assert.isNull(again.headers.get("idempotent-replayed"))
        assert.strictEqual(runs - before, 2)
      }),
    )
  }

  it.effect("a 409 that is the outcome (an illegal transition) is stored and replayed", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(handler)
      const key = newKey()
      const before = runs
      const first = yield* send(handler, "/Probe/Create", withKey(token, key, { name: "transition" }))
      const second = yield* send(handler, "/Probe/Create", withKey(token, key, { name: "transition" }))
      assert.strictEqual(first.status, 409)
      assert.strictEqual(second.headers.get("idempotent-replayed"), "true")
      assert.strictEqual(runs - before, 1)
    }),
  )

  it.effect("a 4xx response is stored and replayed like any other", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(handler)
      const key = newKey()
      const before = runs
      const first = yield* send(handler, "/Probe/Create", withKey(token, key, { name: "invalid" }))
      const second = yield* send(handler, "/Probe/Create", withKey(token, key, { name: "invalid" }))
      assert.strictEqual(first.status, 422)
      assert.strictEqual(second.status, 422)
      assert.strictEqual(second.text, first.text)
      assert.strictEqual(second.headers.get("content-type"), "application/problem+json")
      assert.strictEqual(runs - before, 1)
    }),
  )

  it.effect("a key longer than 255 characters (or empty) is 400; 255 characters is fine", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(handler)
      const tooLong = yield* send(handler, "/Probe/Create", withKey(token, "k".repeat(256), { name: "a" }))
      assert.strictEqual(tooLong.status, 400)
      assert.deepStrictEqual(
        (tooLong.json as { errors: ReadonlyArray<{ field: string }> }).errors.map((e) => e.field),
        ["header.Idempotency-Key"],
      )
      const empty = yield* send(handler, "/Probe/Create", withKey(token, "", { name: "a" }))
      assert.strictEqual(empty.status, 400)
      const longest = yield* send(
        handler,
        "/Probe/Create",
        withKey(token, `${crypto.randomUUID()}${"k".repeat(219)}`, { name: "a" }),
      )
      assert.strictEqual(longest.status, 200)
    }),
  )

  it.effect("a key is remembered 24 hours (TestClock), then free for a new request", () =>
    Effect.gen(function* () {
      const context = yield* withTestClock
      const key = newKey()
      const first = yield* send(
        handler,
        "/Probe/Create",
        withKey(yield* partnerToken(handler, context), key, { name: "a" }),
        context,
      )
      yield* TestClock.adjust("23 hours")
      const token = yield* partnerToken(handler, context)
      const replayed = yield* send(handler, "/Probe/Create", withKey(token, key, { name: "a" }), context)
      assert.strictEqual(replayed.text, first.text)
      yield* TestClock.adjust("1 hour")
      const fresh = yield* send(
        handler,
        "/Probe/Create",
        withKey(yield* partnerToken(handler, context), key, { name: "b" }),
        context,
      )
      assert.strictEqual(fresh.status, 200)
      assert.isNull(fresh.headers.get("idempotent-replayed"))
    }),
  )

  it.effect("without a valid token the key is ignored: 401, and nothing is remembered", () =>
    Effect.gen(function* () {
      const key = newKey()
      const r = yield* send(handler, "/Probe/Create", withKey("not-a-token", key, { name: "a" }))
      assert.strictEqual(r.status, 401)
      const ok = yield* send(handler, "/Probe/Create", withKey(yield* partnerToken(handler), key, { name: "a" }))
      assert.strictEqual(ok.status, 200)
    }),
  )

  it.effect("a GET is never an idempotent request: even an invalid key is ignored", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(handler)
      for (const key of ["", "k".repeat(300), "same"]) {
        const r = yield* send(handler, "/HealthCheck/Get", {
          headers: { authorization: `Bearer ${token}`, "idempotency-key": key },
        })
        assert.strictEqual(r.status, 200)
        assert.isNull(r.headers.get("idempotent-replayed"))
      }
    }),
  )

  it.effect("POST /auth/token is exempt: a repeated key issues a fresh token each time", () =>
    Effect.gen(function* () {
      const request = (): RequestInit => ({
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": "same" },
        body: JSON.stringify({ ClientId: clientId, ClientSecret: clientSecret }),
      })
      const a = yield* send(handler, "/auth/token", request())
      const b = yield* send(handler, "/auth/token", request())
      assert.strictEqual(a.status, 200)
      assert.strictEqual(b.status, 200)
      assert.isNull(b.headers.get("idempotent-replayed"))
      assert.notStrictEqual(a.text, b.text)
    }),
  )
})

const auth = (token: string) => ({ authorization: `Bearer ${token}` })

// ---------------------------------------------------------------------------

describe("rate limits", () => {
  const limited = serverWith({
    partner: { perSecond: 2, burst: 3 },
    anonymous: { perSecond: 1, burst: 2 },
    trustedProxies: { _tag: "Networks", networks: [IpNetwork.fromStringUnsafe("10.0.0.0/8")] },
  })
  const h: Handler = limited.handler
  afterAll(async () => {
    await limited.dispose()
  })

  /** A login from `ip`, connected directly, or through the proxy 10.0.0.1 that appended `ip` to what the client sent. */
  const fromIp = (ip: string, sent?: string): RequestInit => ({
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(sent === undefined
        ? { [peerHeader]: ip }
        : { [peerHeader]: "10.0.0.1", "x-forwarded-for": sent === "" ? ip : `${sent}, ${ip}` }),
    },
    body: JSON.stringify({ ClientId: clientId, ClientSecret: clientSecret }),
  })

  it.effect("a partner over its burst gets 429 problem+json with Retry-After; tokens refill with time", () =>
    Effect.gen(function* () {
      const context = yield* withTestClock
      const token = (yield* send(h, "/auth/token", fromIp("10.0.0.1"), context)).json as { AccessToken: string }
      const get = send(h, "/HealthCheck/Get", bearer(token.AccessToken), context)
      for (let i = 0; i < 3; i++) assert.strictEqual((yield* get).status, 200)
      const refused = yield* get
      assert.strictEqual(refused.status, 429)
      assert.strictEqual(refused.headers.get("content-type"), "application/problem+json")
      assert.strictEqual(refused.headers.get("retry-after"), "1")
      assert.strictEqual(problemCode(refused), "RATE_LIMITED")
      // Another partner has its own bucket.
      const other = (yield* send(h, "/auth/token", fromIp("10.0.0.2"), context)).json as { AccessToken: string }
      assert.isString(other.AccessToken)
      yield* TestClock.adjust("500 millis")
      assert.strictEqual((yield* get).status, 200)
      assert.strictEqual((yield* get).status, 429)
    }),
  )

  it.effect("the probes and /metrics are never limited: a load balancer checks them as often as it likes", () =>
    Effect.gen(function* () {
      const context = yield* withTestClock
      yield* TestClock.adjust("3 hours")
      const from = { headers: { [peerHeader]: "192.0.2.99" } }
      for (const path of ["/livez", "/readyz", "/metrics"])
        for (let i = 0; i < 5; i++) assert.notStrictEqual((yield* send(h, path, from, context)).status, 429, path)
      // Another path from the same address is limited as usual.
      const statuses: Array<number> = []
      for (let i = 0; i < 3; i++) statuses.push((yield* send(h, "/no/such/thing", from, context)).status)
      assert.include(statuses, 429)
    }),
  )

  it.effect("POST /auth/token is limited per client IP", () =>
    Effect.gen(function* () {
      const context = yield* withTestClock
      yield* TestClock.adjust("1 hour")
      assert.strictEqual((yield* send(h, "/auth/token", fromIp("192.0.2.7"), context)).status, 200)
      assert.strictEqual((yield* send(h, "/auth/token", fromIp("192.0.2.7"), context)).status, 200)
      const refused = yield* send(h, "/auth/token", fromIp("192.0.2.7"), context)
      assert.strictEqual(refused.status, 429)
      assert.strictEqual(refused.headers.get("retry-after"), "1")
      assert.strictEqual((yield* send(h, "/auth/token", fromIp("192.0.2.8"), context)).status, 200)
    }),
  )

  it.effect(
    "behind the trusted proxy, per address the proxy saw: the client's own X-Forwarded-For entries change nothing",
    () =>
      Effect.gen(function* () {
        const context = yield* withTestClock
        yield* TestClock.adjust("2 hours")
        assert.strictEqual((yield* send(h, "/auth/token", fromIp("198.51.100.4", "192.0.2.1"), context)).status, 200)
        assert.strictEqual((yield* send(h, "/auth/token", fromIp("198.51.100.4", "192.0.2.2"), context)).status, 200)
        const refused = yield* send(h, "/auth/token", fromIp("198.51.100.4", "192.0.2.3"), context)
        assert.strictEqual(refused.status, 429)
        assert.strictEqual(refused.headers.get("retry-after"), "1")
        // Another client behind the same proxy, even one naming the limited address first, has its own bucket.
        assert.strictEqual((yield* send(h, "/auth/token", fromIp("198.51.100.5", "198.51.100.4"), context)).status, 200)
        assert.strictEqual((yield* send(h, "/auth/token", fromIp("198.51.100.6", ""), context)).status, 200)
      }),
  )
})

describe("a provider's callbacks", () => {
  const defaults = serverWith({})
  const h: Handler = defaults.handler
  afterAll(async () => {
    await defaults.dispose()
  })
  const post = (): RequestInit => ({
    method: "POST",
    headers: { "content-type": "application/json", [peerHeader]: "203.0.113.9" },
    body: "{}",
  })
  const burst = (path: string, context: Context.Context<never>) =>
    Effect.forEach(Array.from({ length: 30 }), () => send(h, path, post(), context)).pipe(
      Effect.map((answers) => answers.filter((answer) => answer.status === 429).length),
    )

  it.effect(
    "have their own class per provider (Plaid, Dwolla, money movement, card processor, Stripe): a 30-request burst is not throttled, an anonymous one is",
    () =>
      Effect.gen(function* () {
        const context = yield* withTestClock
        for (const path of Object.keys(CrossCutting.providerCallbackPaths)) {
          assert.strictEqual(yield* burst(path, context), 0, path)
        }
        assert.isAbove(yield* burst("/NoSuchAnonymousPath", context), 0)
        assert.deepStrictEqual(Object.values(CrossCutting.providerCallbackPaths), [
          "plaid",
          "dwolla",
          "money-movement",
          "card-processor",
          "stripe",
        ])
      }),
  )
})

describe("token bucket", () => {
  it("never allows more than burst + rate x elapsed requests, and refuses with a truthful Retry-After", () => {
    fc.assert(
      fc.property(
        fc.record({ perSecond: fc.integer({ min: 1, max: 50 }), burst: fc.integer({ min: 1, max: 50 }) }),
        fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 200 }),
        (rule, gaps) => {
          const limiter = RateLimit.make()
          let now = 1_000_000
          const start = now
          let allowed = 0
          for (const gap of gaps) {
            now += gap
            const decision = limiter.take("k", rule, now)
            if (decision.allowed) allowed++
            else {
              assert.isAtLeast(decision.retryAfterSeconds, 1)
              // Waiting Retry-After seconds is enough.
              now += decision.retryAfterSeconds * 1000
              assert.isTrue(limiter.take("k", rule, now).allowed)
              allowed++
            }
            assert.isAtMost(allowed, rule.burst + ((now - start) * rule.perSecond) / 1000 + 1e-9)
          }
        },
      ),
      seeded({ numRuns: 200 }),
    )
  })

  it("N instances sharing the limits each allow 1/N of a rule: together, never more than the rule", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.record({ perSecond: fc.integer({ min: 1, max: 50 }), burst: fc.integer({ min: 5, max: 50 }) }),
        fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 1, maxLength: 150 }),
        (instances, rule, gaps) => {
          // A round-robin balancer spreads the caller's requests over the instances.
          const limiters = Array.from({ length: instances }, () => RateLimit.make({ share: () => instances }))
          let now = 1_000_000
          const start = now
          let allowed = 0
          gaps.forEach((gap, i) => {
            now += gap
            if (limiters[i % instances]!.take("k", rule, now).allowed) allowed++
          })
          assert.isAtMost(allowed, rule.burst + ((now - start) * rule.perSecond) / 1000 + instances)
        },
      ),
      seeded({ numRuns: 200 }),
    )
  })

  it("a share is read at each decision: one instance joining halves what the next burst allows", () => {
    let instances = 1
    const limiter = RateLimit.make({ share: () => instances })
    const rule = { perSecond: 1, burst: 10 }
    const burst = (at: number, key: string) =>
      Array.from({ length: 20 }, () => limiter.take(key, rule, at)).filter((d) => d.allowed).length
    assert.strictEqual(burst(0, "alone"), 10)
    instances = 2
    assert.strictEqual(burst(0, "shared"), 5)
  })

  it("a quiet caller gets its full burst back, and idle buckets are dropped when the table is full", () => {
    const limiter = RateLimit.make({ maxBuckets: 2 })
    const rule = { perSecond: 1, burst: 2 }
    assert.isTrue(limiter.take("a", rule, 0).allowed)
    assert.isTrue(limiter.take("b", rule, 0).allowed)
    assert.isTrue(limiter.take("c", rule, 10_000).allowed)
    assert.strictEqual(limiter.size(), 1)
  })
})

describe("request body size", () => {
  const big = JSON.stringify({ ClientId: "x".repeat(1024 * 1024), ClientSecret: "y" })

  it.effect("a body over 1 MiB is 413 problem+json (declared Content-Length)", () =>
    Effect.gen(function* () {
      const r = yield* send(handler, "/auth/token", {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": String(big.length) },
        body: big,
      })
      assert.strictEqual(r.status, 413)
      assert.strictEqual(r.headers.get("content-type"), "application/problem+json")
      assert.strictEqual(problemCode(r), "PAYLOAD_TOO_LARGE")
    }),
  )

  it.effect("a body over 1 MiB without Content-Length is 413 too (enforced while reading)", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(handler)
      const r = yield* send(handler, "/Probe/Create", withKey(token, newKey(), { name: big }))
      assert.strictEqual(r.status, 413)
      assert.strictEqual(problemCode(r), "PAYLOAD_TOO_LARGE")
    }),
  )
})
