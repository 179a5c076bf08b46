/**
 * The money-movement workers' polls (Pending transfers to originate or poll,
 * settled ones within the return window, transfers with a Pending refund;
 * migration 19's indexes) and the sandbox's due-work polls: the oldest companies still Unverified and
 * transfers still Pending whose sort key (registration or initiation instant,
 * ISO-8601) is at or before a cutoff, across partners, oldest first. Each
 * reads a partial index of migration 16 (`read_models_unverified_companies`,
 * `read_models_pending_transfers`), so a poll costs the due rows it returns,
 * not the size of the read side.
 */
import { CardRefundRetriesProjection, SandboxDisputesProjection } from "@partnerpay/domain"
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

/** A company due for its sandbox KYB verdict. */
export interface DueCompany {
  readonly id: string
  readonly partner_id: string
  readonly sort_key: string
  readonly name: string
}

/** A transfer due for its sandbox settlement. */
export interface DueTransfer {
  readonly id: string
  readonly partner_id: string
  readonly sort_key: string
  readonly minor_units: string
  readonly currency: string
}

/** The statement of `unverifiedCompanies` (exported for its plan's test). */
export const unverifiedCompaniesStatement = (sql: SqlClient, cutoff: string, limit: number) =>
  sql<DueCompany>`
    SELECT id, partner_id::text AS partner_id, sort_key, data ->> 'name' AS name FROM read_models
    WHERE collection = 'companies' AND data ->> 'status' = 'Unverified' AND sort_key <= ${cutoff}
    ORDER BY sort_key, id LIMIT ${limit}`

/** Up to `limit` Unverified companies registered at or before `cutoff`, oldest first. */
export const unverifiedCompanies = (cutoff: string, limit: number) =>
  Effect.flatMap(SqlClient, (sql) => unverifiedCompaniesStatement(sql, cutoff, limit))

/** The statement of `pendingTransfers` (exported for its plan's test). */
export const pendingTransfersStatement = (sql: SqlClient, cutoff: string, limit: number) =>
  sql<DueTransfer>`
    SELECT id, partner_id::text AS partner_id, sort_key,
      data -> 'amount' ->> 'minorUnits' AS minor_units, data -> 'amount' ->> 'currency' AS currency
    FROM read_models
    WHERE collection = 'transfers' AND keys ->> 'status' = 'Pending' AND sort_key <= ${cutoff}
    ORDER BY sort_key, id LIMIT ${limit}`

/** Up to `limit` Pending transfers initiated at or before `cutoff`, oldest first. */
export const pendingTransfers = (cutoff: string, limit: number) =>
  Effect.flatMap(SqlClient, (sql) => pendingTransfersStatement(sql, cutoff, limit))

/** A transfer whose movement is to originate or to poll. */
export interface MovementRow {
  readonly id: string
  readonly partner_id: string
  readonly sort_key: string
  readonly provider_reference: string | null
}

/**
 * Up to `limit` Pending transfers not originated yet (every partner), oldest first: the originator's
 * work. Those deferred while the rail is unavailable (`originationRetryAt`, `MovementAttempts.ts`)
 * only once their next attempt is at or before `now` (ISO 8601; "" or later than every one: all).
 */
export const unoriginatedTransfers = (limit: number, now?: string) =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql<MovementRow>`
      SELECT id, partner_id::text AS partner_id, sort_key, data ->> 'providerReference' AS provider_reference
      FROM read_models
      WHERE collection = 'transfers' AND keys ->> 'status' = 'Pending' AND data ->> 'providerReference' IS NULL
        AND (data ->> 'originationRetryAt' IS NULL OR data ->> 'originationRetryAt' <= ${now ?? "9999"})
      ORDER BY sort_key, id LIMIT ${limit}`,
  )

/** An originated Pending transfer to poll; `status_retry_at` while its status is deferred (`MovementAttempts.ts`). */
export interface OriginatedRow extends MovementRow {
  readonly status_retry_at: string | null
}

/**
 * Up to `limit` originated Pending transfers (every partner) initiated after
 * `startingAfter` (the outcome poller's cursor, which wraps around), oldest first.
 */
export const originatedPendingTransfers = (limit: number, startingAfter = "") =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql<OriginatedRow>`
      SELECT id, partner_id::text AS partner_id, sort_key, data ->> 'providerReference' AS provider_reference,
        data ->> 'statusRetryAt' AS status_retry_at
      FROM read_models
      WHERE collection = 'transfers' AND keys ->> 'status' = 'Pending' AND data ->> 'providerReference' IS NOT NULL
        AND sort_key > ${startingAfter}
      ORDER BY sort_key, id LIMIT ${limit}`,
  )

/** A settled transfer the outcome poller asks about (a return may still come). */
export interface SettledMovement {
  readonly id: string
  readonly partner_id: string
  readonly settled_at: string
  readonly provider_reference: string | null
}

/**
 * Up to `limit` transfers Settled at or after `since` (the return window), in
 * settlement order after `startingAfter` (the poller's cursor, which wraps
 * around), that have a movement reference.
 */
export const settledMovements = (since: string, limit: number, startingAfter = "") =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql<SettledMovement>`
      SELECT id, partner_id::text AS partner_id, data ->> 'settledAt' AS settled_at,
        data ->> 'providerReference' AS provider_reference
      FROM read_models
      WHERE collection = 'transfers' AND keys ->> 'status' = 'Settled'
        AND data ->> 'settledAt' >= ${since} AND data ->> 'settledAt' > ${startingAfter}
      ORDER BY data ->> 'settledAt', id LIMIT ${limit}`,
  )

/** A transfer with a refund still Pending: its refunds (JSON), to originate or poll. */
export interface RefundingTransfer {
  readonly id: string
  readonly partner_id: string
  readonly sort_key: string
  readonly refunds: string
}

/**
 * Up to `limit` transfers with a Pending refund (every partner) initiated after `startingAfter` (the
 * outcome poller's cursor, which wraps around), oldest first.
 */
export const refundingTransfers = (limit: number, startingAfter = "") =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql<RefundingTransfer>`
      SELECT id, partner_id::text AS partner_id, sort_key, (data -> 'refunds')::text AS refunds
      FROM read_models
      WHERE collection = 'transfers' AND keys ->> 'refundPending' = 'true' AND sort_key > ${startingAfter}
      ORDER BY sort_key, id LIMIT ${limit}`,
  )

/** Up to `limit` transfers with a Pending refund not originated yet (every partner), oldest first. */
export const refundsToOriginate = (limit: number) =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql<RefundingTransfer>`
      SELECT id, partner_id::text AS partner_id, sort_key, (data -> 'refunds')::text AS refunds
      FROM read_models
      WHERE collection = 'transfers' AND keys ->> 'refundToOriginate' = 'true'
      ORDER BY sort_key, id LIMIT ${limit}`,
  )
/** A company whose balance may be due for a payout. */
export interface PayableBalance {
  readonly id: string
  readonly partner_id: string
  readonly sort_key: string
}

/**
 * The statement of `payableBalances` (exported for its plan's test): balances with some currency at or
 * above `minimumMinorUnits`, not paid out since `lastPayoutBefore` (ISO instant), or with some currency
 * below zero (a deficit the domain may debit once its grace period has passed), least recently changed
 * first. Reads the partial index `read_models_payable_balances` (migration 23).
 */
export const payableBalancesStatement = (
  sql: SqlClient,
  minimumMinorUnits: number,
  lastPayoutBefore: string,
  limit: number,
) =>
  sql<PayableBalance>`
    SELECT id, partner_id::text AS partner_id, sort_key FROM read_models
    WHERE collection = 'balances' AND keys ->> 'payable' = 'true'
      AND (
        ((data ->> 'lastPayoutAt' IS NULL OR data ->> 'lastPayoutAt' <= ${lastPayoutBefore})
          AND EXISTS (
            SELECT 1 FROM jsonb_array_elements(data -> 'available') AS amount
            WHERE (amount ->> 'minorUnits')::bigint >= ${minimumMinorUnits}))
        OR EXISTS (
          SELECT 1 FROM jsonb_array_elements(data -> 'available') AS amount
          WHERE (amount ->> 'minorUnits')::bigint < 0))
    ORDER BY sort_key, id LIMIT ${limit}`

/** Up to `limit` companies whose balance may be paid out (the domain decides: `Payouts.payOutDue`). */
export const payableBalances = (minimumMinorUnits: number, lastPayoutBefore: string, limit: number) =>
  Effect.flatMap(SqlClient, (sql) => payableBalancesStatement(sql, minimumMinorUnits, lastPayoutBefore, limit))

/** A payout still Pending: to originate (no provider reference yet) or to ask about. */
export interface PendingPayout {
  readonly id: string
  readonly partner_id: string
  readonly sort_key: string
  readonly originated: boolean
}

/**
 * The statement of `pendingPayouts` (exported for its plan's test): oldest first, partial index of
 * migration 23. A payout deferred while the rail is unavailable (`originationRetryAt`) only once its
 * next attempt is at or before `now` (ISO 8601).
 */
export const pendingPayoutsStatement = (sql: SqlClient, limit: number, now = "9999") =>
  sql<PendingPayout>`
    SELECT id, partner_id::text AS partner_id, sort_key, (data ->> 'providerReference' IS NOT NULL) AS originated
    FROM read_models
    WHERE collection = 'payouts' AND keys ->> 'status' = 'Pending'
      AND (data ->> 'originationRetryAt' IS NULL OR data ->> 'providerReference' IS NOT NULL
        OR data ->> 'originationRetryAt' <= ${now})
    ORDER BY sort_key, id LIMIT ${limit}`

/** Up to `limit` Pending payouts, oldest first (those deferred only once due at `now`). */
export const pendingPayouts = (limit: number, now?: string) =>
  Effect.flatMap(SqlClient, (sql) => pendingPayoutsStatement(sql, limit, now))

/** A transfer applied for reimbursement whose envelope the reimbursement-completion worker asks about. */
export interface PendingReimbursement {
  readonly id: string
  readonly partner_id: string
  readonly sort_key: string
}

/**
 * Up to `limit` transfers applied for reimbursement and not reimbursed yet (every partner),
 * initiated after `startingAfter` (the worker's cursor, which wraps around), oldest first
 * (migration 27's index).
 */
export const pendingReimbursements = (limit: number, startingAfter = "") =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql<PendingReimbursement>`
      SELECT id, partner_id::text AS partner_id, sort_key FROM read_models
      WHERE collection = 'transfers' AND keys ->> 'reimbursementPending' = 'true' AND sort_key > ${startingAfter}
      ORDER BY sort_key, id LIMIT ${limit}`,
  )

/** A card refund still Pending and not accepted by the processor (asked again by the retry worker). */
export interface PendingCardRefund {
  /** The refund's id. */
  readonly id: string
  readonly card_payment_id: string
  readonly partner_id: string
  /** When it was asked for (ISO 8601): the worker's cursor. */
  readonly sort_key: string
}

/**
 * Up to `limit` card refunds neither decided nor accepted by the processor (the `card_refund_retries`
 * read model, system tenant), every partner, asked for after `startingAfter` (the worker's cursor, which
 * wraps around), oldest first (the read models' page index).
 */
export const pendingCardRefunds = (limit: number, startingAfter = "") =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql<PendingCardRefund>`
      SELECT id, data ->> 'cardPaymentId' AS card_payment_id, data ->> 'partnerId' AS partner_id, sort_key
      FROM read_models
      WHERE collection = ${CardRefundRetriesProjection.collection}
        AND partner_id = ${CardRefundRetriesProjection.workTenant}
        AND sort_key COLLATE "C" > ${startingAfter}
      ORDER BY sort_key COLLATE "C", id COLLATE "C" LIMIT ${limit}`,
  )

/** A card payment made with the sandbox's disputed card (last four 0259), not disputed yet. */
export interface SandboxDisputedCard {
  /** The card payment's id. */
  readonly id: string
  readonly partner_id: string
  /** When it was paid (ISO 8601, its partner's time). */
  readonly sort_key: string
  /** The payment request it paid in the app; null for a terminal payment. */
  readonly payment_request_id: string | null
}

/** The dispute stream of the sandbox's dispute of a card payment (`CardDispute-dp_sandbox_<cardPaymentId>`). */
export const sandboxDisputeId = (cardPaymentId: string): string =>
  SandboxDisputesProjection.sandboxDisputeId(cardPaymentId)

/**
 * Sandbox: up to `limit` card payments of a company made with the card ending in 0259 at or before
 * `cutoff` (their partner's time) and not disputed yet, oldest first: the `Dispute` step of the
 * `sandbox_card_disputes` read model (the system tenant's page index). An in-app payment's partner is
 * its payment request's.
 */
export const sandboxCardsToDispute = (cutoff: string, limit: number) =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql<SandboxDisputedCard>`
      SELECT d.id, COALESCE(d.data ->> 'partnerId', r.partner_id, '') AS partner_id, d.sort_key,
        d.data ->> 'paymentRequestId' AS payment_request_id
      FROM read_models d
      LEFT JOIN read_models r ON r.collection = 'payment_requests' AND r.id = d.data ->> 'paymentRequestId'
      WHERE d.collection = ${SandboxDisputesProjection.collection}
        AND d.partner_id = ${SandboxDisputesProjection.workTenant}
        AND d.sort_key COLLATE "C" <= ${cutoff} AND d.keys ->> 'step' = 'Dispute'
      ORDER BY d.sort_key COLLATE "C", d.id COLLATE "C" LIMIT ${limit}`,
  )

/** A sandbox dispute opened and not decided yet. */
export interface SandboxOpenDispute {
  /** The dispute's id (`dp_sandbox_<cardPaymentId>`). */
  readonly id: string
  readonly partner_id: string
  /** When it opened (ISO 8601, its partner's time). */
  readonly sort_key: string
}

/**
 * Sandbox: up to `limit` of the sandbox's disputes opened at or before `cutoff` and nothing else since
 * (the `Lose` step of the `sandbox_card_disputes` read model), oldest first.
 */
export const sandboxDisputesToLose = (cutoff: string, limit: number) =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql<SandboxOpenDispute>`
      SELECT d.data ->> 'disputeId' AS id, COALESCE(d.data ->> 'partnerId', '') AS partner_id, d.sort_key
      FROM read_models d
      WHERE d.collection = ${SandboxDisputesProjection.collection}
        AND d.partner_id = ${SandboxDisputesProjection.workTenant}
        AND d.sort_key COLLATE "C" <= ${cutoff} AND d.keys ->> 'step' = 'Lose'
      ORDER BY d.sort_key COLLATE "C", d.id COLLATE "C" LIMIT ${limit}`,
  )
