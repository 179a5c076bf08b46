/**
 * Migration 18: webhook signing secrets sealed at rest. `partners` gains
 * `webhook_secret_sealed`: the secret sealed (AES-256-GCM) with the partner's
 * key in the personal data vault (subject `partner-webhook:<partnerId>`,
 * wrapped by the master key), so a dump of the database does not reveal it.
 * `webhook_secret` (plaintext) is no longer written; the secrets stored in it
 * before are sealed and cleared by the service at its next start
 * (`PgPartnerCredentials.sealStoredSecrets`: sealing needs the master key,
 * which a migration does not have).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`ALTER TABLE partners ADD COLUMN IF NOT EXISTS webhook_secret_sealed text`
})
