/**
 * The movement a provider names, on PGlite and PostgreSQL: by the reference
 * recorded on it (a transfer's debit, a Pending refund's credit, a Pending
 * payout) or by our id (a transfer, a Pending refund, a payout); and the
 * funding sources kept per bank account (the first kept wins).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../src/Migrations.ts"
import * as PgFundingSources from "../src/PgFundingSources.ts"
import * as PgMovementReferences from "../src/PgMovementReferences.ts"
import { databases } from "./readSideSupport.ts"

const partner = "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b"

const row = (collection: string, id: string, keys: object, data: object) =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql`
      INSERT INTO read_models (collection, id, partner_id, keys, sort_key, data, revision)
      VALUES (${collection}, ${id}, ${partner}::uuid, ${JSON.stringify(keys)}::jsonb, '2026-03-01T00:00:00.000Z',
              ${JSON.stringify(data)}::jsonb, 1)`,
  )

const reset = Effect.flatMap(SqlClient, (sql) =>
  sql`DELETE FROM read_models`.pipe(Effect.andThen(sql`DELETE FROM provider_funding_sources`)),
)

for (const database of databases) {
  describe(`movements named by a provider on ${database.name}`, () => {
    const layer = Migrations.layer.pipe(Layer.provideMerge(database.layer()))

    it.layer(layer, { timeout: 120_000 })((it) => {
      it.effect("by reference: a debit, a Pending refund's credit, a Pending payout; nothing else", () =>
        Effect.gen(function* () {
          yield* reset
          yield* row(
            "transfers",
            "t-1",
            { status: "Settled", refundPending: "true" },
            {
              providerReference: "dw-debit",
              refunds: [
                { refundId: "r-1", status: "Pending", providerReference: "dw-refund" },
                { refundId: "r-0", status: "Completed", providerReference: "dw-old-refund" },
              ],
            },
          )
          yield* row("payouts", "p-1", { status: "Pending" }, { providerReference: "dw-payout" })
          yield* row("payouts", "p-0", { status: "Paid" }, { providerReference: "dw-paid-payout" })
          assert.deepStrictEqual(yield* PgMovementReferences.movementOf("dw-debit"), {
            _tag: "Debit",
            transferId: "t-1",
          })
          assert.deepStrictEqual(yield* PgMovementReferences.movementOf("dw-refund"), {
            _tag: "Credit",
            transferId: "t-1",
            refundId: "r-1",
          })
          assert.deepStrictEqual(yield* PgMovementReferences.movementOf("dw-payout"), {
            _tag: "Payout",
            payoutId: "p-1",
          })
          assert.strictEqual(yield* PgMovementReferences.movementOf("dw-paid-payout"), undefined)
          assert.strictEqual(yield* PgMovementReferences.movementOf("unknown"), undefined)
          assert.deepStrictEqual(yield* PgMovementReferences.movementById("t-1"), { _tag: "Debit", transferId: "t-1" })
          assert.deepStrictEqual(yield* PgMovementReferences.movementById("r-1"), {
            _tag: "Credit",
            transferId: "t-1",
            refundId: "r-1",
          })
          assert.deepStrictEqual(yield* PgMovementReferences.movementById("p-0"), { _tag: "Payout", payoutId: "p-0" })
          assert.strictEqual(yield* PgMovementReferences.movementById("nothing"), undefined)
        }),
      )

      it.effect("funding sources kept once (the first wins); a company's KYB customer; a payer's linked account", () =>
        Effect.gen(function* () {
          yield* reset
          assert.strictEqual(yield* PgFundingSources.find("Dwolla", "account-1"), undefined)
          assert.strictEqual(yield* PgFundingSources.keep("Dwolla", "account-1", "fs-1"), "fs-1")
          assert.strictEqual(yield* PgFundingSources.keep("Dwolla", "account-1", "fs-2"), "fs-1")
          assert.strictEqual(yield* PgFundingSources.find("Dwolla", "account-1"), "fs-1")
          assert.strictEqual(yield* PgFundingSources.find("Other", "account-1"), undefined)
          yield* row("companies", "c-1", {}, { status: "Verified", kybSubmissionId: "customer-1" })
          yield* row("companies", "c-2", {}, { status: "Unverified" })
          assert.strictEqual(yield* PgFundingSources.kybSubmissionOf("c-1"), "customer-1")
          assert.strictEqual(yield* PgFundingSources.kybSubmissionOf("c-2"), undefined)
          assert.strictEqual(yield* PgFundingSources.kybSubmissionOf("c-3"), undefined)
          yield* row(
            "customers",
            "payer-1",
            {},
            {
              bankAccounts: [
                { bankAccountId: "a-1", institutionId: "ins_1", name: "sealed", mask: "0000", type: "checking" },
                { bankAccountId: "a-2", institutionId: "ins_2", name: "sealed", mask: "1111", type: "savings" },
              ],
            },
          )
          assert.deepStrictEqual(yield* PgFundingSources.linkedAccountOf("payer-1", "a-2"), {
            institutionId: "ins_2",
            mask: "1111",
            type: "savings",
          })
          assert.strictEqual(yield* PgFundingSources.linkedAccountOf("payer-1", "a-3"), undefined)
          assert.strictEqual(yield* PgFundingSources.linkedAccountOf("payer-2", "a-1"), undefined)
        }),
      )
    })
  })
}
