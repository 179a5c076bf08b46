/**
 * The sandbox's due-work polls on PGlite and PostgreSQL: the Unverified
 * companies and Pending transfers at or before the cutoff, oldest first,
 * across partners, and nothing decided or later; each poll reads its partial
 * index (migration 16), never every document of the read side.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../src/Migrations.ts"
import * as PgDueWork from "../src/PgDueWork.ts"
import { databases } from "./readSideSupport.ts"

const partners = ["0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b", "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f"]
const cutoff = "2026-06-01T00:00:00.000Z"

/** `count` documents of `collection`, the n-th registered n seconds after 2026-01-01, status by `statusOf`. */
const documents = (collection: "companies" | "transfers", prefix: string, count: number, statusOf: string) =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql`
      INSERT INTO read_models (collection, id, partner_id, keys, sort_key, data, revision)
      SELECT ${collection}::text, ${prefix}::text || g,
             (CASE WHEN g % 2 = 0 THEN ${partners[0]!}::text ELSE ${partners[1]!}::text END)::uuid,
             jsonb_build_object('status', ${statusOf}::text),
             to_char(timestamp '2026-01-01' + g * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             jsonb_build_object('name', 'Company ' || g, 'status', ${statusOf}::text,
                                'amount', jsonb_build_object('minorUnits', 1000 + g, 'currency', 'USD')),
             g
      FROM generate_series(1, ${count}::int) AS g`,
  )

interface PlanNode {
  readonly "Node Type": string
  readonly "Index Name"?: string
  readonly Plans?: ReadonlyArray<PlanNode>
}
const nodesOf = (node: PlanNode): ReadonlyArray<PlanNode> => [node, ...(node.Plans ?? []).flatMap(nodesOf)]

/** The nodes of a statement's plan (EXPLAIN, FORMAT JSON). */
const planOf = (statement: (sql: SqlClient) => { compile(): readonly [string, ReadonlyArray<unknown>] }) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient
    const [text, params] = statement(sql).compile()
    const rows = yield* sql.unsafe<{ "QUERY PLAN": unknown }>(`EXPLAIN (FORMAT JSON) ${text}`, params)
    const raw = rows[0]?.["QUERY PLAN"]
    const plan = (typeof raw === "string" ? JSON.parse(raw) : raw) as ReadonlyArray<{ readonly Plan: PlanNode }>
    return nodesOf(plan[0]!.Plan)
  })

const late = (collection: "companies" | "transfers", id: string, status: string) =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql`
      INSERT INTO read_models (collection, id, partner_id, keys, sort_key, data, revision)
      VALUES (${collection}::text, ${id}::text, ${partners[0]!}::uuid, jsonb_build_object('status', ${status}::text),
              '2026-07-01T00:00:00.000Z',
              jsonb_build_object('name', 'Late', 'status', ${status}::text,
                                 'amount', jsonb_build_object('minorUnits', 1, 'currency', 'USD')),
              1)`,
  )

const reset = Effect.flatMap(SqlClient, (sql) => sql`DELETE FROM read_models`)
const analyze = Effect.flatMap(SqlClient, (sql) => sql`ANALYZE read_models`)

for (const database of databases) {
  describe(`the due-work polls on ${database.name}`, () => {
    const layer = Migrations.layer.pipe(Layer.provideMerge(database.layer()))

    it.layer(layer, { timeout: 120_000 })((it) => {
      it.effect("find the Unverified companies at or before the cutoff, oldest first, of every partner", () =>
        Effect.gen(function* () {
          yield* reset
          yield* documents("companies", "due-", 3, "Unverified")
          yield* documents("companies", "done-", 4, "Verified")
          yield* late("companies", "late-1", "Unverified")
          const due = yield* PgDueWork.unverifiedCompanies(cutoff, 100)
          assert.deepStrictEqual(
            due.map((c) => c.id),
            ["due-1", "due-2", "due-3"],
          )
          assert.deepStrictEqual(
            due.map((c) => c.partner_id),
            [partners[1], partners[0], partners[1]],
          )
          assert.strictEqual(due[0]?.name, "Company 1")
          const first = yield* PgDueWork.unverifiedCompanies(cutoff, 2)
          assert.deepStrictEqual(
            first.map((c) => c.id),
            ["due-1", "due-2"],
          )
        }),
      )

      it.effect("find the Pending transfers at or before the cutoff, oldest first, with their amounts", () =>
        Effect.gen(function* () {
          yield* reset
          yield* documents("transfers", "due-", 2, "Pending")
          yield* documents("transfers", "done-", 3, "Settled")
          yield* late("transfers", "late-1", "Pending")
          const due = yield* PgDueWork.pendingTransfers(cutoff, 100)
          assert.deepStrictEqual(
            due.map((t) => [t.id, String(t.minor_units), t.currency]),
            [
              ["due-1", "1001", "USD"],
              ["due-2", "1002", "USD"],
            ],
          )
        }),
      )

      it.effect("a poll of companies reads their partial index, not every decided document", () =>
        Effect.gen(function* () {
          yield* reset
          yield* documents("companies", "done-", 5000, "Verified")
          yield* documents("transfers", "done-", 5000, "Settled")
          yield* documents("companies", "due-", 3, "Unverified")
          yield* analyze
          const nodes = yield* planOf((sql) => PgDueWork.unverifiedCompaniesStatement(sql, cutoff, 100))
          assert.isTrue(nodes.some((node) => node["Index Name"] === "read_models_unverified_companies"))
          assert.isFalse(nodes.some((node) => node["Node Type"] === "Seq Scan"))
        }),
      )

      it.effect("a poll of transfers reads their partial index, not every settled document", () =>
        Effect.gen(function* () {
          yield* reset
          yield* documents("transfers", "done-", 5000, "Settled")
          yield* documents("companies", "done-", 5000, "Verified")
          yield* documents("transfers", "due-", 3, "Pending")
          yield* analyze
          const nodes = yield* planOf((sql) => PgDueWork.pendingTransfersStatement(sql, cutoff, 100))
          assert.isTrue(nodes.some((node) => node["Index Name"] === "read_models_pending_transfers"))
          assert.isFalse(nodes.some((node) => node["Node Type"] === "Seq Scan"))
        }),
      )
    })
  })
}
