/**
 * `partnerpay webhooks redeliver --failed --since <iso>`, run as operators run
 * it (`node src/cli.ts` in a child process) on a fresh PostgreSQL database
 * (skipped loudly without a server, failing with CI=true; see support.ts):
 * every failed delivery recorded since the instant is queued again, with
 * progress lines; older ones and other statuses are left alone.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { PgDatabase, PgOutbox, PgPartnerCredentials } from "@partnerpay/adapters-pg"
import { Outbox } from "@partnerpay/domain"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Domain from "../src/Domain.ts"
import { cli, freshDatabase, postgresAvailable } from "./support.ts"

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

describe.skipIf(!postgresAvailable)("partnerpay webhooks redeliver --failed --since", () => {
  it("queues every failed delivery recorded since the instant, printing progress", { timeout: 90_000 }, async () => {
    const db = await freshDatabase()
    cleanups.push(db.drop)
    const run = <A, E>(effect: Effect.Effect<A, E, Domain.DomainPorts | SqlClient>) =>
      Effect.runPromise(
        effect.pipe(
          Effect.provide(
            Domain.layer.pipe(Layer.provideMerge(PgDatabase.layerPostgres(db.url, { maxConnections: 2 }))),
          ),
        ) as Effect.Effect<A, E>,
      )
    const ids = Array.from({ length: 5 }, () => crypto.randomUUID())
    await run(
      Effect.gen(function* () {
        const partners = yield* PgPartnerCredentials.Partners
        const { partnerId } = yield* partners.create({ name: "P" })
        yield* (yield* Outbox.Outbox).record(
          ids.map((id, k) => ({ id, partnerId, eventType: "WEBHOOK_TEST", data: { K: k }, position: k + 1 })),
        )
        const dispatch = yield* PgOutbox.OutboxDispatch
        // 0..2 failed recently, 3 failed long ago, 4 still pending.
        for (const id of ids.slice(0, 4))
          yield* dispatch.markFailedAttempt(id, "the endpoint answered HTTP 500", "give up", 500)
        const sql = yield* SqlClient
        yield* sql`UPDATE outbox SET created_at = '2020-01-01T00:00:00Z' WHERE id = ${ids[3]!}`
      }),
    )
    const env = { DATABASE_URL: db.url }

    const bad = await cli(["webhooks", "redeliver", "--failed", "--since", "yesterday"], env)
    assert.strictEqual(bad.code, 1)
    assert.include(bad.stderr, "--since must be an ISO 8601 instant")
    const neither = await cli(["webhooks", "redeliver"], env)
    assert.strictEqual(neither.code, 1)
    assert.include(neither.stderr, "give a delivery id, or --failed --since")

    const done = await cli(["webhooks", "redeliver", "--failed", "--since", "2025-01-01T00:00:00Z"], env)
    assert.strictEqual(done.code, 0, done.stderr)
    assert.deepStrictEqual(done.stdout.trim().split("\n"), [
      "queued 3/3",
      "3 failed deliveries since 2025-01-01T00:00:00.000Z queued again (the service delivers them).",
    ])
    const statuses = await run(
      Effect.gen(function* () {
        const rows = yield* (yield* PgOutbox.OutboxDispatch).list({ limit: 10 })
        return ids.map((id) => rows.find((row) => row.id === id)!.status)
      }),
    )
    assert.deepStrictEqual(statuses, ["pending", "pending", "pending", "failed", "pending"])

    const again = await cli(["webhooks", "redeliver", "--failed", "--since", "2025-01-01T00:00:00Z", "--json"], env)
    assert.deepStrictEqual(JSON.parse(again.stdout), { since: "2025-01-01T00:00:00.000Z", queued: 0, total: 0 })
  })
})
