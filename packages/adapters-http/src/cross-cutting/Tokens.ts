/**
 * Access tokens: JWTs signed with HS256 and a server secret (`jose`).
 *
 * Header: `alg: HS256`, `typ: JWT` and `kid`, a fingerprint of the signing
 * secret (the first 16 base64url characters of a SHA-256 over it; it reveals
 * nothing usable about the secret). Claims: `iss` and `aud` ("partnerpay" by
 * default), `sub` (the partner id, or the registration id for a customer),
 * `scope` ("partner" | "customer"), `pid` (the partner id, customers only),
 * `iat`, `exp`, a unique `jti`, `gen` (the subject's token generation at
 * issue, see `TokenGenerations`), `pgen` (customers: their partner's
 * generation, so that revoking a partner's tokens, e.g. after a leaked
 * secret, also revokes the customer tokens obtained through it) and
 * `auth_time` (when the subject logged in with its credentials or one-time
 * code; carried over on renewal).
 *
 * Verification accepts HS256 only (so never `alg: none`), picks the key by
 * `kid` (the current secret, or `previousSecret` during a key rotation; no
 * `kid` means the current secret), checks signature, issuer, audience and
 * expiry against the Effect `Clock` (so tests move time with `TestClock`),
 * decodes the claims with Schema, then refuses:
 * - a token issued in the future (`iat` more than `clockSkewSeconds`, 60 s,
 *   ahead of our clock): reason "future";
 * - a token whose `exp` lies more than `sessionSeconds` (24 h) after its
 *   `auth_time`, or whose `auth_time` follows its `iat`: reason "claims";
 * - a token whose `gen` is below its subject's current generation (revoked by
 *   a secret rotation, an operator, or a customer's logout), or a customer
 *   token whose `pgen` is below its partner's: reason "revoked".
 *   The generation comes from `TokenGenerations.known` (memory, no I/O).
 *
 * Verified tokens are remembered in a bounded cache (`TokenCache.ts`, 10,000
 * tokens by default, `cacheSize: 0` turns it off): a cached token skips the
 * HMAC check until its `exp`, never after; the "future" and "revoked" checks
 * run on cache hits too (two comparisons and a map lookup).
 *
 * Renewal (`renew`, GET /Auth/ExchangeToken) reads the subject's generation
 * from the store (`current`), refuses a revoked token, and issues a token with
 * the same `auth_time` whose `exp` never passes `auth_time` + 24 h.
 *
 * Tokens issued before `kid`, `gen` and `auth_time` existed verify with the
 * current secret as generation 0 logged in at their `iat`.
 */

import { createHash } from "node:crypto"
import { IdGenerator, Ids, TokenGenerations, Traced } from "@partnerpay/domain"
import { Clock, Config, Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import * as Jose from "jose"
import type { CallerIdentity } from "./Caller.ts"
import * as TokenCache from "./TokenCache.ts"

/** Lifetime of every access token, in seconds (interface section 8). */
export const tokenLifetimeSeconds = 3600

/** How long after a login its tokens (renewed or not) may live: 24 hours. */
export const sessionSeconds = 24 * 3600

/** How far in the future an `iat` may lie (clocks of two instances disagree a little). */
export const clockSkewSeconds = 60

const minimumSecretBytes = 32

export interface TokensOptions {
  /** The HMAC key new tokens are signed with; at least 32 bytes. */
  readonly secret: Redacted.Redacted<string>
  /** The key of the previous rotation: its tokens still verify (never used to sign). */
  readonly previousSecret?: Redacted.Redacted<string> | undefined
  readonly issuer?: string | undefined
  readonly audience?: string | undefined
  readonly lifetimeSeconds?: number | undefined
  /** How many verified tokens to remember (default 10,000; 0 verifies every time). */
  readonly cacheSize?: number | undefined
}

export interface IssuedToken {
  readonly accessToken: string
  readonly expiresInSeconds: number
}

/** Why a token was refused; for logs only, never shown to the client. */
export class InvalidToken extends Schema.TaggedError<InvalidToken>()("InvalidToken", {
  reason: Schema.Literals([
    "missing",
    "malformed",
    "algorithm",
    "key",
    "signature",
    "expired",
    "claims",
    "future",
    "revoked",
  ]),
}) {}

const Session = {
  gen: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
  auth_time: Schema.optionalKey(Schema.Int),
}
const Claims = Schema.Union([
  Schema.Struct({ scope: Schema.Literal("partner"), sub: Ids.PartnerId, ...Session }),
  Schema.Struct({
    scope: Schema.Literal("customer"),
    sub: Ids.RegistrationId,
    pid: Ids.PartnerId,
    pgen: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
    ...Session,
  }),
])
const decodeClaims = Schema.decodeUnknownOption(Claims)

const reasonOf = (error: unknown): InvalidToken["reason"] => {
  if (error instanceof Jose.errors.JWTExpired) return "expired"
  if (error instanceof Jose.errors.JOSEAlgNotAllowed || error instanceof Jose.errors.JOSENotSupported)
    return "algorithm"
  if (error instanceof Jose.errors.JWSSignatureVerificationFailed) return "signature"
  if (error instanceof Jose.errors.JWTClaimValidationFailed) return "claims"
  return "malformed"
}

/** The `kid` of a signing secret: a fingerprint, not the secret. */
export const keyIdOf = (secret: Redacted.Redacted<string>): string =>
  createHash("sha256").update("partnerpay token key\0").update(Redacted.value(secret)).digest("base64url").slice(0, 16)

/** The revocation subject of a caller's tokens. */
export const subjectOf = (caller: CallerIdentity): string =>
  caller._tag === "Partner"
    ? TokenGenerations.partnerSubject(caller.partnerId)
    : TokenGenerations.customerSubject(caller.registrationId)

export class Tokens extends Context.Service<
  Tokens,
  {
    /** A fresh token for a caller who just logged in: current generation, `auth_time` now, valid `lifetimeSeconds`. */
    readonly issue: (caller: CallerIdentity) => Effect.Effect<IssuedToken>
    /** The caller a token proves, or why it proves nothing. */
    readonly verify: (token: string) => Effect.Effect<CallerIdentity, InvalidToken>
    /** A new token for the bearer of a valid, unrevoked token; same `auth_time`, never past it + 24 h. */
    readonly renew: (token: string) => Effect.Effect<IssuedToken, InvalidToken>
    /** Revokes every token of the caller's subject issued so far (here at once; elsewhere see the store). */
    readonly revokeAll: (caller: CallerIdentity) => Effect.Effect<void>
  }
>()("partnerpay/adapters-http/Tokens") {
  /** Tokens signed with the given secret; ids (`jti`) from `IdGenerator`, revocation from `TokenGenerations`. */
  static readonly layer = (
    options: TokensOptions,
  ): Layer.Layer<Tokens, never, IdGenerator.IdGenerator | TokenGenerations.TokenGenerations> =>
    Layer.effect(Tokens, make(options))

  /** Reads `PARTNERPAY_TOKEN_SECRET` and the optional `PARTNERPAY_TOKEN_SECRET_PREVIOUS` (each at least 32 bytes). */
  static readonly layerConfig: Layer.Layer<
    Tokens,
    Config.ConfigError,
    IdGenerator.IdGenerator | TokenGenerations.TokenGenerations
  > = Layer.unwrap(
    Effect.gen(function* () {
      const secret = yield* Config.Redacted("PARTNERPAY_TOKEN_SECRET")
      const previousSecret = yield* Config.option(Config.Redacted("PARTNERPAY_TOKEN_SECRET_PREVIOUS"))
      return Tokens.layer({ secret, previousSecret: Option.getOrUndefined(previousSecret) })
    }),
  )
}

const make = Effect.fnUntraced(function* (options: TokensOptions) {
  const ids = yield* IdGenerator.IdGenerator
  const generations = yield* TokenGenerations.TokenGenerations
  const keys = new Map<string, Uint8Array>()
  for (const secret of [options.secret, options.previousSecret]) {
    if (secret === undefined) continue
    const key = new TextEncoder().encode(Redacted.value(secret))
    if (key.byteLength < minimumSecretBytes) {
      return yield* Effect.die(new Error(`the token secret must be at least ${minimumSecretBytes} bytes`))
    }
    if (!keys.has(keyIdOf(secret))) keys.set(keyIdOf(secret), key)
  }
  const currentKeyId = keyIdOf(options.secret)
  const currentKey = keys.get(currentKeyId)!
  const issuer = options.issuer ?? "partnerpay"
  const audience = options.audience ?? "partnerpay"
  const lifetime = options.lifetimeSeconds ?? tokenLifetimeSeconds

  /** The generations a token of `caller` must carry: its own, and (customers) its partner's. */
  interface Generations {
    readonly generation: number
    readonly partnerGeneration: number
  }
  const currentGenerations = (caller: CallerIdentity): Effect.Effect<Generations> =>
    caller._tag === "Partner"
      ? Effect.map(generations.current(subjectOf(caller)), (generation) => ({
          generation,
          partnerGeneration: generation,
        }))
      : Effect.zipWith(
          generations.current(subjectOf(caller)),
          generations.current(TokenGenerations.partnerSubject(caller.partnerId)),
          (generation, partnerGeneration) => ({ generation, partnerGeneration }),
        )

  const sign = Traced.fn("Tokens.sign")(function* (
    caller: CallerIdentity,
    current: Generations,
    authTimeSeconds: number,
  ) {
    const nowSeconds = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const expiresAt = Math.min(nowSeconds + lifetime, authTimeSeconds + sessionSeconds)
    const jti = yield* ids.next
    const claims =
      caller._tag === "Partner"
        ? { scope: "partner", sub: caller.partnerId }
        : { scope: "customer", sub: caller.registrationId, pid: caller.partnerId, pgen: current.partnerGeneration }
    const { sub, ...rest } = claims
    const accessToken = yield* Effect.promise(() =>
      new Jose.SignJWT({ ...rest, gen: current.generation, auth_time: authTimeSeconds })
        .setProtectedHeader({ alg: "HS256", typ: "JWT", kid: currentKeyId })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject(sub)
        .setIssuedAt(nowSeconds)
        .setExpirationTime(expiresAt)
        .setJti(jti)
        .sign(currentKey),
    )
    return { accessToken, expiresInSeconds: expiresAt - nowSeconds }
  })

  const issue = Traced.fn("Tokens.issue")(function* (caller: CallerIdentity): Effect.fn.Return<IssuedToken> {
    const current = yield* currentGenerations(caller)
    const nowSeconds = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    return yield* sign(caller, current, nowSeconds)
  })

  const cache = TokenCache.make({ maxEntries: options.cacheSize })

  /** The checks that depend on time and revocation: run on cache hits and fresh verifications alike. */
  const stillValid = (verified: TokenCache.VerifiedToken, nowMillis: number): InvalidToken | undefined => {
    if (verified.issuedAtSeconds * 1000 > nowMillis + clockSkewSeconds * 1000)
      return new InvalidToken({ reason: "future" })
    if (
      verified.generation < generations.known(subjectOf(verified.caller)) ||
      (verified.caller._tag === "Customer" &&
        verified.partnerGeneration < generations.known(TokenGenerations.partnerSubject(verified.caller.partnerId)))
    ) {
      return new InvalidToken({ reason: "revoked" })
    }
    return undefined
  }

  const keyFor = (token: string): Effect.Effect<Uint8Array, InvalidToken> => {
    let kid: unknown
    try {
      kid = Jose.decodeProtectedHeader(token).kid
    } catch {
      return Effect.fail(new InvalidToken({ reason: "malformed" }))
    }
    if (kid === undefined) return Effect.succeed(currentKey)
    const key = typeof kid === "string" ? keys.get(kid) : undefined
    return key === undefined ? Effect.fail(new InvalidToken({ reason: "key" })) : Effect.succeed(key)
  }

  const verifyToken = Effect.fnUntraced(function* (
    token: string,
  ): Effect.fn.Return<TokenCache.VerifiedToken, InvalidToken> {
    if (token === "") return yield* new InvalidToken({ reason: "missing" })
    const now = yield* Clock.currentTimeMillis
    const cached = cache.get(token, now)
    if (cached !== undefined) {
      const refused = stillValid(cached, now)
      if (refused !== undefined) return yield* refused
      return cached
    }
    const key = yield* keyFor(token)
    const { payload } = yield* Effect.tryPromise({
      try: () =>
        Jose.jwtVerify(token, key, {
          algorithms: ["HS256"],
          issuer,
          audience,
          currentDate: new Date(now),
          requiredClaims: ["exp", "iat", "sub", "jti"],
        }),
      catch: (error) => new InvalidToken({ reason: reasonOf(error) }),
    })
    const claims = decodeClaims(payload)
    if (Option.isNone(claims)) return yield* new InvalidToken({ reason: "claims" })
    const c = claims.value
    const caller: CallerIdentity =
      c.scope === "partner"
        ? { _tag: "Partner", partnerId: c.sub }
        : { _tag: "Customer", partnerId: c.pid, registrationId: c.sub }
    // `exp`, `iat` and `jti` are required claims (checked above).
    const issuedAtSeconds = payload.iat!
    const authTimeSeconds = c.auth_time ?? issuedAtSeconds
    if (authTimeSeconds > issuedAtSeconds || payload.exp! > authTimeSeconds + sessionSeconds) {
      return yield* new InvalidToken({ reason: "claims" })
    }
    const verified: TokenCache.VerifiedToken = {
      caller,
      expiresAtMillis: payload.exp! * 1000,
      issuedAtSeconds,
      authTimeSeconds,
      generation: c.gen ?? 0,
      partnerGeneration: c.scope === "customer" ? (c.pgen ?? 0) : (c.gen ?? 0),
      jti: payload.jti!,
    }
    const refused = stillValid(verified, now)
    if (refused !== undefined) return yield* refused
    // A token with `nbf` is not cached (it could be presented before its start on a clock moved back).
    if (payload.nbf === undefined) cache.set(token, verified)
    return verified
  })

  const verify = (token: string): Effect.Effect<CallerIdentity, InvalidToken> =>
    Effect.map(verifyToken(token), (verified) => verified.caller)

  const renew = Traced.fn("Tokens.renew")(function* (token: string): Effect.fn.Return<IssuedToken, InvalidToken> {
    const verified = yield* verifyToken(token)
    const now = yield* Clock.currentTimeMillis
    if (now >= (verified.authTimeSeconds + sessionSeconds) * 1000) return yield* new InvalidToken({ reason: "expired" })
    // The store, not this process's memory: a revocation made elsewhere a moment ago counts.
    const current = yield* currentGenerations(verified.caller)
    if (verified.generation < current.generation || verified.partnerGeneration < current.partnerGeneration) {
      return yield* new InvalidToken({ reason: "revoked" })
    }
    return yield* sign(verified.caller, current, verified.authTimeSeconds)
  })

  const revokeAll = (caller: CallerIdentity): Effect.Effect<void> => Effect.asVoid(generations.bump(subjectOf(caller)))

  return Tokens.of({ issue, verify, renew, revokeAll })
})
