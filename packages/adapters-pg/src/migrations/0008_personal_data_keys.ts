/**
 * Migration 8: the data keys of data subjects (crypto-shredding, see
 * docs/personal-data.md and `PgPersonalDataVault.ts`).
 *
 * One row per data subject (`customer:<registrationId>`,
 * `company-owner:<companyId>`...): its AES-256 data key, wrapped (sealed)
 * under the master key whose public fingerprint is `master_key_id`. Erasing a
 * subject deletes its row; values sealed with the key can then never be read.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`
    CREATE TABLE IF NOT EXISTS personal_data_keys (
      subject text PRIMARY KEY,
      wrapped_key text NOT NULL,
      master_key_id text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
})
