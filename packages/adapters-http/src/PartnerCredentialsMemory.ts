/**
 * An in-memory `PartnerCredentials`: for tests, local runs and embedders.
 *
 * Secrets are kept only as scrypt hashes (`@partnerpay/secrets`, the same
 * hashing as the PostgreSQL partner store) and compared in constant time. An
 * unknown ClientId is checked against a dummy hash, so it costs the same time
 * as a wrong secret.
 */
import { type Ids, PartnerCredentials } from "@partnerpay/domain"
import { SecretHash } from "@partnerpay/secrets"
import { Effect, Layer, Option, type Redacted } from "effect"

export { defaultParams, hashSecret, type ScryptParams, verifySecret } from "@partnerpay/secrets/SecretHash"

export interface PartnerCredentialEntry {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  readonly partnerId: Ids.PartnerId
}

/** The given partners' credentials, hashed when the layer is built. */
export const layerMemory = (
  partners: ReadonlyArray<PartnerCredentialEntry>,
  params: SecretHash.ScryptParams = SecretHash.defaultParams,
): Layer.Layer<PartnerCredentials> =>
  Layer.effect(
    PartnerCredentials,
    Effect.gen(function* () {
      const byClientId = new Map<string, { readonly stored: string; readonly partnerId: Ids.PartnerId }>()
      for (const partner of partners) {
        byClientId.set(partner.clientId, {
          stored: yield* SecretHash.hashSecret(partner.clientSecret, params),
          partnerId: partner.partnerId,
        })
      }
      // Checked when the ClientId is unknown, so both refusals take the same time.
      const dummy = yield* SecretHash.hashSecret(SecretHash.generateSecret(), params)
      return PartnerCredentials.of({
        authenticate: Effect.fn("PartnerCredentialsMemory.authenticate")(function* (clientId, clientSecret) {
          const entry = byClientId.get(clientId)
          const matches = yield* SecretHash.verifySecret(clientSecret, entry?.stored ?? dummy)
          return entry !== undefined && matches ? Option.some({ partnerId: entry.partnerId }) : Option.none()
        }),
      })
    }),
  )
