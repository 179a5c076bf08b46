/**
 * Authentication through the HTTP interface: POST /auth/token, bearer tokens on
 * every other endpoint, GET /Auth/ExchangeToken.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Redacted, Result } from "effect"
import { HttpServerResponse } from "effect/http"
import { TestClock } from "effect/testing"
import * as Jose from "jose"
import { afterAll } from "vitest"
import { Authentication } from "../src/cross-cutting/Authentication.ts"
import { AuthenticationLive } from "../src/cross-cutting/AuthenticationLive.ts"
import { Caller } from "../src/cross-cutting/Caller.ts"
import { type BearerVerification, CurrentBearerVerification } from "../src/cross-cutting/CallerResolution.ts"
import { InvalidToken, Tokens } from "../src/cross-cutting/Tokens.ts"
import * as Server from "../src/Server.ts"
import {
  bearer,
  clientId,
  clientSecret,
  type Handler,
  makeServer,
  Ports,
  partnerToken,
  postJson,
  send,
  TokensTest,
  tokenSecret,
  typedClient,
  withTestClock,
} from "./fixtures.ts"

const { handler, dispose } = makeServer()
afterAll(dispose)

const key = new TextEncoder().encode(Redacted.value(tokenSecret))
const partnerClaims = { scope: "partner", sub: "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b" }

/** A token signed with our secret but with chosen header/claims, to probe the verifier. */
const craft = (alg: string, claims: Record<string, unknown>, overrides: { aud?: string; secret?: Uint8Array } = {}) =>
  Effect.promise(() =>
    new Jose.SignJWT(claims)
      .setProtectedHeader({ alg })
      .setIssuer("partnerpay")
      .setAudience(overrides.aud ?? "partnerpay")
      .setIssuedAt()
      .setExpirationTime("1h")
      .setJti("5c0ffee0-0000-4000-8000-000000000001")
      .sign(overrides.secret ?? key),
  )

const expectUnauthorized = (r: { status: number; headers: Headers; json: unknown }) => {
  assert.strictEqual(r.status, 401)
  assert.strictEqual(r.headers.get("content-type"), "application/problem+json")
  assert.strictEqual(r.headers.get("www-authenticate"), "Bearer")
  const body = r.json as Record<string, unknown>
  assert.strictEqual(body.type, "/docs/problems/unauthorized")
  assert.strictEqual(body.code, "UNAUTHORIZED")
  assert.strictEqual(body.status, 401)
}

describe("POST /auth/token", () => {
  it.effect("valid credentials give a Bearer token valid 3600 seconds, with the interface's PascalCase names", () =>
    Effect.gen(function* () {
      const r = yield* send(handler, "/auth/token", postJson({ ClientId: clientId, ClientSecret: clientSecret }))
      assert.strictEqual(r.status, 200)
      const body = r.json as Record<string, unknown>
      assert.deepStrictEqual(Object.keys(body).sort(), ["AccessToken", "ExpiresInSeconds", "TokenType"])
      assert.strictEqual(body.TokenType, "Bearer")
      assert.strictEqual(body.ExpiresInSeconds, 3600)
      const claims = Jose.decodeJwt(body.AccessToken as string)
      assert.strictEqual(claims.scope, "partner")
      assert.strictEqual(claims.aud, "partnerpay")
      assert.strictEqual((claims.exp ?? 0) - (claims.iat ?? 0), 3600)
    }),
  )

  it.effect("the typed client gets the same shape", () =>
    Effect.gen(function* () {
      const client = yield* typedClient(handler)
      const token = yield* client.auth.token({
        payload: { ClientId: clientId, ClientSecret: Redacted.make(clientSecret) },
      })
      assert.strictEqual(token.TokenType, "Bearer")
      assert.strictEqual(token.ExpiresInSeconds, 3600)
    }),
  )

  it.effect("a wrong secret and an unknown ClientId get identical 401 answers (apart from the instance id)", () =>
    Effect.gen(function* () {
      const wrongSecret = yield* send(handler, "/auth/token", postJson({ ClientId: clientId, ClientSecret: "nope" }))
      const unknownId = yield* send(
        handler,
        "/auth/token",
        postJson({ ClientId: "no-such-client", ClientSecret: clientSecret }),
      )
      expectUnauthorized(wrongSecret)
      expectUnauthorized(unknownId)
      const strip = (json: unknown) => {
        const { instance, ...rest } = json as Record<string, unknown>
        assert.match(String(instance), /^urn:uuid:[0-9a-f-]{36}$/)
        return rest
      }
      assert.deepStrictEqual(strip(wrongSecret.json), strip(unknownId.json))
    }),
  )

  it.effect("the typed client sees the 401 as an Unauthorized problem", () =>
    Effect.gen(function* () {
      const client = yield* typedClient(handler)
      const error = yield* client.auth
        .token({ payload: { ClientId: clientId, ClientSecret: Redacted.make("wrong") } })
        .pipe(Effect.flip)
      assert.strictEqual(error._tag, "Unauthorized")
    }),
  )

  it.effect("a secret from another partner does not open this partner's account", () =>
    Effect.gen(function* () {
      const r = yield* send(handler, "/auth/token", postJson({ ClientId: clientId, ClientSecret: "another secret" }))
      expectUnauthorized(r)
    }),
  )
})

describe("bearer authentication", () => {
  it.effect("a missing Authorization header is 401 with WWW-Authenticate: Bearer", () =>
    Effect.gen(function* () {
      expectUnauthorized(yield* send(handler, "/HealthCheck/Get"))
    }),
  )

  it.effect("another scheme (Basic) is 401", () =>
    Effect.gen(function* () {
      expectUnauthorized(yield* send(handler, "/HealthCheck/Get", { headers: { authorization: "Basic dXNlcjpwYXNz" } }))
    }),
  )

  it.effect("a malformed token is 401", () =>
    Effect.gen(function* () {
      expectUnauthorized(yield* send(handler, "/HealthCheck/Get", bearer("not.a.jwt")))
      expectUnauthorized(yield* send(handler, "/HealthCheck/Get", bearer("garbage")))
    }),
  )

  it.effect("a token signed with another secret (forged) is 401", () =>
    Effect.gen(function* () {
      const forged = yield* craft("HS256", partnerClaims, {
        secret: new TextEncoder().encode("an-attacker-secret-of-enough-length!!"),
      })
      expectUnauthorized(yield* send(handler, "/HealthCheck/Get", bearer(forged)))
    }),
  )

  it.effect("a valid token whose signature was tampered with is 401", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(handler)
      const [h, p, s] = token.split(".")
      const tampered = `${h}.${p}.${s?.startsWith("A") ? `B${s.slice(1)}` : `A${s?.slice(1)}`}`
      expectUnauthorized(yield* send(handler, "/HealthCheck/Get", bearer(tampered)))
    }),
  )

  it.effect("an unsigned token (alg none) is 401", () =>
    Effect.gen(function* () {
      const unsigned = new Jose.UnsecuredJWT(partnerClaims)
        .setIssuer("partnerpay")
        .setAudience("partnerpay")
        .setIssuedAt()
        .setExpirationTime("1h")
        .setJti("5c0ffee0-0000-4000-8000-000000000002")
        .encode()
      expectUnauthorized(yield* send(handler, "/HealthCheck/Get", bearer(unsigned)))
    }),
  )

  it.effect("a token signed with another HMAC algorithm (HS512) is 401", () =>
    Effect.gen(function* () {
      const hs512 = yield* craft("HS512", partnerClaims)
      expectUnauthorized(yield* send(handler, "/HealthCheck/Get", bearer(hs512)))
    }),
  )

  it.effect("a token for another audience is 401", () =>
    Effect.gen(function* () {
      const other = yield* craft("HS256", partnerClaims, { aud: "someone-else" })
      expectUnauthorized(yield* send(handler, "/HealthCheck/Get", bearer(other)))
    }),
  )

  it.effect("a correctly signed token without a valid scope is 401", () =>
    Effect.gen(function* () {
      const noScope = yield* craft("HS256", { sub: partnerClaims.sub })
      expectUnauthorized(yield* send(handler, "/HealthCheck/Get", bearer(noScope)))
      const notUuid = yield* craft("HS256", { scope: "partner", sub: "admin" })
      expectUnauthorized(yield* send(handler, "/HealthCheck/Get", bearer(notUuid)))
    }),
  )

  it.effect("a token is accepted until 3600 seconds have passed, then refused (TestClock)", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(handler, yield* withTestClock)
      yield* TestClock.adjust("3599 seconds")
      const before = yield* send(handler, "/HealthCheck/Get", bearer(token), yield* withTestClock)
      assert.strictEqual(before.status, 200)
      yield* TestClock.adjust("2 seconds")
      expectUnauthorized(yield* send(handler, "/HealthCheck/Get", bearer(token), yield* withTestClock))
    }),
  )
})

describe("GET /Auth/ExchangeToken", () => {
  it.effect("returns a fresh, working token for the same partner", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(handler)
      const r = yield* send(handler, "/Auth/ExchangeToken", bearer(token))
      assert.strictEqual(r.status, 200)
      const fresh = (r.json as { accessToken: string }).accessToken
      assert.notStrictEqual(fresh, token)
      assert.strictEqual(Jose.decodeJwt(fresh).sub, Jose.decodeJwt(token).sub)
      assert.strictEqual(Jose.decodeJwt(fresh).scope, "partner")
      const health = yield* send(handler, "/HealthCheck/Get", bearer(fresh))
      assert.strictEqual(health.status, 200)
    }),
  )

  // Live clock: the token is issued in the test fiber and checked by the server's clock.
  it.live("keeps a customer's subject, scope and partner", () =>
    Effect.gen(function* () {
      const tokens = yield* Tokens
      const customer = yield* tokens.issue({
        _tag: "Customer",
        partnerId: partnerClaims.sub as never,
        registrationId: "7e57ab1e-0000-4000-8000-00000000c0de" as never,
      })
      const client = yield* typedClient(handler, customer.accessToken)
      const { accessToken } = yield* client.auth.exchangeToken()
      assert.deepStrictEqual(yield* tokens.verify(accessToken), {
        _tag: "Customer",
        partnerId: partnerClaims.sub,
        registrationId: "7e57ab1e-0000-4000-8000-00000000c0de",
      } as never)
    }).pipe(Effect.provide(TokensTest)),
  )

  it.effect("without a token is 401", () =>
    Effect.gen(function* () {
      expectUnauthorized(yield* send(handler, "/Auth/ExchangeToken"))
    }),
  )
})

describe("bearer verification", () => {
  // The real token service, counting calls to `verify` (the cross-cutting middleware and the
  // Authentication middleware both need the caller; the token must be checked only once).
  const calls = { verify: 0 }
  const CountingTokens = Layer.effect(
    Tokens,
    Effect.gen(function* () {
      const real = yield* Tokens
      return Tokens.of({
        ...real,
        verify: (token) => {
          calls.verify++
          return real.verify(token)
        },
      })
    }),
  ).pipe(Layer.provide(TokensTest))
  const counted = Server.toWebHandler(Layer.mergeAll(Ports, CountingTokens))
  afterAll(counted.dispose)
  const countedHandler = counted.handler as unknown as Handler

  const verificationsOf = (path: string, init: RequestInit) =>
    Effect.gen(function* () {
      calls.verify = 0
      const r = yield* send(countedHandler, path, init)
      return { status: r.status, verifications: calls.verify, response: r }
    })

  it.effect("an accepted token is verified once per request", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(countedHandler)
      const r = yield* verificationsOf("/HealthCheck/Get", bearer(token))
      assert.strictEqual(r.status, 200)
      assert.strictEqual(r.verifications, 1)
    }),
  )

  it.effect("a refused token is verified once per request, and still gets the 401 with WWW-Authenticate", () =>
    Effect.gen(function* () {
      const forged = yield* craft("HS256", partnerClaims, { secret: new TextEncoder().encode("x".repeat(40)) })
      const r = yield* verificationsOf("/HealthCheck/Get", bearer(forged))
      expectUnauthorized(r.response)
      assert.strictEqual(r.verifications, 1)
    }),
  )

  it.effect("a request with a body (POST) is verified once too", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(countedHandler)
      const init = postJson({})
      const r = yield* verificationsOf("/Company/Create", {
        ...init,
        headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` },
      })
      // Authenticated (the empty company is refused by validation, not by authentication).
      assert.strictEqual(r.status, 422)
      assert.strictEqual(r.verifications, 1)
    }),
  )
})

describe("the Authentication middleware on its own", () => {
  /** Runs the bearer middleware around a route answering the caller's partner id. */
  const authenticate = (token: string, shared?: BearerVerification) =>
    Effect.gen(function* () {
      const auth = yield* Authentication
      const route = Effect.gen(function* () {
        const caller = yield* Caller
        return HttpServerResponse.text(caller.partnerId)
      })
      // The middleware reads no request service (only Tokens and the shared verification).
      const guarded = auth.bearer(route as never, {
        credential: Redacted.make(token),
        endpoint: undefined as never,
        group: undefined as never,
      }) as Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>
      return yield* Effect.exit(
        shared === undefined ? guarded : Effect.provideService(guarded, CurrentBearerVerification, shared),
      )
    }).pipe(Effect.provide(AuthenticationLive.pipe(Layer.provideMerge(TokensTest))))

  const partner = { _tag: "Partner", partnerId: partnerClaims.sub } as never

  it.effect("without a shared verification it verifies the token itself", () =>
    Effect.gen(function* () {
      const tokens = yield* Tokens
      const issued = yield* tokens.issue(partner)
      assert.isTrue(Exit.isSuccess(yield* authenticate(issued.accessToken)))
      const forged = yield* craft("HS256", partnerClaims, { secret: new TextEncoder().encode("x".repeat(40)) })
      assert.isTrue(Exit.isFailure(yield* authenticate(forged)))
    }).pipe(Effect.provide(TokensTest)),
  )

  it.effect("a verification shared for ANOTHER token is not trusted: the forged token is refused", () =>
    Effect.gen(function* () {
      const forged = yield* craft("HS256", partnerClaims, { secret: new TextEncoder().encode("x".repeat(40)) })
      const exit = yield* authenticate(forged, { token: "some-other-token", outcome: Result.succeed(partner) })
      assert.isTrue(Exit.isFailure(exit))
    }),
  )

  it.effect("a verification shared for the same token is reused (a refusal stays a refusal)", () =>
    Effect.gen(function* () {
      const tokens = yield* Tokens
      const issued = yield* tokens.issue(partner)
      const refused = yield* authenticate(issued.accessToken, {
        token: issued.accessToken,
        outcome: Result.fail(new InvalidToken({ reason: "signature" })),
      })
      assert.isTrue(Exit.isFailure(refused))
      const accepted = yield* authenticate("opaque", { token: "opaque", outcome: Result.succeed(partner) })
      assert.isTrue(Exit.isSuccess(accepted))
    }).pipe(Effect.provide(TokensTest)),
  )
})
