/**
 * An in-memory `PartnerCredentials`: for tests, local runs and embedders.
 *
 * Secrets are kept only as scrypt hashes (random 16-byte salt, N=2^14, r=8,
 * p=1) and compared with `timingSafeEqual`. An unknown ClientId is checked
 * against a dummy hash, so it costs the same time as a wrong secret.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { type Ids, PartnerCredentials } from "@partnerpay/domain"
import { Effect, Layer, Option, Redacted } from "effect"

export interface PartnerCredentialEntry {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  readonly partnerId: Ids.PartnerId
}

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
export const hashSecret = (
  secret: Redacted.Redacted<string>,
  params: ScryptParams = defaultParams,
): Effect.Effect<string> =>
  Effect.gen(function* () {
    const salt = randomBytes(16)
    const hash = yield* derive(Redacted.value(secret), salt, params)
    return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString("base64")}$${hash.toString("base64")}`
  })

/** Whether the secret matches a stored `hashSecret` value, compared in constant time. */
export const verifySecret = (secret: Redacted.Redacted<string>, stored: string): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const [scheme, N, r, p, salt, hash] = stored.split("$")
    if (scheme !== "scrypt" || hash === undefined || salt === undefined) return false
    const expected = Buffer.from(hash, "base64")
    const actual = yield* derive(Redacted.value(secret), Buffer.from(salt, "base64"), {
      N: Number(N),
      r: Number(r),
      p: Number(p),
    })
    return expected.length === actual.length && timingSafeEqual(expected, actual)
  })

/** The given partners' credentials, hashed when the layer is built. */
export const layerMemory = (
  partners: ReadonlyArray<PartnerCredentialEntry>,
  params: ScryptParams = defaultParams,
): Layer.Layer<PartnerCredentials> =>
  Layer.effect(
    PartnerCredentials,
    Effect.gen(function* () {
      const byClientId = new Map<string, { readonly stored: string; readonly partnerId: Ids.PartnerId }>()
      for (const partner of partners) {
        byClientId.set(partner.clientId, {
          stored: yield* hashSecret(partner.clientSecret, params),
          partnerId: partner.partnerId,
        })
      }
      // Checked when the ClientId is unknown, so both refusals take the same time.
      const dummy = yield* hashSecret(Redacted.make(randomBytes(16).toString("hex")), params)
      return PartnerCredentials.of({
        authenticate: (clientId, clientSecret) =>
          Effect.gen(function* () {
            const entry = byClientId.get(clientId)
            const matches = yield* verifySecret(clientSecret, entry?.stored ?? dummy)
            return entry !== undefined && matches ? Option.some({ partnerId: entry.partnerId }) : Option.none()
          }),
      })
    }),
  )
