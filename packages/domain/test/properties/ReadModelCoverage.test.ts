/**
 * Every read model the event pipeline keeps has a property in this folder
 * saying it agrees with its aggregates after random histories. A new
 * projection fails this test until its property is written and listed here.
 */
import { assert, describe, it } from "@effect/vitest"
import { all } from "../../src/composition/Projections.ts"

/** The collections whose agreement with their aggregates is stated here, and where. */
const stated: Readonly<Record<string, string>> = {
  payment_requests: "PaymentRequestsProjection.test.ts",
  payment_requests_autocollect: "PaymentRequestsProjection.test.ts",
  transfers: "TransfersProjection.test.ts",
  debit_auths: "DebitAuthsProjection.test.ts",
  card_payments: "CardPaymentsProjection.test.ts",
  charity_gifts_due: "CharityGiftsDueProjection.test.ts",
  sandbox_card_disputes: "SandboxDisputesProjection.test.ts",
  card_refund_retries: "CardRefundRetriesProjection.test.ts",
  companies: "CompaniesProjection.test.ts",
  customers: "CustomersProjection.test.ts",
  consents: "ConsentsProjection.test.ts",
  payment_plans: "PaymentPlansProjection.test.ts",
  payment_plans_due: "PaymentPlansProjection.test.ts",
  payment_notices: "PaymentNoticesProjection.test.ts",
  balances: "BalancesAndPayoutsProjection.test.ts",
  ledger_entries: "BalancesAndPayoutsProjection.test.ts",
  payouts: "BalancesAndPayoutsProjection.test.ts",
  ledger_postings: "DoubleEntry.test.ts",
}

describe("the read models", () => {
  it("each have a property saying they agree with their aggregates after any history", () => {
    // A collection may be kept by several projections (`ledger_postings`: the postings and the kept return fees).
    assert.deepStrictEqual(
      [...new Set(all.map((projection) => projection.collection))].sort(),
      Object.keys(stated).sort(),
    )
  })
})
