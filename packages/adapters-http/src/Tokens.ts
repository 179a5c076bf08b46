/**
 * Access tokens: JWTs signed with HS256 and a server secret (`jose`).
 *
 * Claims: `iss` and `aud` (both "partnerpay" by default), `sub` (the partner id,
 * or the registration id for a customer), `scope` ("partner" | "customer"),
 * `pid` (the partner id, customers only), `iat`, `exp` (iat + 3600 s) and a
 * unique `jti`. Verification accepts HS256 only (so never `alg: none`), checks
 * signature, issuer, audience and expiry against the Effect `Clock` (so tests
 * can move time with `TestClock`), then decodes the claims with Schema.
 *
 * Verified tokens are remembered in a bounded cache (`TokenCache.ts`, 10,000
 * tokens by default, `cacheSize: 0` turns it off): a cached token is accepted
 * without the HMAC check until its `exp` (on the same Effect `Clock`), never
 * after. A future revocation check goes in `verify` after the cache lookup,
 * on the cached claims (see `TokenCache.ts`).
 */
import { IdGenerator, Ids } from "@partnerpay/domain"
import { Clock, Config, Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import * as Jose from "jose"
import type { CallerIdentity } from "./Caller.ts"
import * as TokenCache from "./TokenCache.ts"

/** Lifetime of every access token, in seconds (interface section 8). */
export const tokenLifetimeSeconds = 3600

const minimumSecretBytes = 32

export interface TokensOptions {
  /** The HMAC key; at least 32 bytes. */
  readonly secret: Redacted.Redacted<string>
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
  reason: Schema.Literals(["missing", "malformed", "algorithm", "signature", "expired", "claims"]),
}) {}

const Claims = Schema.Union([
  Schema.Struct({ scope: Schema.Literal("partner"), sub: Ids.PartnerId }),
  Schema.Struct({ scope: Schema.Literal("customer"), sub: Ids.RegistrationId, pid: Ids.PartnerId }),
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

export class Tokens extends Context.Service<
  Tokens,
  {
    /** A fresh token for the caller, valid `lifetimeSeconds` from now. */
    readonly issue: (caller: CallerIdentity) => Effect.Effect<IssuedToken>
    /** The caller a token proves, or why it proves nothing. */
    readonly verify: (token: string) => Effect.Effect<CallerIdentity, InvalidToken>
  }
>()("partnerpay/adapters-http/Tokens") {
  /** Tokens signed with the given secret; ids (`jti`) come from `IdGenerator`. */
  static readonly layer = (options: TokensOptions): Layer.Layer<Tokens, never, IdGenerator> =>
    Layer.effect(Tokens, make(options))

  /** Reads the secret from `PARTNERPAY_TOKEN_SECRET` (at least 32 bytes). */
  static readonly layerConfig: Layer.Layer<Tokens, Config.ConfigError, IdGenerator> = Layer.unwrap(
    Effect.gen(function* () {
      const secret = yield* Config.Redacted("PARTNERPAY_TOKEN_SECRET")
      return Tokens.layer({ secret })
    }),
  )
}

const make = Effect.fnUntraced(function* (options: TokensOptions) {
  const ids = yield* IdGenerator
  const key = new TextEncoder().encode(Redacted.value(options.secret))
  if (key.byteLength < minimumSecretBytes) {
    return yield* Effect.die(new Error(`the token secret must be at least ${minimumSecretBytes} bytes`))
  }
  const issuer = options.issuer ?? "partnerpay"
  const audience = options.audience ?? "partnerpay"
  const lifetime = options.lifetimeSeconds ?? tokenLifetimeSeconds

  const issue = (caller: CallerIdentity): Effect.Effect<IssuedToken> =>
    Effect.gen(function* () {
      const nowSeconds = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      const jti = yield* ids.next
      const claims =
        caller._tag === "Partner"
          ? { scope: "partner", sub: caller.partnerId }
          : { scope: "customer", sub: caller.registrationId, pid: caller.partnerId }
      const { sub, ...rest } = claims
      const accessToken = yield* Effect.promise(() =>
        new Jose.SignJWT(rest)
          .setProtectedHeader({ alg: "HS256", typ: "JWT" })
          .setIssuer(issuer)
          .setAudience(audience)
          .setSubject(sub)
          .setIssuedAt(nowSeconds)
          .setExpirationTime(nowSeconds + lifetime)
          .setJti(jti)
          .sign(key),
      )
      return { accessToken, expiresInSeconds: lifetime }
    })

  const cache = TokenCache.make({ maxEntries: options.cacheSize })

  const verify = (token: string): Effect.Effect<CallerIdentity, InvalidToken> =>
    Effect.gen(function* () {
      if (token === "") return yield* new InvalidToken({ reason: "missing" })
      const now = yield* Clock.currentTimeMillis
      // A revocation check would apply here to `cached` (and below to fresh claims).
      const cached = cache.get(token, now)
      if (cached !== undefined) return cached.caller
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
      // `exp`, `iat` and `jti` are required claims (checked above); a token with `nbf` is not
      // cached (it could be presented before its start on a clock moved back).
      if (payload.nbf === undefined && typeof payload.jti === "string") {
        cache.set(token, {
          caller,
          expiresAtMillis: payload.exp! * 1000,
          issuedAtSeconds: payload.iat!,
          jti: payload.jti,
        })
      }
      return caller
    })

  return Tokens.of({ issue, verify })
})
