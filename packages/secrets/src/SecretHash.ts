/**
 * Hashing of client secrets, the one implementation used by the PostgreSQL
 * partner store (adapters-pg) and the in-memory credentials (adapters-http).
 *
 * Client secrets are 256-bit random values (`generateSecret`), so a slow
 * key-derivation function buys nothing against guessing (2^256 candidates)
 * while it makes every token request a CPU amplifier (scrypt costs ~30 ms of
 * CPU). They are stored as `hmac-sha256$<base64 digest>`: HMAC-SHA-256 keyed
 * with a server pepper (`Pepper`, at least 32 bytes, kept outside the
 * database), compared with `timingSafeEqual`. A stolen `partners` table alone
 * (without the pepper) does not even allow checking a candidate secret.
 *
 * Hashes written before this scheme, `scrypt$N$r$p$<salt>$<hash>`, are still
 * verified (`verifySecret` answers "legacy-match"); the stores replace them with
 * the HMAC form on the next successful login.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { Context, Effect, Redacted } from "effect"
import * as Hmac from "./Hmac.ts"

/** The server pepper keying the HMAC; at least `minimumPepperBytes`. */
export const minimumPepperBytes = 32

/**
 * The pepper in force. The default is a fixed, public value for tests and
 * embedders only: the service always provides its own (PARTNERPAY_SECRET_PEPPER,
 * required in production; generated into the data directory in a sandbox).
 */
export const Pepper = Context.Reference<Redacted.Redacted<string>>("partnerpay/secrets/Pepper", {
  defaultValue: () => Redacted.make("partnerpay-development-pepper-not-secret-0123456789"),
})

const hmacPrefix = "hmac-sha256$"

const digest = (secret: Redacted.Redacted<string>, pepper: Redacted.Redacted<string>): Buffer =>
  Hmac.sha256(Redacted.value(pepper), Redacted.value(secret))

/** The stored form of a secret: `hmac-sha256$<base64 HMAC-SHA-256(pepper, secret)>` (deterministic). */
export const hashSecret = (secret: Redacted.Redacted<string>, pepper: Redacted.Redacted<string>): string =>
  `${hmacPrefix}${digest(secret, pepper).toString("base64")}`

/** What a presented secret is worth against a stored hash. */
export type Verification = "match" | "legacy-match" | "mismatch"

// ---------------------------------------------------------------------------
// Legacy scrypt hashes (verified, never written by the stores any more)

export interface ScryptParams {
  readonly N: number
  readonly r: number
  readonly p: number
}

export const defaultParams: ScryptParams = { N: 2 ** 14, r: 8, p: 1 }
const keyLength = 32

const derive = (secret: string, salt: Buffer, params: ScryptParams): Effect.Effect<Buffer> =>
  Effect.callback<Buffer>((resume) => {
    scrypt(
      secret,
      salt,
      keyLength,
      { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r },
      (error, key) => resume(error ? Effect.die(error) : Effect.succeed(key)),
    )
  })

/** A legacy stored secret: `scrypt$N$r$p$<salt base64>$<hash base64>` (kept to test the migration). */
export const hashSecretScrypt = Effect.fn("SecretHash.hashSecretScrypt")(function* (
  secret: Redacted.Redacted<string>,
  params: ScryptParams = defaultParams,
) {
  const salt = randomBytes(16)
  const hash = yield* derive(Redacted.value(secret), salt, params)
  return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString("base64")}$${hash.toString("base64")}`
})

const verifyScrypt = (secret: Redacted.Redacted<string>, stored: string): Effect.Effect<boolean> => {
  const [, N, r, p, salt, hash] = stored.split("$")
  if (hash === undefined || salt === undefined) return Effect.succeed(false)
  const params = { N: Number(N), r: Number(r), p: Number(p) }
  if (!Number.isInteger(params.N) || !Number.isInteger(params.r) || !Number.isInteger(params.p)) {
    return Effect.succeed(false)
  }
  const expected = Buffer.from(hash, "base64")
  return Effect.map(
    derive(Redacted.value(secret), Buffer.from(salt, "base64"), params),
    (actual) => expected.length === actual.length && timingSafeEqual(expected, actual),
  )
}

// ---------------------------------------------------------------------------

/**
 * Checks a secret against a stored hash in constant time: "match" for the HMAC
 * form, "legacy-match" for a right secret under a legacy scrypt hash (the
 * caller should store `hashSecret` instead), "mismatch" otherwise (including a
 * malformed hash).
 */
export const verifySecret = (
  secret: Redacted.Redacted<string>,
  stored: string,
  pepper: Redacted.Redacted<string>,
): Effect.Effect<Verification> => {
  if (stored.startsWith(hmacPrefix)) {
    const expected = Buffer.from(stored.slice(hmacPrefix.length), "base64")
    const actual = digest(secret, pepper)
    return Effect.succeed(expected.length === actual.length && timingSafeEqual(expected, actual) ? "match" : "mismatch")
  }
  if (stored.startsWith("scrypt$")) {
    return Effect.map(verifyScrypt(secret, stored), (ok) => (ok ? "legacy-match" : "mismatch"))
  }
  // Same work as a real check, so a malformed row answers in the same time as a wrong secret.
  digest(secret, pepper)
  return Effect.succeed("mismatch")
}

/** A stored hash nobody's secret matches (used for unknown ClientIds: same work as a wrong secret). */
export const unmatchableHash = (): string => `${hmacPrefix}${randomBytes(32).toString("base64")}`

/** A new random secret (32 bytes = 256 bits, base64url). */
export const generateSecret = (): Redacted.Redacted<string> => Redacted.make(randomBytes(32).toString("base64url"))
