/**
 * Token-bucket rate limiting, in memory (one process). With several
 * processes behind a load balancer, each enforces its share of every rule
 * (the rule divided by the live instance count, `InstanceShare`), so that
 * together they enforce the rule without a database round trip per request
 * (docs/scaling.md says why and when this is exact).
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
 *
 * Failure limiting (POST /auth/token) uses the same buckets differently: a
 * failed attempt takes a token (`take`), and an attempt is refused before any
 * work while the bucket is empty (`peek`, which takes nothing), per ClientId
 * and per client address (`AuthFailureLimits`).
 */
import { Context } from "effect"

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
  /** What `take` would decide, without taking a token. */
  readonly peek: (key: string, rule: RateLimitRule, nowMillis: number) => Decision
  /** Number of buckets currently kept (for tests and metrics). */
  readonly size: () => number
}

export interface Options {
  readonly maxBuckets?: number
  /**
   * How many processes share the limits (default: one): each rule is divided by it, so that N
   * instances behind a load balancer that spreads a caller's requests enforce the rule together.
   */
  readonly share?: () => number
}

/** A rule as one of `n` processes enforces it (a bucket of at least one token). */
export const shareOf = (rule: RateLimitRule, n: number): RateLimitRule =>
  n <= 1 ? rule : { perSecond: rule.perSecond / n, burst: Math.max(1, rule.burst / n) }

export const make = (options: Options = {}): RateLimiter => {
  const maxBuckets = options.maxBuckets ?? 100_000
  const share = options.share ?? (() => 1)
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

  /** What the headers announce for `bucket` (after this request's token, if any, was taken). */
  const quota = (tokens: number, rule: RateLimitRule): Quota => ({
    limit: rule.burst,
    remaining: Math.floor(tokens),
    resetSeconds: Math.ceil((rule.burst - tokens) / rule.perSecond),
  })

  const allowedWith = (tokens: number, rule: RateLimitRule): Decision => ({ allowed: true, ...quota(tokens, rule) })

  const refused = (bucket: Bucket, rule: RateLimitRule): Decision => ({
    allowed: false,
    retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / rule.perSecond)),
    ...quota(bucket.tokens, rule),
  })

  return {
    peek: (key, whole, now) => {
      const rule = shareOf(whole, share())
      const entry = buckets.get(key)
      if (entry === undefined) return allowedWith(rule.burst, rule)
      refill(entry.bucket, rule, now)
      return entry.bucket.tokens >= 1 ? allowedWith(entry.bucket.tokens, rule) : refused(entry.bucket, rule)
    },
    take: (key, whole, now) => {
      const rule = shareOf(whole, share())
      let entry = buckets.get(key)
      if (entry === undefined) {
        if (buckets.size >= maxBuckets) sweep(now)
        entry = { bucket: { tokens: rule.burst, updatedAt: now }, rule }
        buckets.set(key, entry)
      } else {
        entry.rule = rule
        refill(entry.bucket, rule, now)
      }
      if (entry.bucket.tokens >= 1) {
        entry.bucket.tokens -= 1
        return allowedWith(entry.bucket.tokens, rule)
      }
      return refused(entry.bucket, rule)
    },
    size: () => buckets.size,
  }
}

/**
 * How many processes share the rate limits now (a function, read at each decision): the app
 * provides the live instance count of the database (`PgServiceInstance`); default one.
 */
export const InstanceShare = Context.Reference<() => number>("partnerpay/adapters-http/RateLimit/InstanceShare", {
  defaultValue: () => () => 1,
})

/** Failed logins allowed at POST /auth/token before it answers 429 without checking anything. */
export interface FailureLimits {
  /** Per ClientId (known or not): 10 failures, then one more every 6 s. */
  readonly perClientId: RateLimitRule
  /** Per client address (`HttpLimits.clientIp`): 30 failures, then one every 2 s. */
  readonly perAddress: RateLimitRule
}

export const defaultFailureLimits: FailureLimits = {
  perClientId: { perSecond: 1 / 6, burst: 10 },
  perAddress: { perSecond: 1 / 2, burst: 30 },
}

/** The failure limits in force (independent of the per-caller rate limiting switch). */
export const AuthFailureLimits = Context.Reference<FailureLimits>("partnerpay/adapters-http/AuthFailureLimits", {
  defaultValue: () => defaultFailureLimits,
})
