/**
 * The outbox's batch claim (PgOutbox.claim) on PGlite and PostgreSQL (fresh
 * schema each): several rows of one partner per claim, in (transaction,
 * position) order; a retrying row holds back its partner's later rows and no
 * one else's; released rows keep their attempt count; rows of a transaction
 * older than a still-running one wait for it (PostgreSQL, two connections);
 * the claim walks the `outbox_claim` index and reads as many rows with a
 * small backlog as with a large one (EXPLAIN); a give-up fails a batch of
 * open rows at once.
 */
import { assert, describe, it } from "@effect/vitest"
import { Outbox } from "@partnerpay/domain"
import { DateTime, Deferred, Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../src/Migrations.ts"
import * as PgOutbox from "../src/PgOutbox.ts"
import { databases } from "./readSideSupport.ts"

const notification = (partnerId: string, position: number, id = crypto.randomUUID()): Outbox.Webhook => ({
  id,
  partnerId,
  eventType: "TEST_EVENT",
  data: { Position: position },
  position,
})

const ids = (entries: ReadonlyArray<{ readonly id: string }>) => entries.map((e) => e.id)

/**
 * Claims until something is claimed (at most ~5 s): the server is shared, and
 * another session's transaction running at that instant holds the horizon
 * back for a moment.
 */
const claimSome = (options: PgOutbox.ClaimOptions) =>
  Effect.gen(function* () {
    const dispatch = yield* PgOutbox.OutboxDispatch
    for (let i = 0; ; i++) {
      const claimed = yield* dispatch.claim(options)
      if (claimed.length > 0 || i >= 100) return claimed
      yield* Effect.sleep(50)
    }
  })

/** Inserts `count` pending rows of one partner in one statement (a backlog). */
const backlog = (partnerId: string, count: number, from: number) =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql`
      INSERT INTO outbox (id, partner_id, event_type, data, position)
      SELECT gen_random_uuid()::text, ${partnerId}, 'TEST_EVENT', '{}'::jsonb, ${from} + g
      FROM generate_series(1, ${count}) AS g`,
  )

interface PlanNode {
  readonly "Node Type": string
  readonly "Relation Name"?: string
  readonly "Index Name"?: string
  readonly "Actual Rows"?: number
  readonly "Actual Loops"?: number
  readonly "Rows Removed by Filter"?: number
  readonly Plans?: ReadonlyArray<PlanNode>
}

const nodesOf = (node: PlanNode): ReadonlyArray<PlanNode> => [node, ...(node.Plans ?? []).flatMap(nodesOf)]

/** The plan of the claim (EXPLAIN, FORMAT JSON); with `analyze` it runs, inside a transaction rolled back. */
const claimPlan = (options: PgOutbox.ClaimOptions, analyze: boolean) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient
    const [text, params] = PgOutbox.claimStatement(sql, options).compile()
    const explain = sql.unsafe<{ "QUERY PLAN": unknown }>(
      `EXPLAIN (FORMAT JSON${analyze ? ", ANALYZE" : ""}) ${text}`,
      params,
    )
    const rows = analyze
      ? yield* sql
          .withTransaction(Effect.flatMap(explain, (result) => Effect.fail({ rollback: result })))
          .pipe(Effect.catch((e) => ("rollback" in e ? Effect.succeed(e.rollback) : Effect.fail(e))))
      : yield* explain
    const raw = rows[0]?.["QUERY PLAN"]
    const plan = (typeof raw === "string" ? JSON.parse(raw) : raw) as ReadonlyArray<{ readonly Plan: PlanNode }>
    return nodesOf(plan[0]!.Plan)
  })

for (const database of databases) {
  describe(`the outbox claim on ${database.name}`, () => {
    const layer = PgOutbox.layer.pipe(Layer.provideMerge(Migrations.layer), Layer.provideMerge(database.layer()))
    const lease = { leaseMs: 60_000 }

    // The real clock (no test services): claims wait between polls and leases expire.
    it.layer(layer, { timeout: 120_000, excludeTestServices: true })((it) => {
      it.effect(
        "lists the newest first, in commit order: a later transaction's row before an earlier one's whatever its position",
        () =>
          Effect.gen(function* () {
            const outbox = yield* Outbox.Outbox
            const sql = yield* SqlClient
            yield* sql`DELETE FROM outbox`
            const p = crypto.randomUUID()
            const first = notification(p, 50)
            const [second, third] = [notification(p, 10), notification(p, 11)]
            // A notification no event caused (a test webhook) has position 0.
            const last = notification(p, 0)
            yield* outbox.record([first])
            yield* outbox.record([second, third])
            yield* outbox.record([last])
            const dispatch = yield* PgOutbox.OutboxDispatch
            assert.deepStrictEqual(ids(yield* dispatch.list({ limit: 10 })), [last.id, third.id, second.id, first.id])
            assert.deepStrictEqual(ids(yield* dispatch.list({ status: "pending", limit: 2 })), [last.id, third.id])
          }),
        60_000,
      )

      it.effect(
        "claims several rows of one partner per call, in (transaction, position) order",
        () =>
          Effect.gen(function* () {
            const outbox = yield* Outbox.Outbox
            const sql = yield* SqlClient
            yield* sql`DELETE FROM outbox`
            const p = crypto.randomUUID()
            // Recorded by three transactions: the first one's row comes first whatever its position.
            const late = notification(p, 50)
            const [p1, p2] = [notification(p, 10), notification(p, 11)]
            const p3 = notification(p, 5)
            yield* outbox.record([late])
            yield* outbox.record([p2, p1])
            yield* outbox.record([p3])
            const claimed = yield* claimSome({ workerId: "w1", limit: 100, perPartner: 10, ...lease })
            assert.deepStrictEqual(ids(claimed), [late.id, p1.id, p2.id, p3.id])
            assert.isTrue(claimed.every((e) => e.status === "delivering" && e.attempts === 1 && e.claimedBy === "w1"))
            // Bounded per partner and in all: the next claim starts after the claimed run.
            yield* sql`DELETE FROM outbox`
            const rows = Array.from({ length: 5 }, (_, k) => notification(p, k))
            yield* outbox.record(rows)
            const two = yield* claimSome({ workerId: "w1", limit: 100, perPartner: 2, ...lease })
            assert.deepStrictEqual(ids(two), ids(rows.slice(0, 2)))
            // The partner's head is leased: nothing more of this partner until it is delivered.
            const dispatch = yield* PgOutbox.OutboxDispatch
            assert.deepStrictEqual(yield* dispatch.claim({ workerId: "w2", limit: 100, perPartner: 10, ...lease }), [])
            yield* dispatch.markDelivered(ids(two))
            const rest = yield* claimSome({ workerId: "w2", limit: 2, perPartner: 10, ...lease })
            assert.deepStrictEqual(ids(rest), ids(rows.slice(2, 4)))
            assert.deepStrictEqual(
              (yield* dispatch.list({ status: "delivered", limit: 10 })).map((e) => e.id).sort(),
              ids(two).sort(),
            )
          }),
        60_000,
      )

      it.effect(
        "a claim can mark the previous batch delivered and take the partner's next run in one statement",
        () =>
          Effect.gen(function* () {
            const outbox = yield* Outbox.Outbox
            const dispatch = yield* PgOutbox.OutboxDispatch
            const sql = yield* SqlClient
            yield* sql`DELETE FROM outbox`
            const p = crypto.randomUUID()
            const rows = Array.from({ length: 6 }, (_, k) => notification(p, k))
            yield* outbox.record(rows)
            const first = yield* claimSome({ workerId: "w", limit: 100, perPartner: 3, ...lease })
            assert.deepStrictEqual(ids(first), ids(rows.slice(0, 3)))
            // Reporting only part of the batch: the unreported row is still leased and holds the rest back.
            const partial = yield* dispatch.claim({
              workerId: "w",
              limit: 100,
              perPartner: 3,
              delivered: ids(first.slice(0, 2)),
              ...lease,
            })
            assert.deepStrictEqual(ids(partial), [])
            const next = yield* claimSome({
              workerId: "w",
              limit: 100,
              perPartner: 3,
              delivered: ids(first.slice(2)),
              ...lease,
            })
            assert.deepStrictEqual(ids(next), ids(rows.slice(3)))
            // The next row fails (retry later) and the last is released: reporting the delivered one claims nothing.
            yield* dispatch.markFailedAttempt(next[1]!.id, "HTTP 500", DateTime.makeUnsafe(Date.now() + 60_000))
            yield* dispatch.release([next[2]!.id])
            assert.deepStrictEqual(
              ids(
                yield* dispatch.claim({ workerId: "w", limit: 100, perPartner: 3, delivered: [next[0]!.id], ...lease }),
              ),
              [],
            )
            assert.deepStrictEqual(
              (yield* dispatch.list({ status: "delivered", limit: 10 })).map((e) => e.id),
              [next[0]!.id, ...ids(first).reverse()],
            )
          }),
        60_000,
      )

      it.effect(
        "a retrying row holds back its partner's later rows, not other partners'; released rows keep their attempt",
        () =>
          Effect.gen(function* () {
            const outbox = yield* Outbox.Outbox
            const dispatch = yield* PgOutbox.OutboxDispatch
            const sql = yield* SqlClient
            yield* sql`DELETE FROM outbox`
            const p = crypto.randomUUID()
            const q = crypto.randomUUID()
            const [p1, p2, p3] = [notification(p, 1), notification(p, 2), notification(p, 3)]
            const [q1, q2] = [notification(q, 4), notification(q, 5)]
            yield* outbox.record([p1, p2, p3, q1, q2])
            const first = yield* claimSome({ workerId: "w1", limit: 100, perPartner: 10, ...lease })
            assert.deepStrictEqual(ids(first), [p1.id, p2.id, p3.id, q1.id, q2.id])
            // p1 fails (retry in a minute): the worker releases p2 and p3 unattempted; q's rows are delivered.
            yield* dispatch.markFailedAttempt(p1.id, "HTTP 500", DateTime.makeUnsafe(Date.now() + 60_000))
            yield* dispatch.release([p2.id, p3.id])
            yield* dispatch.markDelivered([q1.id, q2.id])
            const q3 = notification(q, 6)
            yield* outbox.record([q3])
            const second = yield* claimSome({ workerId: "w2", limit: 100, perPartner: 10, ...lease })
            assert.deepStrictEqual(ids(second), [q3.id])
            // p1 becomes due again: p's queue resumes in order, released rows at their first attempt.
            yield* sql`UPDATE outbox SET next_attempt_at = now() WHERE id = ${p1.id}`
            const third = yield* claimSome({ workerId: "w3", limit: 100, perPartner: 10, ...lease })
            assert.deepStrictEqual(
              third.map((e) => [e.id, e.attempts]),
              [
                [p1.id, 2],
                [p2.id, 1],
                [p3.id, 1],
              ],
            )
          }),
        60_000,
      )

      it.effect(
        "giving up fails every listed open row and leaves delivered rows as they are",
        () =>
          Effect.gen(function* () {
            const outbox = yield* Outbox.Outbox
            const dispatch = yield* PgOutbox.OutboxDispatch
            const sql = yield* SqlClient
            yield* sql`DELETE FROM outbox`
            const p = crypto.randomUUID()
            const [p1, p2, p3] = [notification(p, 1), notification(p, 2), notification(p, 3)]
            yield* outbox.record([p1, p2, p3])
            const claimed = yield* claimSome({ workerId: "w1", limit: 100, perPartner: 1, ...lease })
            assert.deepStrictEqual(ids(claimed), [p1.id])
            yield* dispatch.markDelivered([p1.id])
            // p1 delivered, p2 pending, p3 pending: a give-up of all three fails the two still open.
            yield* dispatch.giveUp([p1.id, p2.id, p3.id], "the partner has no webhook URL")
            const failed = yield* dispatch.list({ status: "failed", limit: 10 })
            assert.deepStrictEqual(ids(failed), [p3.id, p2.id])
            assert.isTrue(failed.every((e) => e.lastError === "the partner has no webhook URL"))
            assert.deepStrictEqual(ids(yield* dispatch.list({ status: "delivered", limit: 10 })), [p1.id])
            assert.deepStrictEqual(yield* dispatch.claim({ workerId: "w2", limit: 100, perPartner: 10, ...lease }), [])
          }),
        60_000,
      )

      it.effect(
        "the claim walks the outbox_claim index and reads as many rows with a backlog of 1,000 or of 4,000",
        () =>
          Effect.gen(function* () {
            const sql = yield* SqlClient
            yield* sql`DELETE FROM outbox`
            const others = Array.from({ length: 3 }, () => crypto.randomUUID())
            for (const other of others) yield* backlog(other, 3, 0)
            const p = crypto.randomUUID()
            const options = { workerId: "explain", limit: 50, perPartner: 20, ...lease }
            // Rows the scans of outbox produced or filtered out, over all their loops.
            const rowsRead = (nodes: ReadonlyArray<PlanNode>) =>
              nodes
                .filter((n) => n["Relation Name"] === "outbox")
                .reduce(
                  (sum, n) =>
                    sum + ((n["Actual Rows"] ?? 0) + (n["Rows Removed by Filter"] ?? 0)) * (n["Actual Loops"] ?? 1),
                  0,
                )

            yield* backlog(p, 1_000, 0)
            yield* sql`ANALYZE outbox`
            const small = rowsRead(yield* claimPlan(options, true))
            yield* backlog(p, 3_000, 1_000)
            yield* sql`ANALYZE outbox`
            const plan = yield* claimPlan(options, false)
            const scans = plan.filter((n) => n["Relation Name"] === "outbox")
            assert.isAbove(scans.length, 0)
            // Index scans only (the run's rows are then fetched by primary key, possibly as a bitmap scan).
            assert.deepStrictEqual(
              scans.filter((n) => n["Node Type"] === "Seq Scan"),
              [],
            )
            assert.isTrue(scans.some((n) => n["Index Name"] === "outbox_claim"))
            const large = rowsRead(yield* claimPlan(options, true))
            // Also when the claim marks the previous batch delivered.
            const previous = yield* sql<{ id: string }>`
              SELECT id FROM outbox WHERE partner_id = ${p} ORDER BY position LIMIT 20`
            const marking = yield* claimPlan({ ...options, delivered: previous.map((r) => r.id) }, false)
            assert.deepStrictEqual(
              marking.filter((n) => n["Relation Name"] === "outbox" && n["Node Type"] === "Seq Scan"),
              [],
            )
            // The same rows are visited (partners, heads, runs of 20), whatever the backlog behind them.
            assert.strictEqual(large, small)
          }),
        60_000,
      )

      if (database.name === "PostgreSQL") {
        it.effect(
          "a row whose transaction is older than a running one waits until that transaction ends",
          () =>
            Effect.gen(function* () {
              const outbox = yield* Outbox.Outbox
              const dispatch = yield* PgOutbox.OutboxDispatch
              const sql = yield* SqlClient
              yield* sql`DELETE FROM outbox`
              const p = crypto.randomUUID()
              const q = crypto.randomUUID()
              const early = notification(p, 1)
              const later = notification(p, 2)
              const other = notification(q, 3)
              const recorded = yield* Deferred.make<void>()
              const commit = yield* Deferred.make<void>()
              // Connection 1: records `early` (its transaction id is assigned), then stays open.
              const open = yield* Effect.forkChild(
                sql.withTransaction(
                  Effect.gen(function* () {
                    yield* outbox.record([early])
                    yield* Deferred.succeed(recorded, undefined)
                    yield* Deferred.await(commit)
                  }),
                ),
              )
              yield* Deferred.await(recorded)
              // Connection 2: a later transaction of the same partner, and one of another partner, commit.
              yield* outbox.record([later])
              yield* outbox.record([other])
              for (let i = 0; i < 3; i++) {
                assert.deepStrictEqual(
                  yield* dispatch.claim({ workerId: "w", limit: 100, perPartner: 10, ...lease }),
                  [],
                )
              }
              yield* Deferred.succeed(commit, undefined)
              yield* Fiber.join(open)
              const claimed: Array<string> = []
              while (claimed.length < 3) {
                const batch = yield* claimSome({ workerId: "w", limit: 100, perPartner: 10, ...lease })
                assert.isAbove(batch.length, 0)
                claimed.push(...ids(batch))
                yield* dispatch.markDelivered(ids(batch))
              }
              assert.deepStrictEqual(
                claimed.filter((id) => id !== other.id),
                [early.id, later.id],
              )
            }),
          60_000,
        )
      }
    })
  })
}
