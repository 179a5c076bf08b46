/** The cache of verified tokens: bounded, least recently used evicted first, never past a token's exp. */
import { assert, describe, it } from "@effect/vitest"
import * as TokenCache from "../src/cross-cutting/TokenCache.ts"
import { partnerId } from "./fixtures.ts"

const verified = (expiresAtMillis: number): TokenCache.VerifiedToken => ({
  caller: { _tag: "Partner", partnerId },
  expiresAtMillis,
  issuedAtSeconds: 0,
  authTimeSeconds: 0,
  generation: 0,
  partnerGeneration: 0,
  jti: "5c0ffee0-0000-4000-8000-000000000009",
})

describe("TokenCache", () => {
  it("returns a stored token until just before its exp, never at or after it", () => {
    const cache = TokenCache.make()
    cache.set("t", verified(10_000))
    assert.isDefined(cache.get("t", 9_999))
    assert.isUndefined(cache.get("t", 10_000))
    // The expired entry is dropped, not kept for later.
    assert.strictEqual(cache.size(), 0)
    assert.isUndefined(cache.get("t", 0))
  })

  it("holds at most maxEntries tokens", () => {
    const cache = TokenCache.make({ maxEntries: 3 })
    for (let i = 0; i < 10; i++) cache.set(`t${i}`, verified(10_000))
    assert.strictEqual(cache.size(), 3)
    assert.isDefined(cache.get("t9", 0))
    assert.isUndefined(cache.get("t0", 0))
  })

  it("evicts the least recently used token first", () => {
    const cache = TokenCache.make({ maxEntries: 2 })
    cache.set("a", verified(10_000))
    cache.set("b", verified(10_000))
    assert.isDefined(cache.get("a", 0)) // a is now more recent than b
    cache.set("c", verified(10_000))
    assert.isDefined(cache.get("a", 0))
    assert.isUndefined(cache.get("b", 0))
    assert.isDefined(cache.get("c", 0))
  })

  it("the default bound is 10,000 tokens", () => {
    const cache = TokenCache.make()
    for (let i = 0; i < 10_050; i++) cache.set(`t${i}`, verified(10_000))
    assert.strictEqual(cache.size(), TokenCache.defaultMaxEntries)
    assert.strictEqual(TokenCache.defaultMaxEntries, 10_000)
  })

  it("maxEntries 0 remembers nothing; delete and clear drop entries", () => {
    const off = TokenCache.make({ maxEntries: 0 })
    off.set("t", verified(10_000))
    assert.isUndefined(off.get("t", 0))
    const cache = TokenCache.make()
    cache.set("a", verified(10_000))
    cache.set("b", verified(10_000))
    cache.delete("a")
    assert.isUndefined(cache.get("a", 0))
    cache.clear()
    assert.strictEqual(cache.size(), 0)
  })
})
