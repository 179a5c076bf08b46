/**
 * Migration 39: `provider_funding_sources`, the money-movement provider's
 * funding source of each bank account of ours (Dwolla's funding source of a
 * company's payout account, made on its first payout; of a payer's linked bank
 * account). Not personal data: the provider's ids only (the account numbers
 * stay sealed on the company). Also an index of the transfers by their
 * movement's provider reference, by which a provider's notification about a
 * transfer finds it.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`
    CREATE TABLE IF NOT EXISTS provider_funding_sources (
      provider text NOT NULL,
      owner_id text NOT NULL,
      funding_source text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (provider, owner_id)
    )`
  yield* sql`
    CREATE INDEX IF NOT EXISTS read_models_transfers_provider_reference ON read_models ((data ->> 'providerReference'))
    WHERE collection = 'transfers' AND data ->> 'providerReference' IS NOT NULL`
})
