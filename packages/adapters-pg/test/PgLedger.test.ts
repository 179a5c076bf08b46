/**
 * The platform's books on PGlite (the same SQL as PostgreSQL): the trial
 * balance sums the `ledger_postings` documents of every partner up to an
 * instant; the check finds a company whose payable is not its balance; failed
 * Debit payouts raise `partnerpay_debit_payouts_failed_total` to their number,
 * and only Debit ones count.
 */
import { assert, describe, it } from "@effect/vitest"
import { Postings, type TrialBalance } from "@partnerpay/domain"
import { DateTime, Effect, Metric, Schema } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../src/Migrations.ts"
import * as PgDatabase from "../src/PgDatabase.ts"
import * as PgLedger from "../src/PgLedger.ts"
import * as PgMetrics from "../src/PgMetrics.ts"

const encodePosting = Schema.encodeSync(Postings.Posting)

const insert = (collection: string, id: string, partnerId: string, sortKey: string, data: unknown) =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql`INSERT INTO read_models (collection, id, partner_id, sort_key, data)
      VALUES (${collection}, ${id}, ${partnerId}, ${sortKey}, ${JSON.stringify(data)}::jsonb)`,
  )

/** A collection of `minorUnits` for `companyId` of `partnerId`, posted at `at`. */
const collected = (id: string, partnerId: string, companyId: string, minorUnits: number, at: string) =>
  insert(
    "ledger_postings",
    id,
    partnerId,
    at,
    encodePosting({
      eventType: "LedgerEntryRecorded",
      partnerId,
      companyId,
      reference: id,
      postedAt: DateTime.makeUnsafe(at),
      lines: Postings.transfer(Postings.Account.cash("ach"), Postings.Account.payable(companyId), minorUnits, "USD"),
    }),
  )

const balance = (companyId: string, partnerId: string, minorUnits: number) =>
  insert("balances", companyId, partnerId, "2026-03-01T00:00:00.000Z", {
    companyId,
    partnerId,
    available: [{ minorUnits, currency: "USD" }],
    updatedAt: "2026-03-01T00:00:00.000Z",
  })

const payout = (id: string, direction: "Credit" | "Debit", status: "Paid" | "Failed") =>
  insert("payouts", id, "p1", "2026-03-01T00:00:00.000Z", { payoutId: id, direction, status })

describe("the platform's books on PGlite", () => {
  it.effect(
    "sum every partner's postings up to the instant asked, and check payables against balances",
    () =>
      Effect.gen(function* () {
        yield* Migrations.run
        yield* collected("e1", "p1", "c1", 10_000, "2026-03-01T10:00:00.000Z")
        yield* collected("e2", "p2", "c2", 2_500, "2026-03-02T10:00:00.000Z")
        yield* balance("c1", "p1", 10_000)
        yield* balance("c2", "p2", 2_000)

        const firstDay = yield* PgLedger.check(DateTime.makeUnsafe("2026-03-01T23:59:59.999Z"))
        assert.deepStrictEqual(firstDay.trialBalance.lines, [
          { account: "cash:ach", currency: "USD", debit: 10_000, credit: 0 },
          { account: "payable:company:c1", currency: "USD", debit: 0, credit: 10_000 },
        ])
        // As of a past instant only the balancing is checked (the balances are today's).
        assert.deepStrictEqual(firstDay.discrepancies, [])

        const now = yield* PgLedger.check(undefined)
        assert.isTrue(now.trialBalance.balanced)
        assert.deepStrictEqual(now.discrepancies, [
          { _tag: "PayableDisagrees", companyId: "c2", currency: "USD", payable: 2_500, balance: 2_000 },
        ])
        assert.deepStrictEqual(
          (yield* PgLedger.totals(undefined)).filter((total) => total.account === "cash:ach"),
          [{ account: "cash:ach", currency: "USD", debits: 12_500, credits: 0 } satisfies TrialBalance.AccountTotal],
        )
      }).pipe(Effect.provide(PgDatabase.layerPglite())),
    120_000,
  )

  it.effect(
    "count failed Debit payouts, not failed Credit ones, and never count one twice",
    () =>
      Effect.gen(function* () {
        yield* Migrations.run
        yield* payout("po1", "Debit", "Failed")
        yield* payout("po2", "Credit", "Failed")
        yield* payout("po3", "Debit", "Paid")
        assert.strictEqual(yield* PgMetrics.debitPayoutsFailed(), 1)
        assert.strictEqual(yield* PgMetrics.debitPayoutsFailed(), 1)
        assert.strictEqual((yield* Metric.value(PgMetrics.debitPayoutsFailedTotal)).count, 1)
        yield* payout("po4", "Debit", "Failed")
        yield* PgMetrics.debitPayoutsFailed()
        assert.strictEqual((yield* Metric.value(PgMetrics.debitPayoutsFailedTotal)).count, 2)
      }).pipe(Effect.provide(PgDatabase.layerPglite())),
    120_000,
  )
})
