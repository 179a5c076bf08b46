/**
 * The platform's books on PostgreSQL (issue 37 §4): the trial balance of the
 * `ledger_postings` read model (`PostingsProjection`) of every partner, summed
 * by the database (one statement over the documents' lines, served by the
 * partial index of migration 0120), and the companies' balance figures (the
 * `balances` read model) the check compares the payables with
 * (`TrialBalance.check`). Operators read it: `GET /admin/ledger/trial-balance`,
 * `partnerpay ledger check`.
 */
import { Ledger, Traced, TrialBalance } from "@partnerpay/domain"
import { DateTime, Schema } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { unavailable } from "./SqlErrors.ts"

interface TotalRow {
  readonly account: string
  readonly currency: string
  readonly debits: string | number
  readonly credits: string | number
}

const decodeTotal = Schema.decodeUnknownSync(TrialBalance.AccountTotal)

/**
 * Every account's debits and credits over the postings posted at or before `asOf` (all of them when
 * absent), by account and currency (in no order: `TrialBalance.of` sorts).
 */
export const totals = Traced.fn("PgLedger.totals")(function* (asOf: DateTime.Utc | undefined) {
  const sql = yield* SqlClient
  const until = asOf === undefined ? undefined : DateTime.formatIso(asOf)
  const rows = yield* sql<TotalRow>`
    SELECT line ->> 'account' AS account, line -> 'amount' ->> 'currency' AS currency,
      COALESCE(sum((line -> 'amount' ->> 'minorUnits')::bigint) FILTER (WHERE line ->> 'side' = 'Debit'), 0)::text AS debits,
      COALESCE(sum((line -> 'amount' ->> 'minorUnits')::bigint) FILTER (WHERE line ->> 'side' = 'Credit'), 0)::text AS credits
    FROM read_models, jsonb_array_elements(data -> 'lines') AS line
    WHERE ${
      until === undefined
        ? sql`collection = 'ledger_postings'`
        : sql`collection = 'ledger_postings' AND sort_key COLLATE "C" <= ${until}`
    }
    GROUP BY 1, 2`.pipe(unavailable("ledger totals"))
  return rows.map((row) =>
    decodeTotal({
      account: row.account,
      currency: row.currency,
      debits: Number(row.debits),
      credits: Number(row.credits),
    }),
  )
})

const decodeBalance = Schema.decodeUnknownSync(
  Schema.Struct({ companyId: Schema.String, available: Schema.Array(Ledger.SignedAmount) }),
)

/** Every company's balance figure (the `balances` read model: what is recorded and not paid out, per currency). */
export const balances = Traced.fn("PgLedger.balances")(function* () {
  const sql = yield* SqlClient
  const rows = yield* sql<{ readonly company_id: string; readonly available: unknown }>`
    SELECT id AS company_id, data -> 'available' AS available FROM read_models WHERE collection = 'balances'`.pipe(
    unavailable("ledger balances"),
  )
  return rows.map(
    (row): TrialBalance.CompanyBalance => decodeBalance({ companyId: row.company_id, available: row.available }),
  )
})

/** What the operator reads: the trial balance at `asOf` (now when absent) and what is wrong with the books. */
export interface LedgerCheck {
  readonly asOf: DateTime.Utc | undefined
  readonly trialBalance: TrialBalance.TrialBalance
  /** Empty: the books balance (and, without `asOf`, every payable equals its company's balance). */
  readonly discrepancies: ReadonlyArray<TrialBalance.Discrepancy>
}

/**
 * The trial balance and its check. The payables are compared with the balances only for the books
 * of now (no `asOf`): the balances read model holds today's figures, not those of a past instant.
 */
export const check = Traced.fn("PgLedger.check")(function* (asOf: DateTime.Utc | undefined) {
  const accountTotals = yield* totals(asOf)
  const figures = asOf === undefined ? yield* balances() : undefined
  return {
    asOf,
    trialBalance: TrialBalance.of(accountTotals),
    discrepancies: TrialBalance.check(accountTotals, figures),
  } satisfies LedgerCheck
})
