/**
 * On a PostgreSQL server the background workers have connections of their own
 * (`Database.layerBackground`): a request's statements never queue behind a
 * worker's on a shared connection. Seen from the server: the service's
 * sessions are named `partnerpay`, the workers' `partnerpay-workers`, and the
 * workers' statements (the webhook outbox claim, the sandbox KYB poll) run on
 * the workers' sessions only.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { PgDatabase } from "@partnerpay/adapters-pg"
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { freshDatabase, killAll, postgresAvailable, startService } from "./support.ts"

const cleanups: Array<() => Promise<void> | void> = []
afterAll(async () => {
  killAll()
  for (const cleanup of cleanups.reverse()) await cleanup()
})

interface Session {
  readonly application_name: string
  readonly query: string
}

/** The sessions connected to the database `name`, with their last statements, sampled `times` times. */
const sample = (url: string, name: string, times: number) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient
      const seen: Array<Session> = []
      for (let i = 0; i < times; i++) {
        seen.push(
          ...(yield* sql<Session>`
            SELECT application_name, query FROM pg_stat_activity
            WHERE datname = ${name} AND pid <> pg_backend_pid()`),
        )
        yield* Effect.sleep(100)
      }
      return seen
    }).pipe(Effect.provide(PgDatabase.layerPostgres(url, { maxConnections: 1 }))),
  )

describe.skipIf(!postgresAvailable)("the service on PostgreSQL", () => {
  it("runs its background workers on connections of their own", { timeout: 60_000 }, async () => {
    const db = await freshDatabase()
    cleanups.push(db.drop)
    const dataDir = mkdtempSync(join(tmpdir(), "partnerpay-worker-connections-"))
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }))
    const service = await startService({
      DATABASE_URL: db.url,
      PARTNERPAY_DATA_DIR: dataDir,
      PARTNERPAY_SANDBOX_CLIENT_ID: "worker-connections",
      PARTNERPAY_SANDBOX_CLIENT_SECRET: "worker-connections-secret-0123456789",
    })
    cleanups.push(() => service.stop().then(() => undefined))
    // A request, so that the service's own pool has a session too.
    const token = await fetch(`${service.url}/auth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ClientId: "worker-connections", ClientSecret: "worker-connections-secret-0123456789" }),
    })
    assert.strictEqual(token.status, 200)
    const name = new URL(db.url).pathname.slice(1)
    const sessions = await sample(db.url, name, 30)
    const names = new Set(sessions.map((session) => session.application_name))
    assert.isTrue(names.has("partnerpay"), `sessions seen: ${[...names].join(", ")}`)
    assert.isTrue(names.has("partnerpay-workers"), `sessions seen: ${[...names].join(", ")}`)
    const workerStatement = (query: string) => /FROM outbox o|data ->> 'status' = 'Unverified'/.test(query)
    const byWorkers = sessions.filter((session) => workerStatement(session.query))
    assert.isAbove(byWorkers.length, 0, "no worker statement was seen")
    assert.deepStrictEqual(
      [...new Set(byWorkers.map((session) => session.application_name))],
      ["partnerpay-workers"],
      "a worker statement ran on the service's own connections",
    )
  })
})
