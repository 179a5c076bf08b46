/**
 * Migration 31: each partner's API version. `partners.api_version` holds the
 * dated version (`Partnerpay-Version`) pinned at the partner's first call;
 * NULL until then. Requests that name no version are answered in it.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient
  yield* sql`ALTER TABLE partners ADD COLUMN IF NOT EXISTS api_version text`
})
