/**
 * Token-bucket rate limiting, in memory (one process).
 *
 * Each caller has a bucket holding up to `burst` tokens, refilled at
 * `perSecond` tokens per second; a request takes one token, and a request
 * finding the bucket empty is refused with the number of whole seconds after
 * which a token will be there (the `Retry-After` value). Time is passed in
 * (milliseconds from the Effect `Clock`), so tests drive it with `TestClock`.
 *
 * Every decision also says what the `RateLimit-*` response headers announce
 * (IETF draft "RateLimit header fields for HTTP"): `limit` (the bucket size),
 * `remaining` (whole tokens left after this request) and `resetSeconds`
 * (whole seconds until the bucket is full again).
 *
 * Buckets of callers that have been idle long enough to be full again carry
 * no information and are dropped when the table grows beyond `maxBuckets`.
 */

export interface RateLimitRule {
  /** Sustained rate: tokens added per second. */
  readonly perSecond: number
  /** Bucket size: the largest burst allowed after a quiet period. */
  readonly burst: number
}

/** What the `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` headers say. */
export interface Quota {
  readonly limit: number
  readonly remaining: number
  readonly resetSeconds: number
}

export type Decision =
  | ({ readonly allowed: true } & Quota)
  | ({ readonly allowed: false; readonly retryAfterSeconds: number } & Quota)

interface Bucket {
  tokens: number
  updatedAt: number
}

export interface RateLimiter {
  /** Takes one token from the bucket of `key` under `rule` at `nowMillis`. */
  readonly take: (key: string, rule: RateLimitRule, nowMillis: number) => Decision
  /** Number of buckets currently kept (for tests and metrics). */
  readonly size: () => number
}

export const make = (options: { readonly maxBuckets?: number } = {}): RateLimiter => {
  const maxBuckets = options.maxBuckets ?? 100_000
  const buckets = new Map<string, { bucket: Bucket; rule: RateLimitRule }>()

  const refill = (bucket: Bucket, rule: RateLimitRule, now: number) => {
    // A clock going backwards (it never should) must not mint tokens.
    const elapsed = Math.max(0, now - bucket.updatedAt)
    bucket.tokens = Math.min(rule.burst, bucket.tokens + (elapsed * rule.perSecond) / 1000)
    bucket.updatedAt = Math.max(bucket.updatedAt, now)
  }

  const sweep = (now: number) => {
    for (const [key, entry] of buckets) {
      refill(entry.bucket, entry.rule, now)
      if (entry.bucket.tokens >= entry.rule.burst) buckets.delete(key)
    }
  }

  return {
    take: (key, rule, now) => {
      let entry = buckets.get(key)
      if (entry === undefined) {
        if (buckets.size >= maxBuckets) sweep(now)
        entry = { bucket: { tokens: rule.burst, updatedAt: now }, rule }
        buckets.set(key, entry)
      } else {
        entry.rule = rule
        refill(entry.bucket, rule, now)
      }
      const bucket = entry.bucket
      const allowed = bucket.tokens >= 1
      if (allowed) bucket.tokens -= 1
      const limit = rule.burst
      const remaining = Math.floor(bucket.tokens)
      const resetSeconds = Math.ceil((rule.burst - bucket.tokens) / rule.perSecond)
      if (allowed) return { allowed, limit, remaining, resetSeconds }
      const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / rule.perSecond))
      return { allowed, retryAfterSeconds, limit, remaining, resetSeconds }
    },
    size: () => buckets.size,
  }
}
