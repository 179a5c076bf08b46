/**
 * What the `RateLimit-*` headers announce, from the token bucket's decisions
 * (time passed in: deterministic): the bucket size, the whole tokens left
 * after the request, and the whole seconds until the bucket is full again.
 */
import { assert, describe, it } from "@effect/vitest"
import * as RateLimit from "../src/cross-cutting/RateLimit.ts"

const rule = { perSecond: 2, burst: 4 }

describe("a caller's bucket", () => {
  it("announces its size, the requests left and the seconds until it is full again", () => {
    const limiter = RateLimit.make()
    const quota = (d: RateLimit.Decision) => [d.allowed, d.limit, d.remaining, d.resetSeconds]
    assert.deepStrictEqual(quota(limiter.take("p", rule, 0)), [true, 4, 3, 1])
    assert.deepStrictEqual(quota(limiter.take("p", rule, 0)), [true, 4, 2, 1])
    assert.deepStrictEqual(quota(limiter.take("p", rule, 0)), [true, 4, 1, 2])
    assert.deepStrictEqual(quota(limiter.take("p", rule, 0)), [true, 4, 0, 2])
    const refused = limiter.take("p", rule, 0)
    assert.deepStrictEqual(quota(refused), [false, 4, 0, 2])
    assert.strictEqual(refused.allowed ? 0 : refused.retryAfterSeconds, 1)
    // Half a second later one token came back, and was taken.
    assert.deepStrictEqual(quota(limiter.take("p", rule, 500)), [true, 4, 0, 2])
    // Another caller has its own bucket.
    assert.deepStrictEqual(quota(limiter.take("q", rule, 500)), [true, 4, 3, 1])
  })
})
