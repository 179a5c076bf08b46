/**
 * The money-movement workers' polls on PGlite and PostgreSQL (`PgDueWork`):
 * Pending transfers to originate (no reference yet) and to poll (a reference,
 * paged by a cursor), transfers settled within the return window, and
 * transfers whose refunds are to originate or to poll (their partial indexes:
 * migrations 16, 19 and 20).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../src/Migrations.ts"
import * as PgDueWork from "../src/PgDueWork.ts"
import { databases } from "./readSideSupport.ts"

const partnerId = "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b"

/** One transfer document: its id, initiation instant, index keys and data. */
const transfer = (id: string, sortKey: string, keys: Record<string, string>, data: Record<string, unknown>) =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql`
      INSERT INTO read_models (collection, id, partner_id, keys, sort_key, data, revision)
      VALUES ('transfers', ${id}, ${partnerId}::uuid, ${JSON.stringify(keys)}::jsonb, ${sortKey},
              ${JSON.stringify(data)}::jsonb, 1)`,
  )

const reset = Effect.flatMap(SqlClient, (sql) => sql`DELETE FROM read_models`)

const seed = Effect.gen(function* () {
  yield* reset
  yield* transfer("new-1", "2026-01-01T00:00:01.000Z", { status: "Pending" }, { status: "Pending" })
  yield* transfer("new-2", "2026-01-01T00:00:02.000Z", { status: "Pending" }, { status: "Pending" })
  for (const n of [1, 2, 3])
    yield* transfer(
      `moving-${n}`,
      `2026-01-02T00:00:0${n}.000Z`,
      { status: "Pending" },
      { status: "Pending", providerReference: `ref-${n}` },
    )
  yield* transfer(
    "settled-old",
    "2025-01-01T00:00:00.000Z",
    { status: "Settled" },
    { status: "Settled", settledAt: "2025-01-03T00:00:00.000Z", providerReference: "ref-old" },
  )
  yield* transfer(
    "settled-recent",
    "2026-01-01T00:00:00.000Z",
    { status: "Settled", refundPending: "true", refundToOriginate: "true" },
    {
      status: "Settled",
      settledAt: "2026-01-03T00:00:00.000Z",
      providerReference: "ref-recent",
      refunds: [{ refundId: "r-1", status: "Pending" }],
    },
  )
  yield* transfer(
    "refunding",
    "2026-01-01T00:00:05.000Z",
    { status: "Settled", refundPending: "true" },
    {
      status: "Settled",
      settledAt: "2026-01-04T00:00:00.000Z",
      providerReference: "ref-refunding",
      refunds: [{ refundId: "r-2", status: "Pending", providerReference: "credit-2" }],
    },
  )
  yield* transfer("failed", "2026-01-01T00:00:06.000Z", { status: "Failed" }, { status: "Failed" })
})

for (const database of databases) {
  describe(`the money-movement polls on ${database.name}`, () => {
    const layer = Migrations.layer.pipe(Layer.provideMerge(database.layer()))

    it.layer(layer, { timeout: 120_000 })((it) => {
      it.effect("the originator finds the Pending transfers without a reference, oldest first", () =>
        Effect.gen(function* () {
          yield* seed
          const rows = yield* PgDueWork.unoriginatedTransfers(100)
          assert.deepStrictEqual(
            rows.map((row) => [row.id, row.partner_id, row.provider_reference]),
            [
              ["new-1", partnerId, null],
              ["new-2", partnerId, null],
            ],
          )
        }),
      )

      it.effect("the poller pages through the originated Pending transfers with its cursor", () =>
        Effect.gen(function* () {
          yield* seed
          const first = yield* PgDueWork.originatedPendingTransfers(2)
          assert.deepStrictEqual(
            first.map((row) => [row.id, row.provider_reference]),
            [
              ["moving-1", "ref-1"],
              ["moving-2", "ref-2"],
            ],
          )
          const next = yield* PgDueWork.originatedPendingTransfers(2, first[1]!.sort_key)
          assert.deepStrictEqual(
            next.map((row) => row.id),
            ["moving-3"],
          )
        }),
      )

      it.effect("the poller finds the transfers settled within the return window, in settlement order", () =>
        Effect.gen(function* () {
          yield* seed
          const rows = yield* PgDueWork.settledMovements("2025-12-01T00:00:00.000Z", 100)
          assert.deepStrictEqual(
            rows.map((row) => [row.id, row.settled_at, row.provider_reference]),
            [
              ["settled-recent", "2026-01-03T00:00:00.000Z", "ref-recent"],
              ["refunding", "2026-01-04T00:00:00.000Z", "ref-refunding"],
            ],
          )
          const after = yield* PgDueWork.settledMovements("2025-12-01T00:00:00.000Z", 100, rows[0]!.settled_at)
          assert.deepStrictEqual(
            after.map((row) => row.id),
            ["refunding"],
          )
        }),
      )

      it.effect("refunds: the originator finds those not originated, the poller every transfer with one Pending", () =>
        Effect.gen(function* () {
          yield* seed
          const toOriginate = yield* PgDueWork.refundsToOriginate(100)
          assert.deepStrictEqual(
            toOriginate.map((row) => [row.id, JSON.parse(row.refunds)[0].refundId]),
            [["settled-recent", "r-1"]],
          )
          const pending = yield* PgDueWork.refundingTransfers(100)
          assert.deepStrictEqual(
            pending.map((row) => row.id),
            ["settled-recent", "refunding"],
          )
          const afterCursor = yield* PgDueWork.refundingTransfers(100, pending[0]!.sort_key)
          assert.deepStrictEqual(
            afterCursor.map((row) => row.id),
            ["refunding"],
          )
        }),
      )
    })
  })
}
