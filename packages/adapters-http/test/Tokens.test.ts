/** The token service on its own: claims, lifetime on the Effect clock, refusals with their reasons. */

import { assert, describe, it } from "@effect/vitest"
import { IdGenerator, TokenGenerations } from "@partnerpay/domain"
import { Clock, Effect, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"
import * as Jose from "jose"
import { keyIdOf, sessionSeconds, subjectOf, Tokens } from "../src/cross-cutting/Tokens.ts"
import { partnerId, registrationId, TokensTest, tokenSecret } from "./fixtures.ts"

const partner = { _tag: "Partner", partnerId } as const
const customer = { _tag: "Customer", partnerId, registrationId } as const

const reasonOf = (token: string) =>
  Effect.gen(function* () {
    const tokens = yield* Tokens
    const error = yield* Effect.flip(tokens.verify(token))
    return error.reason
  })

describe("Tokens", () => {
  it.effect("a partner token carries iss, aud, sub, scope, iat, exp = iat + 3600 and a jti", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(1_800_000_000_000)
      const tokens = yield* Tokens
      const issued = yield* tokens.issue(partner)
      assert.strictEqual(issued.expiresInSeconds, 3600)
      const header = Jose.decodeProtectedHeader(issued.accessToken)
      assert.strictEqual(header.alg, "HS256")
      const claims = Jose.decodeJwt(issued.accessToken)
      assert.strictEqual(claims.iss, "partnerpay")
      assert.strictEqual(claims.aud, "partnerpay")
      assert.strictEqual(claims.sub, partnerId)
      assert.strictEqual(claims.scope, "partner")
      assert.strictEqual(claims.iat, 1_800_000_000)
      assert.strictEqual(claims.exp, 1_800_003_600)
      assert.isString(claims.jti)
      assert.isUndefined(claims.pid)
      assert.deepStrictEqual(yield* tokens.verify(issued.accessToken), partner)
    }).pipe(Effect.provide(TokensTest)),
  )

  it.effect("a customer token has the registration id as subject and the partner as pid", () =>
    Effect.gen(function* () {
      const tokens = yield* Tokens
      const issued = yield* tokens.issue(customer)
      const claims = Jose.decodeJwt(issued.accessToken)
      assert.strictEqual(claims.sub, registrationId)
      assert.strictEqual(claims.pid, partnerId)
      assert.strictEqual(claims.scope, "customer")
      assert.deepStrictEqual(yield* tokens.verify(issued.accessToken), customer)
    }).pipe(Effect.provide(TokensTest)),
  )

  it.effect("two tokens issued at the same instant differ (jti)", () =>
    Effect.gen(function* () {
      const tokens = yield* Tokens
      const a = yield* tokens.issue(partner)
      const b = yield* tokens.issue(partner)
      assert.notStrictEqual(a.accessToken, b.accessToken)
    }).pipe(Effect.provide(TokensTest)),
  )

  it.effect("a token expires exactly after its lifetime on the Effect clock", () =>
    Effect.gen(function* () {
      const tokens = yield* Tokens
      const issued = yield* tokens.issue(partner)
      yield* TestClock.adjust("3599 seconds")
      yield* tokens.verify(issued.accessToken)
      yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* reasonOf(issued.accessToken), "expired")
    }).pipe(Effect.provide(TokensTest)),
  )

  it.effect("a token verified (hence cached) before its exp is refused from its exp on (TestClock)", () =>
    Effect.gen(function* () {
      const tokens = yield* Tokens
      const issued = yield* tokens.issue(partner)
      // Verified several times: later verifications are answered by the cache.
      yield* tokens.verify(issued.accessToken)
      yield* TestClock.adjust("3599 seconds")
      yield* tokens.verify(issued.accessToken)
      yield* TestClock.adjust("999 millis")
      assert.deepStrictEqual(yield* tokens.verify(issued.accessToken), partner)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(yield* reasonOf(issued.accessToken), "expired")
      assert.strictEqual(yield* reasonOf(issued.accessToken), "expired")
    }).pipe(Effect.provide(TokensTest)),
  )

  it.effect(
    "only the exact token string hits the cache (a tampered copy of a cached token is checked and refused)",
    () =>
      Effect.gen(function* () {
        const tokens = yield* Tokens
        const issued = yield* tokens.issue(partner)
        yield* tokens.verify(issued.accessToken)
        // The same bytes with the signature altered: not in the cache, so checked (and refused).
        const [h, p, s] = issued.accessToken.split(".")
        const tampered = `${h}.${p}.${s!.startsWith("A") ? "B" : "A"}${s!.slice(1)}`
        assert.strictEqual(yield* reasonOf(tampered), "signature")
        assert.deepStrictEqual(yield* tokens.verify(issued.accessToken), partner)
      }).pipe(Effect.provide(TokensTest)),
  )

  it.effect("refusals: empty, malformed, alg none, other algorithm, other audience, forged", () =>
    Effect.gen(function* () {
      const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      const tokens = yield* Tokens
      const key = new TextEncoder().encode(Redacted.value(tokenSecret))
      const sign = (alg: string, aud: string, k: Uint8Array) =>
        Effect.promise(() =>
          new Jose.SignJWT({ scope: "partner" })
            .setProtectedHeader({ alg })
            .setIssuer("partnerpay")
            .setAudience(aud)
            .setSubject(partnerId)
            .setIssuedAt(now)
            .setExpirationTime(now + 60)
            .setJti("5c0ffee0-0000-4000-8000-000000000003")
            .sign(k),
        )
      assert.strictEqual(yield* reasonOf(""), "missing")
      assert.strictEqual(yield* reasonOf("a.b.c"), "malformed")
      const none = new Jose.UnsecuredJWT({ scope: "partner" })
        .setIssuer("partnerpay")
        .setAudience("partnerpay")
        .setSubject(partnerId)
        .setIssuedAt(now)
        .setExpirationTime(now + 60)
        .encode()
      assert.strictEqual(yield* reasonOf(none), "algorithm")
      assert.strictEqual(yield* reasonOf(yield* sign("HS384", "partnerpay", key)), "algorithm")
      assert.strictEqual(yield* reasonOf(yield* sign("HS256", "elsewhere", key)), "claims")
      const otherKey = new TextEncoder().encode("x".repeat(40))
      assert.strictEqual(yield* reasonOf(yield* sign("HS256", "partnerpay", otherKey)), "signature")
      // Control: the same token with nothing changed is accepted, so each refusal above is about its one change.
      assert.deepStrictEqual(yield* tokens.verify(yield* sign("HS256", "partnerpay", key)), partner)
    }).pipe(Effect.provide(TokensTest)),
  )

  it.effect(
    "a token carries kid, gen and auth_time; a cached token is refused once its subject's generation moves on",
    () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(1_800_000_000_000)
        const tokens = yield* Tokens
        const generations = yield* TokenGenerations.TokenGenerations
        const issued = yield* tokens.issue(partner)
        assert.strictEqual(Jose.decodeProtectedHeader(issued.accessToken).kid, keyIdOf(tokenSecret))
        const claims = Jose.decodeJwt(issued.accessToken)
        assert.strictEqual(claims.auth_time, 1_800_000_000)
        assert.strictEqual(claims.gen, generations.known(subjectOf(partner)))
        // Verified (hence cached), then revoked: the cache hit is refused too.
        yield* tokens.verify(issued.accessToken)
        yield* generations.bump(subjectOf(partner))
        assert.strictEqual(yield* reasonOf(issued.accessToken), "revoked")
        assert.strictEqual((yield* Effect.flip(tokens.renew(issued.accessToken))).reason, "revoked")
        // The customer's tokens are another subject: untouched.
        const customerToken = (yield* tokens.issue(customer)).accessToken
        assert.deepStrictEqual(yield* tokens.verify(customerToken), customer)
        yield* tokens.revokeAll(customer)
        assert.strictEqual(yield* reasonOf(customerToken), "revoked")
        assert.deepStrictEqual(yield* tokens.verify((yield* tokens.issue(partner)).accessToken), partner)
      }).pipe(Effect.provide(TokensTest)),
  )

  it.effect("a renewal keeps auth_time and ends its exp at auth_time + 24 h; from then on nothing renews", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(1_800_000_000_000)
      const tokens = yield* Tokens
      let token = (yield* tokens.issue(partner)).accessToken
      // An expired token cannot be renewed: walk to the end of the day with renewals every 50 minutes.
      for (let elapsed = 3000; elapsed <= sessionSeconds - 1800; elapsed += 3000) {
        yield* TestClock.setTime((1_800_000_000 + elapsed) * 1000)
        const renewed = yield* tokens.renew(token)
        token = renewed.accessToken
        assert.isAtMost(Jose.decodeJwt(token).exp!, 1_800_000_000 + sessionSeconds)
        assert.strictEqual(Jose.decodeJwt(token).auth_time, 1_800_000_000)
      }
      const last = Jose.decodeJwt(token)
      assert.strictEqual(last.exp, 1_800_000_000 + sessionSeconds)
      assert.isBelow(last.exp! - last.iat!, 3600)
      yield* TestClock.setTime((1_800_000_000 + sessionSeconds) * 1000)
      assert.strictEqual(yield* reasonOf(token), "expired")
    }).pipe(Effect.provide(TokensTest)),
  )

  it.effect("a token issued more than 60 s ahead of our clock is refused as future; 60 s ahead is accepted", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(1_800_000_000_000)
      const tokens = yield* Tokens
      // Issued by an instance whose clock runs ahead of ours.
      const ahead = (seconds: number) =>
        Effect.gen(function* () {
          yield* TestClock.setTime((1_800_000_000 + seconds) * 1000)
          return (yield* tokens.issue(partner)).accessToken
        })
      const far = yield* ahead(61)
      const near = yield* ahead(60)
      yield* TestClock.setTime(1_800_000_000_000)
      assert.strictEqual(yield* reasonOf(far), "future")
      assert.deepStrictEqual(yield* tokens.verify(near), partner)
    }).pipe(Effect.provide(TokensTest)),
  )

  it.effect("a secret shorter than 32 bytes is refused when the layer is built", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(
        Effect.provide(
          Effect.gen(function* () {
            return yield* Tokens
          }),
          Tokens.layer({ secret: Redacted.make("short") }).pipe(
            Layer.provide(IdGenerator.IdGenerator.layerRandom),
            Layer.provide(TokenGenerations.TokenGenerations.layerMemory),
          ),
        ),
      )
      assert.isTrue(exit._tag === "Failure")
    }),
  )
})
