/**
 * An in-memory `PartnerCredentials`: for tests, local runs and embedders.
 *
 * Secrets are kept only as hashes (`@partnerpay/secrets`: HMAC-SHA-256 under
 * the `Pepper` in context, the same scheme as the PostgreSQL partner store) and
 * compared in constant time. An entry may be given as a stored hash instead of
 * a secret (e.g. a legacy scrypt hash): a legacy hash is replaced by the HMAC
 * form on the first successful login. An unknown ClientId is checked against
 * an unmatchable hash, so it costs the same as a wrong secret.
 */
import { type Ids, PartnerCredentials, Traced } from "@partnerpay/domain"
import { SecretHash } from "@partnerpay/secrets"
import { Effect, Layer, Option, type Redacted } from "effect"

export { generateSecret, hashSecret, hashSecretScrypt, verifySecret } from "@partnerpay/secrets/SecretHash"

export type PartnerCredentialEntry = {
  readonly clientId: string
  readonly partnerId: Ids.PartnerId
} & ({ readonly clientSecret: Redacted.Redacted<string> } | { readonly storedHash: string })

/** The given partners' credentials, hashed when the layer is built. */
export const layerMemory = (
  partners: ReadonlyArray<PartnerCredentialEntry>,
): Layer.Layer<PartnerCredentials.PartnerCredentials> =>
  Layer.effect(
    PartnerCredentials.PartnerCredentials,
    Effect.gen(function* () {
      const pepper = yield* SecretHash.Pepper
      const byClientId = new Map<string, { stored: string; readonly partnerId: Ids.PartnerId }>()
      for (const partner of partners) {
        byClientId.set(partner.clientId, {
          stored: "storedHash" in partner ? partner.storedHash : SecretHash.hashSecret(partner.clientSecret, pepper),
          partnerId: partner.partnerId,
        })
      }
      const unmatchable = SecretHash.unmatchableHash()
      return PartnerCredentials.PartnerCredentials.of({
        authenticate: Traced.fn("PartnerCredentialsMemory.authenticate")(function* (clientId, clientSecret) {
          const entry = byClientId.get(clientId)
          const verdict = yield* SecretHash.verifySecret(clientSecret, entry?.stored ?? unmatchable, pepper)
          if (entry === undefined || verdict === "mismatch") return Option.none()
          if (verdict === "legacy-match") entry.stored = SecretHash.hashSecret(clientSecret, pepper)
          return Option.some({ partnerId: entry.partnerId })
        }),
      })
    }),
  )
