/**
 * Migration 44: the money-movement provider's funding sources (migration 39)
 * carry the partner id too (issue 27 section 4; docs/scaling.md): a payer's
 * funding source is made in the partner's bank-link request and filed under
 * that partner; '' for one made outside a partner's request (a worker's, e.g.
 * a company's payout account at its first payout).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`ALTER TABLE provider_funding_sources ADD COLUMN IF NOT EXISTS partner_id text NOT NULL DEFAULT ''`
})
