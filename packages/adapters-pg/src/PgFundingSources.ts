/**
 * The money-movement provider's funding sources of our bank accounts
 * (migration 39's `provider_funding_sources`): `find` one by our id (a payout
 * account id, a linked bank account id), `keep` a new one (the first kept
 * wins: two instances making one at once end with the same), and the
 * provider's customer of a company (its KYB submission, from the companies
 * read model); and the movement of ours a provider's reference names
 * (`movementOf`: a transfer's debit, a Pending refund's credit, or a Pending
 * payout; `movementById` by our id, the transfer's correlation id).
 */
import { Traced } from "@partnerpay/domain"
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

/** The funding source of `ownerId` at `provider`, if one was kept. */
export const find = (provider: string, ownerId: string) =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql<{ readonly funding_source: string }>`
      SELECT funding_source FROM provider_funding_sources WHERE provider = ${provider} AND owner_id = ${ownerId}`,
  ).pipe(Effect.map((rows) => rows[0]?.funding_source))

/** Keeps `fundingSource` for `ownerId`; answers the one kept (an earlier one wins). */
export const keep = (provider: string, ownerId: string, fundingSource: string) =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql`
      INSERT INTO provider_funding_sources (provider, owner_id, funding_source)
      VALUES (${provider}, ${ownerId}, ${fundingSource})
      ON CONFLICT (provider, owner_id) DO NOTHING`,
  ).pipe(
    Effect.andThen(find(provider, ownerId)),
    Effect.map((kept) => kept ?? fundingSource),
  )

/** The KYB provider's reference (Dwolla: the customer id) of a company, if submitted. */
export const kybSubmissionOf = (companyId: string) =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql<{ readonly submission_id: string | null }>`
      SELECT data ->> 'kybSubmissionId' AS submission_id FROM read_models
      WHERE collection = 'companies' AND id = ${companyId}`,
  ).pipe(Effect.map((rows) => rows[0]?.submission_id ?? undefined))

/** The movement of ours whose provider reference is `reference`: a debit, a Pending refund's credit, a payout. */
export type ReferencedMovement =
  | { readonly _tag: "Debit"; readonly transferId: string }
  | { readonly _tag: "Credit"; readonly transferId: string; readonly refundId: string }
  | { readonly _tag: "Payout"; readonly payoutId: string }

/** The payout whose id or provider reference is `value` (`field`), if any. */
const payoutWhere = Traced.fn("PgFundingSources.payoutWhere")(function* (field: "id" | "reference", value: string) {
  const sql = yield* SqlClient
  const rows =
    field === "id"
      ? yield* sql<{ readonly id: string }>`
          SELECT id FROM read_models WHERE collection = 'payouts' AND id = ${value} LIMIT 1`
      : yield* sql<{ readonly id: string }>`
          SELECT id FROM read_models
          WHERE collection = 'payouts' AND keys ->> 'status' = 'Pending' AND data ->> 'providerReference' = ${value}
          LIMIT 1`
  const row = rows[0]
  return row === undefined ? undefined : ({ _tag: "Payout", payoutId: row.id } as ReferencedMovement)
})

export const movementOf = Traced.fn("PgFundingSources.movementOf")(function* (reference: string) {
  const sql = yield* SqlClient
  const debits = yield* sql<{ readonly id: string }>`
      SELECT id FROM read_models
      WHERE collection = 'transfers' AND data ->> 'providerReference' = ${reference} LIMIT 1`
  if (debits[0] !== undefined) return { _tag: "Debit", transferId: debits[0].id } as ReferencedMovement
  const credits = yield* sql<{ readonly id: string; readonly refund_id: string }>`
      SELECT r.id, refund ->> 'refundId' AS refund_id
      FROM read_models r, jsonb_array_elements(r.data -> 'refunds') AS refund
      WHERE r.collection = 'transfers' AND r.keys ->> 'refundPending' = 'true'
        AND refund ->> 'providerReference' = ${reference}
      LIMIT 1`
  const credit = credits[0]
  return credit === undefined
    ? yield* payoutWhere("reference", reference)
    : ({ _tag: "Credit", transferId: credit.id, refundId: credit.refund_id } as ReferencedMovement)
})

/** The movement of ours whose id is `id` (a transfer's debit, or a refund's credit), or none. */
export const movementById = Traced.fn("PgFundingSources.movementById")(function* (id: string) {
  const sql = yield* SqlClient
  const debits = yield* sql<{ readonly id: string }>`
      SELECT id FROM read_models WHERE collection = 'transfers' AND id = ${id} LIMIT 1`
  if (debits[0] !== undefined) return { _tag: "Debit", transferId: debits[0].id } as ReferencedMovement
  const credits = yield* sql<{ readonly id: string }>`
      SELECT r.id FROM read_models r, jsonb_array_elements(r.data -> 'refunds') AS refund
      WHERE r.collection = 'transfers' AND r.keys ->> 'refundPending' = 'true' AND refund ->> 'refundId' = ${id}
      LIMIT 1`
  const credit = credits[0]
  return credit === undefined
    ? yield* payoutWhere("id", id)
    : ({ _tag: "Credit", transferId: credit.id, refundId: id } as ReferencedMovement)
})
