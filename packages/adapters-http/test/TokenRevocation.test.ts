/**
 * Token security over HTTP: revocation by generation (partner and customer),
 * DELETE /Login/Session, tokens issued in the future, the 24-hour cap on
 * renewal, signing-key rotation (`kid`, previous secret), and the failure
 * limits of POST /auth/token.
 */
import { assert, describe, it } from "@effect/vitest"
import { IdGenerator, TokenGenerations } from "@partnerpay/domain"
import { Clock, Effect, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"
import * as Jose from "jose"
import { afterAll } from "vitest"
import * as RateLimit from "../src/cross-cutting/RateLimit.ts"
import { keyIdOf, sessionSeconds, Tokens } from "../src/cross-cutting/Tokens.ts"
import * as Server from "../src/Server.ts"
import {
  bearer,
  clientId,
  clientSecret,
  type Handler,
  otherPartnerId,
  Ports,
  partnerId,
  partnerToken,
  postJson,
  send,
  tokenSecret,
  withTestClock,
} from "./fixtures.ts"

/** A server whose revocation state the test holds (and may bump directly, as another instance would). */
const serverWith = (extra: Layer.Layer<never> = Layer.empty) => {
  const generations = TokenGenerations.makeMemory()
  const tokens = Tokens.layer({ secret: tokenSecret }).pipe(
    Layer.provide(IdGenerator.IdGenerator.layerRandom),
    Layer.provideMerge(Layer.succeed(TokenGenerations.TokenGenerations, generations)),
  )
  const { handler, dispose } = Server.toWebHandler(Layer.mergeAll(Ports, tokens, extra))
  return { handler: handler as unknown as Handler, dispose, generations }
}

const main = serverWith()
afterAll(main.dispose)
const { handler } = main

const json = (method: string, body: unknown, token: string): RequestInit => ({
  method,
  headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
  body: JSON.stringify(body),
})

/** A customer logged in through the OTP flow (sandbox code 123456), with a fresh phone number. */
const customerLogin = (partner: string, phoneNumber = `+1415555${String(Math.floor(Math.random() * 9000) + 1000)}`) =>
  Effect.gen(function* () {
    const sent = yield* send(handler, "/Login/SendOtp", json("POST", { phoneNumber }, partner))
    assert.strictEqual(sent.status, 200, sent.text)
    const checked = yield* send(handler, "/Login/CheckOtp", json("PUT", { phoneNumber, code: "123456" }, partner))
    assert.strictEqual(checked.status, 200, checked.text)
    return { ...(checked.json as { accessToken: string; registrationId: string }), phoneNumber }
  })

/** 403 (a valid partner token on a customer operation) or 401 (no valid token): the probe does nothing else. */
const probe = (token: string, context?: Parameters<typeof send>[3]) =>
  Effect.map(send(handler, "/Account/List", bearer(token), context), (r) => r.status)

const exchange = (token: string, context?: Parameters<typeof send>[3]) =>
  send(handler, "/Auth/ExchangeToken", bearer(token), context)

describe("a partner's tokens after a revocation", () => {
  it.effect("every token issued before is 401, renewal included; a new login gets a working token", () =>
    Effect.gen(function* () {
      const before = yield* partnerToken(handler)
      assert.strictEqual(yield* probe(before), 403)
      yield* main.generations.bump(TokenGenerations.partnerSubject(partnerId))
      assert.strictEqual(yield* probe(before), 401)
      assert.strictEqual((yield* exchange(before)).status, 401)
      const after = yield* partnerToken(handler)
      assert.strictEqual(yield* probe(after), 403)
      assert.strictEqual((yield* exchange(after)).status, 200)
    }),
  )

  it.effect("a token of an older generation stays refused after further revocations (stale generation)", () =>
    Effect.gen(function* () {
      const first = yield* partnerToken(handler)
      yield* main.generations.bump(TokenGenerations.partnerSubject(partnerId))
      const second = yield* partnerToken(handler)
      assert.strictEqual(Jose.decodeJwt(second).gen, main.generations.known(TokenGenerations.partnerSubject(partnerId)))
      yield* main.generations.bump(TokenGenerations.partnerSubject(partnerId))
      assert.strictEqual(yield* probe(first), 401)
      assert.strictEqual(yield* probe(second), 401)
      assert.strictEqual(yield* probe(yield* partnerToken(handler)), 403)
    }),
  )

  it.effect("a renewed token keeps working after a renewal, and dies with the next revocation", () =>
    Effect.gen(function* () {
      const renewed = (yield* exchange(yield* partnerToken(handler))).json as { accessToken: string }
      assert.strictEqual(yield* probe(renewed.accessToken), 403)
      yield* main.generations.bump(TokenGenerations.partnerSubject(partnerId))
      assert.strictEqual(yield* probe(renewed.accessToken), 401)
    }),
  )
})

describe("customer tokens after their partner's tokens are revoked", () => {
  it.effect("are 401 too (they were obtained with the partner's credentials); a new login works", () =>
    Effect.gen(function* () {
      const partner = yield* partnerToken(handler)
      const login = yield* customerLogin(partner)
      assert.strictEqual(
        Jose.decodeJwt(login.accessToken).pgen,
        main.generations.known(TokenGenerations.partnerSubject(partnerId)),
      )
      assert.strictEqual(yield* probe(login.accessToken), 200)
      yield* main.generations.bump(TokenGenerations.partnerSubject(partnerId))
      assert.strictEqual(yield* probe(login.accessToken), 401)
      assert.strictEqual((yield* exchange(login.accessToken)).status, 401)
      const again = yield* customerLogin(yield* partnerToken(handler), login.phoneNumber)
      assert.strictEqual(yield* probe(again.accessToken), 200)
    }),
  )
})

describe("DELETE /Login/Session (customer logout everywhere)", () => {
  it.effect("answers 204; every token of that customer is then 401, other customers and the partner unaffected", () =>
    Effect.gen(function* () {
      const partner = yield* partnerToken(handler)
      const phone = yield* customerLogin(partner)
      const device1 = phone.accessToken
      const device2 = (yield* customerLogin(partner, phone.phoneNumber)).accessToken
      const other = (yield* customerLogin(partner)).accessToken
      assert.strictEqual(yield* probe(device1), 200)
      const out = yield* send(handler, "/Login/Session", { method: "DELETE", ...bearer(device1) })
      assert.strictEqual(out.status, 204, out.text)
      assert.strictEqual(out.text, "")
      assert.strictEqual(yield* probe(device1), 401)
      assert.strictEqual(yield* probe(device2), 401)
      assert.strictEqual((yield* exchange(device2)).status, 401)
      assert.strictEqual(yield* probe(other), 200)
      assert.strictEqual(yield* probe(partner), 403)
      // Logging in again gives a working token.
      assert.strictEqual(yield* probe((yield* customerLogin(partner, phone.phoneNumber)).accessToken), 200)
    }),
  )

  it.effect("with a partner token is 403 and revokes nothing", () =>
    Effect.gen(function* () {
      const partner = yield* partnerToken(handler)
      const out = yield* send(handler, "/Login/Session", { method: "DELETE", ...bearer(partner) })
      assert.strictEqual(out.status, 403)
      assert.strictEqual(yield* probe(partner), 403)
    }),
  )

  it.effect("without a token is 401", () =>
    Effect.gen(function* () {
      const out = yield* send(handler, "/Login/Session", { method: "DELETE" })
      assert.strictEqual(out.status, 401)
    }),
  )
})

const key = new TextEncoder().encode(Redacted.value(tokenSecret))
// Crafted tokens name the other partner, whose tokens no test here revokes (generation 0 stays current).
const craft = (claims: Record<string, unknown>, iat: number, exp: number, secret = key) =>
  Effect.promise(() =>
    new Jose.SignJWT(claims)
      .setProtectedHeader({ alg: "HS256", kid: keyIdOf(Redacted.make(new TextDecoder().decode(secret))) })
      .setIssuer("partnerpay")
      .setAudience("partnerpay")
      .setSubject(otherPartnerId)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .setJti(crypto.randomUUID())
      .sign(secret),
  )

describe("a token issued in the future", () => {
  it.effect("is 401 when its iat is more than 60 s ahead; a few seconds ahead (clock skew) is accepted", () =>
    Effect.gen(function* () {
      const now = Math.floor(Date.now() / 1000)
      const claims = { scope: "partner", gen: 0, auth_time: now + 120 }
      assert.strictEqual(yield* probe(yield* craft(claims, now + 120, now + 3600)), 401)
      const slight = { scope: "partner", gen: 0, auth_time: now + 5 }
      assert.strictEqual(yield* probe(yield* craft(slight, now + 5, now + 3600)), 403)
    }),
  )
})

describe("a token whose claims break the session rules", () => {
  it.effect("is 401 when exp lies more than 24 h after auth_time, or auth_time follows iat", () =>
    Effect.gen(function* () {
      const now = Math.floor(Date.now() / 1000)
      const stretched = { scope: "partner", gen: 0, auth_time: now - sessionSeconds }
      assert.strictEqual(yield* probe(yield* craft(stretched, now, now + 3600)), 401)
      const later = { scope: "partner", gen: 0, auth_time: now + 30 }
      assert.strictEqual(yield* probe(yield* craft(later, now, now + 3600)), 401)
    }),
  )
})

describe("renewal through GET /Auth/ExchangeToken", () => {
  it.effect("never extends past 24 h after the client-credentials login (TestClock)", () =>
    Effect.gen(function* () {
      const context = yield* withTestClock
      const login = yield* send(
        handler,
        "/auth/token",
        postJson({ ClientId: clientId, ClientSecret: clientSecret }),
        context,
      )
      let token = (login.json as { AccessToken: string }).AccessToken
      const authTime = Jose.decodeJwt(token).iat!
      // Renew every 50 minutes for a day: every renewed token keeps the login's auth_time and ends by auth_time + 24 h.
      for (let minutes = 50; minutes < 24 * 60; minutes += 50) {
        yield* TestClock.adjust("50 minutes")
        const renewed = yield* exchange(token, context)
        assert.strictEqual(renewed.status, 200, `renewal at +${minutes} min`)
        token = (renewed.json as { accessToken: string }).accessToken
        const claims = Jose.decodeJwt(token)
        assert.strictEqual(claims.auth_time, authTime)
        assert.isAtMost(claims.exp!, authTime + sessionSeconds)
      }
      // The last token ends exactly 24 h after the login; renewing it just before gives a token as short.
      assert.strictEqual(Jose.decodeJwt(token).exp, authTime + sessionSeconds)
      const nowSeconds = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      yield* TestClock.adjust(`${authTime + sessionSeconds - nowSeconds} seconds`)
      assert.strictEqual(yield* probe(token, context), 401)
      assert.strictEqual((yield* exchange(token, context)).status, 401)
    }),
  )
})

describe("signing-key rotation", () => {
  const previous = Redacted.make("the-previous-signing-secret-0123456789abcdef")
  const tokensWith = (options: Parameters<typeof Tokens.layer>[0]) =>
    Tokens.layer(options).pipe(
      Layer.provide(IdGenerator.IdGenerator.layerRandom),
      Layer.provide(TokenGenerations.TokenGenerations.layerMemory),
    )
  const issueWith = (secret: Redacted.Redacted<string>) =>
    Effect.gen(function* () {
      return (yield* (yield* Tokens).issue({ _tag: "Partner", partnerId })).accessToken
    }).pipe(Effect.provide(tokensWith({ secret })))

  it.effect("tokens carry the kid of the current secret; tokens of the previous secret verify during the overlap", () =>
    Effect.gen(function* () {
      const old = yield* issueWith(previous)
      assert.strictEqual(Jose.decodeProtectedHeader(old).kid, keyIdOf(previous))
      const rotated = { secret: tokenSecret, previousSecret: previous }
      const outcome = yield* Effect.gen(function* () {
        const tokens = yield* Tokens
        const caller = yield* tokens.verify(old)
        const fresh = (yield* tokens.issue({ _tag: "Partner", partnerId })).accessToken
        return { caller, kid: Jose.decodeProtectedHeader(fresh).kid }
      }).pipe(Effect.provide(tokensWith(rotated)))
      assert.deepStrictEqual(outcome.caller, { _tag: "Partner", partnerId })
      assert.strictEqual(outcome.kid, keyIdOf(tokenSecret))
      assert.notStrictEqual(keyIdOf(tokenSecret), keyIdOf(previous))
    }),
  )

  it.effect("once the previous secret is dropped, its tokens are refused (unknown kid)", () =>
    Effect.gen(function* () {
      const old = yield* issueWith(previous)
      const error = yield* Effect.flip(
        Effect.gen(function* () {
          return yield* (yield* Tokens).verify(old)
        }).pipe(Effect.provide(tokensWith({ secret: tokenSecret }))),
      )
      assert.strictEqual(error.reason, "key")
    }),
  )

  it.effect("a token without kid (issued before kids existed) verifies with the current secret only", () =>
    Effect.gen(function* () {
      const now = Math.floor(Date.now() / 1000)
      const legacy = yield* Effect.promise(() =>
        new Jose.SignJWT({ scope: "partner" })
          .setProtectedHeader({ alg: "HS256" })
          .setIssuer("partnerpay")
          .setAudience("partnerpay")
          .setSubject(otherPartnerId)
          .setIssuedAt(now)
          .setExpirationTime(now + 3600)
          .setJti(crypto.randomUUID())
          .sign(key),
      )
      assert.strictEqual(yield* probe(legacy), 403)
    }),
  )
})

describe("POST /auth/token failure limits", () => {
  const attempt = (h: Handler, id: string, secret: string, headers: Record<string, string> = {}) =>
    Effect.map(
      send(h, "/auth/token", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ ClientId: id, ClientSecret: secret }),
      }),
      (r) => ({ status: r.status, retryAfter: r.headers.get("retry-after") }),
    )

  it.effect(
    "after 10 failures for a ClientId, even the right secret is 429 with Retry-After; other ClientIds still work",
    () =>
      Effect.gen(function* () {
        const server = serverWith()
        for (let i = 0; i < 10; i++) assert.strictEqual((yield* attempt(server.handler, clientId, "wrong")).status, 401)
        const locked = yield* attempt(server.handler, clientId, clientSecret)
        assert.strictEqual(locked.status, 429)
        assert.isAtLeast(Number(locked.retryAfter), 1)
        assert.strictEqual((yield* attempt(server.handler, "partner-client-2", "another secret")).status, 200)
        yield* Effect.promise(server.dispose)
      }),
  )

  it.effect("the ClientId is let in again once its bucket refills (TestClock)", () =>
    Effect.gen(function* () {
      const server = serverWith()
      const context = yield* withTestClock
      const at = (secret: string) =>
        Effect.map(
          send(server.handler, "/auth/token", postJson({ ClientId: clientId, ClientSecret: secret }), context),
          (r) => r.status,
        )
      for (let i = 0; i < 10; i++) assert.strictEqual(yield* at("wrong"), 401)
      assert.strictEqual(yield* at(clientSecret), 429)
      yield* TestClock.adjust("6 seconds")
      assert.strictEqual(yield* at(clientSecret), 200)
      yield* Effect.promise(server.dispose)
    }),
  )

  const tightAddress = Layer.succeed(RateLimit.AuthFailureLimits, {
    perClientId: { perSecond: 1, burst: 1000 },
    perAddress: { perSecond: 1 / 60, burst: 3 },
  }) as Layer.Layer<never>

  it.effect(
    "failures from one address on any ClientIds lock that address out (X-Forwarded-For ignored by default)",
    () =>
      Effect.gen(function* () {
        const server = serverWith(tightAddress)
        for (const id of ["a", "b", "c"]) {
          assert.strictEqual(
            (yield* attempt(server.handler, id, "x", { "x-forwarded-for": `10.0.0.${id.length}` })).status,
            401,
          )
        }
        const spoofed = yield* attempt(server.handler, clientId, clientSecret, { "x-forwarded-for": "10.9.9.9" })
        assert.strictEqual(spoofed.status, 429)
        yield* Effect.promise(server.dispose)
      }),
  )
})
