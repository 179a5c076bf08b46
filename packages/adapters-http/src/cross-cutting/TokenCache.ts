/**
 * A bounded, in-memory cache of bearer tokens already verified (signature,
 * algorithm, issuer, audience, claims), so that a partner sending thousands
 * of requests with one token pays for the HMAC check (WebCrypto, about
 * 0.1 ms of CPU) once, not once per request.
 *
 * - Bounded: at most `maxEntries` tokens (least recently used evicted first;
 *   a JS `Map` keeps insertion order and a hit re-inserts its entry).
 * - Expiry: an entry is never returned at or after its token's `exp` (the
 *   same rule as jose: valid while `now < exp`); time is passed in
 *   (milliseconds from the Effect `Clock`), so tests drive it with
 *   `TestClock`. Expired entries are dropped when met.
 * - Revocation: the cache stores the verified claims (`jti`, `iat`, `exp`,
 *   `gen`, `pgen`, `auth_time`), not a bare yes/no. `Tokens.verify` applies the
 *   revocation check (the subject's token generation, in memory) and the
 *   issued-in-the-future check AFTER the lookup, to hits and fresh
 *   verifications alike; `delete` and `clear` drop entries at once.
 *
 * The key is the token string itself (only tokens whose signature verified
 * are stored, so the cache cannot be filled with forgeries). Tokens are
 * never logged.
 */
import type { CallerIdentity } from "./Caller.ts"

/** What a verified token proved, with the claims a revocation check needs. */
export interface VerifiedToken {
  readonly caller: CallerIdentity
  /** `exp` in epoch milliseconds: the entry is unusable from this instant on. */
  readonly expiresAtMillis: number
  /** `iat` in epoch seconds. */
  readonly issuedAtSeconds: number
  /** `auth_time` in epoch seconds: when the subject logged in (carried over on renewal). */
  readonly authTimeSeconds: number
  /** `gen`: the subject's token generation when the token was issued. */
  readonly generation: number
  /** `pgen` for a customer token (its partner's generation); `gen` for a partner token. */
  readonly partnerGeneration: number
  readonly jti: string
}

export interface TokenCache {
  /** The verified token, unless absent or expired at `nowMillis` (an expired entry is dropped). */
  readonly get: (token: string, nowMillis: number) => VerifiedToken | undefined
  /** Remembers a verified token (evicting the least recently used beyond the bound). */
  readonly set: (token: string, verified: VerifiedToken) => void
  readonly delete: (token: string) => void
  readonly clear: () => void
  /** Number of tokens currently kept (for tests and metrics). */
  readonly size: () => number
}

/** The default bound: 10,000 tokens (a few MB). */
export const defaultMaxEntries = 10_000

export const make = (options: { readonly maxEntries?: number | undefined } = {}): TokenCache => {
  const maxEntries = options.maxEntries ?? defaultMaxEntries
  const entries = new Map<string, VerifiedToken>()
  return {
    get: (token, now) => {
      const entry = entries.get(token)
      if (entry === undefined) return undefined
      if (now >= entry.expiresAtMillis) {
        entries.delete(token)
        return undefined
      }
      // The most recently used entry goes last.
      if (entries.size > 1) {
        entries.delete(token)
        entries.set(token, entry)
      }
      return entry
    },
    set: (token, verified) => {
      if (maxEntries <= 0) return
      entries.delete(token)
      entries.set(token, verified)
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next()
        if (oldest.done === true) break
        entries.delete(oldest.value)
      }
    },
    delete: (token) => {
      entries.delete(token)
    },
    clear: () => entries.clear(),
    size: () => entries.size,
  }
}
