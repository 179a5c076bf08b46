/**
 * The payout workers' due-work polls on PGlite and PostgreSQL: balances with
 * money at or above the minimum and not paid out since the cutoff (oldest
 * change first; below the minimum, negative or recently paid out ones are
 * left), and the Pending payouts, oldest first, saying which were originated.
 * Each reads its partial index (migration 23).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../src/Migrations.ts"
import * as PgDueWork from "../src/PgDueWork.ts"
import { databases } from "./readSideSupport.ts"

const partner = "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b"

const balance = (id: string, sortKey: string, available: ReadonlyArray<number>, lastPayoutAt?: string) =>
  Effect.flatMap(SqlClient, (sql) => {
    const data = {
      companyId: id,
      partnerId: partner,
      available: available.map((minorUnits, index) => ({ minorUnits, currency: index === 0 ? "USD" : "EUR" })),
      ...(lastPayoutAt === undefined ? {} : { lastPayoutAt }),
      updatedAt: sortKey,
    }
    const payable = available.some((minorUnits) => minorUnits > 0) ? "true" : "false"
    return sql`
      INSERT INTO read_models (collection, id, partner_id, keys, sort_key, data, revision)
      VALUES ('balances', ${id}, ${partner}::uuid, jsonb_build_object('payable', ${payable}::text), ${sortKey},
              ${JSON.stringify(data)}::jsonb, 1)`
  })

const payout = (id: string, sortKey: string, status: string, providerReference?: string) =>
  Effect.flatMap(SqlClient, (sql) => {
    const data = { payoutId: id, status, ...(providerReference === undefined ? {} : { providerReference }) }
    return sql`
      INSERT INTO read_models (collection, id, partner_id, keys, sort_key, data, revision)
      VALUES ('payouts', ${id}, ${partner}::uuid, jsonb_build_object('status', ${status}::text), ${sortKey},
              ${JSON.stringify(data)}::jsonb, 1)`
  })

const reset = Effect.flatMap(SqlClient, (sql) => sql`DELETE FROM read_models`)

for (const database of databases) {
  describe(`the payout polls on ${database.name}`, () => {
    const layer = Migrations.layer.pipe(Layer.provideMerge(database.layer()))

    it.layer(layer, { timeout: 120_000 })((it) => {
      it.effect("find balances at or above the minimum not paid out since the cutoff, oldest change first", () =>
        Effect.gen(function* () {
          yield* reset
          yield* balance("b-2", "2026-03-02T00:00:00.000Z", [5_000])
          yield* balance("b-1", "2026-03-01T00:00:00.000Z", [0, 300])
          yield* balance("small", "2026-03-01T00:00:00.000Z", [99])
          yield* balance("negative", "2026-03-01T00:00:00.000Z", [-500])
          yield* balance("recent", "2026-03-01T00:00:00.000Z", [5_000], "2026-03-05T00:00:00.000Z")
          yield* balance("earlier", "2026-03-03T00:00:00.000Z", [5_000], "2026-03-01T00:00:00.000Z")
          const due = yield* PgDueWork.payableBalances(100, "2026-03-04T00:00:00.000Z", 100)
          assert.deepStrictEqual(
            due.map((row) => row.id),
            ["b-1", "b-2", "earlier"],
          )
          assert.strictEqual(due[0]?.partner_id, partner)
          assert.deepStrictEqual(
            (yield* PgDueWork.payableBalances(100, "2026-03-04T00:00:00.000Z", 1)).map((row) => row.id),
            ["b-1"],
          )
        }),
      )

      it.effect("find the Pending payouts oldest first, saying which were originated", () =>
        Effect.gen(function* () {
          yield* reset
          yield* payout("p-2", "2026-03-02T00:00:00.000Z", "Pending", "po_2")
          yield* payout("p-1", "2026-03-01T00:00:00.000Z", "Pending")
          yield* payout("paid", "2026-03-01T00:00:00.000Z", "Paid", "po_0")
          const due = yield* PgDueWork.pendingPayouts(100)
          assert.deepStrictEqual(
            due.map((row) => [row.id, row.originated]),
            [
              ["p-1", false],
              ["p-2", true],
            ],
          )
        }),
      )
    })
  })
}
