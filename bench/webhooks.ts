/**
 * Webhook drain benchmark (self-contained; bench/run.ts may run it as a child):
 *
 *   node bench/webhooks.ts ['{"notifications":10000,"partners":1,"rounds":3}']
 *
 * On a fresh database of the PostgreSQL server at DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/test; created here, migrated, dropped at
 * the end), with a local receiver on 127.0.0.1 answering 200:
 *
 *   dispatcher    `notifications` pending outbox rows (spread over `partners`
 *                 partners, each with the receiver as its webhook and a signing
 *                 secret) are drained by the real WebhookDispatcher (default
 *                 options, polling every 50 ms when idle, logs at Warn): the
 *                 time from its start until the receiver has every
 *                 notification and every row is marked delivered;
 *   hand-written  the same bodies, signed the same way (HMAC-SHA256, the same
 *                 headers), POSTed by a plain loop over node:http with a
 *                 keep-alive agent, one partner's notifications one at a time
 *                 and partners concurrently, like the dispatcher; no database.
 *
 * The two alternate (`rounds` each, at least 2). Prints one JSON line:
 * `{ dispatcherPerSecond, handWrittenPerSecond, ratio, ... }` (medians; ratio
 * = dispatcher / hand-written). Bounded: at most 100,000 notifications, every
 * round has a 120 s limit, the whole run 10 minutes; only 127.0.0.1; the
 * database is dropped on exit, error, SIGINT and SIGTERM.
 */
import { spawnSync } from "node:child_process"
import { createHmac } from "node:crypto"
import { Agent, createServer, request } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Layer, Redacted, References } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../packages/adapters-pg/src/Migrations.ts"
import * as PgDatabase from "../packages/adapters-pg/src/PgDatabase.ts"
import * as PgOutbox from "../packages/adapters-pg/src/PgOutbox.ts"
import * as PgPartnerCredentials from "../packages/adapters-pg/src/PgPartnerCredentials.ts"
import * as PgPersonalDataVault from "../packages/adapters-pg/src/PgPersonalDataVault.ts"
import * as WebhookDispatcher from "../packages/app/src/workers/WebhookDispatcher.ts"

interface Spec {
  readonly notifications: number
  readonly partners: number
  readonly rounds: number
}

const given = JSON.parse(process.argv[2] ?? "{}") as Partial<Spec>
const spec: Spec = {
  notifications: Math.min(100_000, Math.max(1, Math.floor(given.notifications ?? 10_000))),
  partners: Math.min(100, Math.max(1, Math.floor(given.partners ?? 1))),
  rounds: Math.min(10, Math.max(2, Math.floor(given.rounds ?? 3))),
}
const roundLimitMillis = 120_000
const overall = setTimeout(() => {
  console.error("bench/webhooks.ts: the run took more than 10 minutes, giving up")
  dropNow(1)
}, 600_000)
overall.unref()

const adminUrl = PgDatabase.urlFromEnv()
const host = new URL(adminUrl).hostname
if (host !== "127.0.0.1" && host !== "localhost") throw new Error(`DATABASE_URL host ${host} is not local`)
const databaseName = `bench_webhooks_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6).toString(36)}`
const databaseUrl = (() => {
  const url = new URL(adminUrl)
  url.pathname = `/${databaseName}`
  return url.toString()
})()
const signingSecret = "bench-webhook-signing-secret"

// Killed (SIGINT/SIGTERM) or its output closed: drop the database synchronously before leaving.
const dropNow = (code: number) => {
  spawnSync("psql", [adminUrl, "-qAtc", `DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`], {
    timeout: 15_000,
    stdio: "ignore",
  })
  process.exit(code)
}
process.once("SIGINT", () => dropNow(130))
process.once("SIGTERM", () => dropNow(143))
process.stdout.on("error", () => dropNow(1))

const admin = (statement: string) =>
  Effect.flatMap(SqlClient, (sql) => sql.unsafe(statement)).pipe(
    Effect.provide(PgDatabase.layerPostgres(adminUrl, { maxConnections: 1 })),
  )

// ---------------------------------------------------------------------------------------------
// The receiver: answers 200 to every POST after reading its body; counts them.

const receiver = await new Promise<{ url: string; count: () => number; close: () => void }>((resolve) => {
  let received = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      received++
      res.writeHead(200, { "content-length": "0" }).end()
    })
  })
  server.keepAliveTimeout = 30_000
  server.listen(0, "127.0.0.1", () =>
    resolve({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
      count: () => received,
      close: () => {
        server.close()
        server.closeAllConnections()
      },
    }),
  )
})

const waitFor = async (done: () => boolean | Promise<boolean>, what: string, pollMillis: number) => {
  const deadline = Date.now() + roundLimitMillis
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}: not done within ${roundLimitMillis} ms`)
    await new Promise((resolve) => setTimeout(resolve, pollMillis))
  }
}

// ---------------------------------------------------------------------------------------------
// The hand-written loop: same bodies and headers, node:http with a keep-alive agent.

interface Prepared {
  readonly id: string
  readonly body: string
}

const handWritten = async (byPartner: ReadonlyArray<ReadonlyArray<Prepared>>): Promise<number> => {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 })
  const target = new URL(receiver.url)
  const post = (notification: Prepared) =>
    new Promise<number>((resolve, reject) => {
      const payload = Buffer.from(notification.body, "utf8")
      const req = request(
        target,
        {
          method: "POST",
          agent,
          headers: {
            "content-type": "application/json",
            "user-agent": "partnerpay-webhooks/1",
            "x-partnerpay-event-id": notification.id,
            "x-partnerpay-delivery-attempt": "1",
            "x-hmac-signature": `sha256=${createHmac("sha256", signingSecret).update(payload).digest("hex")}`,
            "content-length": String(payload.length),
          },
          timeout: 10_000,
        },
        (res) => {
          res.resume()
          res.on("end", () => resolve(res.statusCode ?? 0))
        },
      )
      req.on("error", reject)
      req.on("timeout", () => req.destroy(new Error("no answer within 10 s")))
      req.end(payload)
    })
  const started = performance.now()
  await Promise.all(
    byPartner.map(async (notifications) => {
      for (const notification of notifications) {
        const status = await post(notification)
        if (status !== 200) throw new Error(`receiver answered ${status}`)
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  agent.destroy()
  return byPartner.reduce((n, list) => n + list.length, 0) / seconds
}

// ---------------------------------------------------------------------------------------------
// The dispatcher rounds, on the fresh database.

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

const round = (value: number) => Math.round(value * 10) / 10

const program = Effect.gen(function* () {
  const sql = yield* SqlClient
  const partners = yield* PgPartnerCredentials.Partners
  const partnerIds: Array<string> = []
  for (let p = 0; p < spec.partners; p++) {
    const partnerId = (yield* partners.create({ name: `bench partner ${p}` })).partnerId
    yield* partners.setWebhook(partnerId, { url: receiver.url, signingSecret: Redacted.make(signingSecret) })
    partnerIds.push(partnerId)
  }

  /** Fresh outbox with the backlog: notification k goes to partner k mod partners, positions ascending. */
  const fill = Effect.gen(function* () {
    yield* sql`TRUNCATE outbox`
    yield* sql`
      INSERT INTO outbox (id, partner_id, event_type, data, position)
      SELECT gen_random_uuid()::text, (${JSON.stringify(partnerIds)}::jsonb ->> (k % ${spec.partners}))::text,
             'COMPANY_VERIFICATION_STATUS_CHANGED',
             jsonb_build_object('CompanyId', gen_random_uuid()::text, 'Status', 'Verified'), k
      FROM generate_series(1, ${spec.notifications}) AS k`
    yield* sql`ANALYZE outbox`
  })

  // The bodies the dispatcher sends, prepared once for the hand-written loop (same rows, same serialisation).
  yield* fill
  const rows = yield* sql<{ id: string; partner_id: string; event_type: string; data: unknown }>`
    SELECT id, partner_id, event_type, data FROM outbox ORDER BY partner_id, position`
  const prepared = partnerIds.map((partnerId) =>
    rows
      .filter((row) => row.partner_id === partnerId)
      .map((row) => ({ id: row.id, body: JSON.stringify({ Live: false, Event: row.event_type, Data: row.data }) })),
  )

  const dispatcherRound = Effect.gen(function* () {
    yield* fill
    const before = receiver.count()
    const started = performance.now()
    yield* Effect.scoped(
      Effect.gen(function* () {
        yield* Layer.build(WebhookDispatcher.layer({ live: false, workerId: "bench", pollMillis: 50 }))
        yield* Effect.promise(() =>
          waitFor(() => receiver.count() - before >= spec.notifications, "dispatcher deliveries", 2),
        )
        yield* Effect.promise(() =>
          waitFor(
            () =>
              Effect.runPromise(
                Effect.map(
                  sql<{ n: number }>`SELECT count(*)::int AS n FROM outbox WHERE status <> 'delivered'`,
                  (r) => r[0]?.n === 0,
                ),
              ),
            "dispatcher marks",
            2,
          ),
        )
      }),
    )
    const seconds = (performance.now() - started) / 1000
    const extra = receiver.count() - before - spec.notifications
    if (extra !== 0) throw new Error(`the receiver got ${extra} more requests than notifications`)
    return spec.notifications / seconds
  })

  const dispatcher: Array<number> = []
  const hand: Array<number> = []
  for (let r = 0; r < spec.rounds; r++) {
    dispatcher.push(yield* dispatcherRound)
    hand.push(yield* Effect.promise(() => handWritten(prepared)))
  }
  const dispatcherPerSecond = median(dispatcher)
  const handWrittenPerSecond = median(hand)
  return {
    dispatcherPerSecond: round(dispatcherPerSecond),
    handWrittenPerSecond: round(handWrittenPerSecond),
    ratio: Math.round((dispatcherPerSecond / handWrittenPerSecond) * 1000) / 1000,
    notifications: spec.notifications,
    partners: spec.partners,
    rounds: spec.rounds,
    dispatcherRuns: dispatcher.map(round),
    handWrittenRuns: hand.map(round),
  }
})

try {
  await Effect.runPromise(admin(`CREATE DATABASE ${databaseName}`))
  const result = await Effect.runPromise(
    program.pipe(
      Effect.provide(
        Layer.mergeAll(PgOutbox.layer, PgPartnerCredentials.layer({ N: 2 ** 10, r: 8, p: 1 })).pipe(
          Layer.provideMerge(
            PgPersonalDataVault.layer(PgPersonalDataVault.parseMasterKey(PgPersonalDataVault.newMasterKeyText())),
          ),
          Layer.provideMerge(Migrations.layer),
          Layer.provideMerge(PgDatabase.layerPostgres(databaseUrl, { maxConnections: 10 })),
        ),
      ),
      Effect.provideService(References.MinimumLogLevel, "Warn"),
    ),
  )
  console.log(JSON.stringify(result))
} finally {
  receiver.close()
  await Effect.runPromise(Effect.ignore(admin(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`)))
}
