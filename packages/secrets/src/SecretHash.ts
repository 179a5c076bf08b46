/**
 * Slow hashing of client secrets, the one implementation used by the
 * PostgreSQL partner store (adapters-pg) and the in-memory credentials
 * (adapters-http): `scrypt$N$r$p$<salt base64>$<hash base64>` (random 16-byte
 * salt, N=2^14, r=8, p=1, 32-byte key), compared with `timingSafeEqual`.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { Effect, Redacted } from "effect"

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

/** A stored secret: `scrypt$N$r$p$<salt base64>$<hash base64>`. */
export const hashSecret = Effect.fn("SecretHash.hashSecret")(function* (
  secret: Redacted.Redacted<string>,
  params: ScryptParams = defaultParams,
) {
  const salt = randomBytes(16)
  const hash = yield* derive(Redacted.value(secret), salt, params)
  return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString("base64")}$${hash.toString("base64")}`
})

/** Whether the secret matches a stored `hashSecret` value, compared in constant time. */
export const verifySecret = Effect.fn("SecretHash.verifySecret")(function* (
  secret: Redacted.Redacted<string>,
  stored: string,
) {
  const [scheme, N, r, p, salt, hash] = stored.split("$")
  if (scheme !== "scrypt" || hash === undefined || salt === undefined) return false
  const params = { N: Number(N), r: Number(r), p: Number(p) }
  if (!Number.isInteger(params.N) || !Number.isInteger(params.r) || !Number.isInteger(params.p)) return false
  const expected = Buffer.from(hash, "base64")
  const actual = yield* derive(Redacted.value(secret), Buffer.from(salt, "base64"), params)
  return expected.length === actual.length && timingSafeEqual(expected, actual)
})

/** A new random secret (32 bytes, base64url). */
export const generateSecret = (): Redacted.Redacted<string> => Redacted.make(randomBytes(32).toString("base64url"))
