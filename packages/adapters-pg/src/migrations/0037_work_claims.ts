/**
 * Migration 37: `work_claims`, the claims and backoff of the workers that call
 * a provider per item (the production KYB worker: a company's submission, the
 * polls of its verdict). One row per (kind, id): how many attempts were made
 * and the instant before which no instance may take the item again
 * (`not_before`: a lease while an instance works on it, then the backoff after
 * a failure or the interval until the next poll). In the database, so a
 * restart keeps the backoff and several instances take each item once.
 * Also an index of the companies by their KYB submission (the provider's
 * reference), by which a provider's notification finds its company.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`
    CREATE TABLE IF NOT EXISTS work_claims (
      kind text NOT NULL,
      id text NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      not_before timestamptz NOT NULL,
      last_error text,
      PRIMARY KEY (kind, id)
    )`
  yield* sql`
    CREATE INDEX IF NOT EXISTS read_models_companies_kyb_submission ON read_models ((data ->> 'kybSubmissionId'))
    WHERE collection = 'companies' AND data ->> 'kybSubmissionId' IS NOT NULL`
})
