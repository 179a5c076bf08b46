/**
 * The movement of ours a money-movement provider names (its notifications):
 * `movementOf(reference)` by the provider's reference recorded on it (a
 * transfer's debit, a Pending refund's credit, a Pending payout; the
 * transfers by migration 39's index), `movementById(id)` by our id (the
 * provider's correlation id: a notification that comes before the reference
 * was recorded).
 */
import { Traced } from "@partnerpay/domain"
import { SqlClient } from "effect/sql/SqlClient"

/** The movement of ours whose provider reference is `reference`: a debit, a Pending refund's credit, a payout. */
export type ReferencedMovement =
  | { readonly _tag: "Debit"; readonly transferId: string }
  | { readonly _tag: "Credit"; readonly transferId: string; readonly refundId: string }
  | { readonly _tag: "Payout"; readonly payoutId: string }

/** The payout whose id or provider reference is `value` (`field`), if any. */
const payoutWhere = Traced.fn("PgMovementReferences.payoutWhere")(function* (field: "id" | "reference", value: string) {
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

export const movementOf = Traced.fn("PgMovementReferences.movementOf")(function* (reference: string) {
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
export const movementById = Traced.fn("PgMovementReferences.movementById")(function* (id: string) {
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
