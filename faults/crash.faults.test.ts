/**
 * Scenario 2, crash: the service is killed with SIGKILL five times during a
 * mixed load (company registrations, status reads; each registration owes a
 * COMPANY_VERIFICATION_STATUS_CHANGED webhook) and restarted on the same
 * database. After the last restart: every registration acknowledged with 2xx
 * is readable, no company is half-applied (its read model exists iff its
 * events exist), and every owed webhook reached the receiver at least once
 * (de-duplicated by X-Partnerpay-Event-Id). PostgreSQL; PGlite as a finding.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import {
  call,
  callPatiently,
  companyBody,
  freshDatabase,
  killAll,
  partnerToken,
  psql,
  type RunningService,
  serviceEnv,
  sleep,
  start,
  startReceiver,
  summary,
  tally,
  tempDir,
} from "./support.ts"

const clientId = "faults-crash-client"
const clientSecret = "faults-crash-secret-0123456789"

afterAll(() => killAll())

const kills = 5

interface LoadResult {
  acknowledged: Array<{ companyId: string; reference: string }>
  refused: Array<number>
  interrupted: number
}

/** Registers companies with `workers` parallel loops until `stopAt` (or a connection failure). */
const load = async (service: RunningService, token: string, prefix: string, stopAt: number, result: LoadResult) => {
  let n = 0
  const loop = async (worker: number) => {
    while (Date.now() < stopAt) {
      const reference = `${prefix}-${worker}-${n++}`
      try {
        const answer = await call(service.url, "POST", "/Company/Create", {
          token,
          body: companyBody({ companyReferenceId: reference, name: `Crash Co ${reference}` }),
          timeoutMs: 10_000,
        })
        if (answer.status >= 200 && answer.status < 300)
          result.acknowledged.push({ companyId: (answer.body as { companyId: string }).companyId, reference })
        else result.refused.push(answer.status)
        if (answer.status === 200 && n % 3 === 0) {
          await call(
            service.url,
            "GET",
            `/company/status?companyId=${(answer.body as { companyId: string }).companyId}`,
            { token, timeoutMs: 10_000 },
          )
        }
      } catch {
        result.interrupted++
        return // the process is gone
      }
    }
  }
  await Promise.all(Array.from({ length: 6 }, (_, worker) => loop(worker)))
}

describe("crash", () => {
  it(`kill -9 ${kills} times under load on PostgreSQL: nothing acknowledged lost, nothing half-applied, every webhook delivered`, async () => {
    const db = freshDatabase("crash")
    const data = tempDir("crash")
    const receiver = await startReceiver()
    const env = serviceEnv({
      clientId,
      clientSecret,
      dataDir: data.dir,
      databaseUrl: db.url,
      webhookUrl: receiver.url,
      kybDelayMs: 300,
    })
    const result: LoadResult = { acknowledged: [], refused: [], interrupted: 0 }
    try {
      let token: string | undefined
      for (let round = 0; round < kills; round++) {
        const service = await start(env)
        token ??= await partnerToken(service, clientId, clientSecret)
        const killAfter = 700 + Math.floor(Math.random() * 1500)
        const ackedBefore = result.acknowledged.length
        const running = load(service, token, `r${round}`, Date.now() + 15_000, result)
        await sleep(killAfter)
        // On a loaded machine a freshly started process can be slow to answer: wait (up to
        // 8 s) for 3 acknowledgements this round, so the final "> 10 acknowledged" sanity
        // check measures the scenario, not the machine's load.
        const waitUntil = Date.now() + 8_000
        while (result.acknowledged.length < ackedBefore + 3 && Date.now() < waitUntil) await sleep(50)
        await service.stop("SIGKILL")
        await running
      }
      const last = await start(env)
      token ??= await partnerToken(last, clientId, clientSecret)

      // Every acknowledged registration is there.
      const missing: Array<string> = []
      for (const { companyId } of result.acknowledged) {
        const answer = await callPatiently(last.url, "GET", `/company/status?companyId=${companyId}`, { token })
        if (answer.status !== 200) missing.push(`${companyId}: ${answer.status}`)
      }

      // No half-applied company: read model iff events.
      const streamIds = new Set(
        psql(
          db.url,
          `SELECT DISTINCT substring(stream_id from '[0-9a-f-]{36}$') FROM events WHERE stream_type = 'Company'`,
        )
          .split("\n")
          .filter((l) => l !== ""),
      )
      const modelIds = new Set(
        psql(db.url, `SELECT id FROM read_models WHERE collection = 'companies'`)
          .split("\n")
          .filter((l) => l !== ""),
      )
      const withoutModel = [...streamIds].filter((id) => !modelIds.has(id))
      const withoutEvents = [...modelIds].filter((id) => !streamIds.has(id))

      // Every webhook owed is delivered: wait for the KYB verdicts and the dispatcher (a killed
      // instance's lease expires after 30 s).
      const deadline = Date.now() + 75_000
      let owed: Array<string> = []
      let undelivered: Array<string> = []
      const deliveredIds = () => new Set(receiver.received.map((hook) => String(hook.headers["x-partnerpay-event-id"])))
      while (Date.now() < deadline) {
        const unverified = Number(
          psql(
            db.url,
            `SELECT count(*) FROM read_models WHERE collection = 'companies' AND data->>'status' = 'Unverified'`,
          ),
        )
        owed = psql(db.url, `SELECT id FROM outbox`)
          .split("\n")
          .filter((l) => l !== "")
        const got = deliveredIds()
        undelivered = owed.filter((id) => !got.has(id))
        if (unverified === 0 && undelivered.length === 0) break
        await sleep(500)
      }
      const companiesWithHook = new Set(
        receiver.received.map((hook) => (JSON.parse(hook.body) as { Data: { CompanyId?: string } }).Data.CompanyId),
      )
      const ackWithoutHook = result.acknowledged.filter((a) => !companiesWithHook.has(a.companyId))
      const duplicates = receiver.received.length - deliveredIds().size
      const outboxStates = psql(
        db.url,
        `SELECT status || ':' || count(*) FROM outbox GROUP BY status ORDER BY status`,
      ).replaceAll("\n", ", ")
      summary(
        "crash/postgres",
        `${kills} kills; ${result.acknowledged.length} registrations acknowledged, ${result.refused.length} refused [${tally(result.refused)}], ${result.interrupted} interrupted by the kill; ${streamIds.size} company streams, ${modelIds.size} read models (${withoutModel.length} without read model, ${withoutEvents.length} without events); acknowledged missing ${missing.length}; webhooks owed ${owed.length}, delivered (unique) ${deliveredIds().size}, duplicates ${duplicates}, missing ${undelivered.length}, acknowledged companies without webhook ${ackWithoutHook.length}; outbox ${outboxStates}`,
      )
      assert.deepStrictEqual(missing, [])
      assert.deepStrictEqual(withoutModel, [])
      assert.deepStrictEqual(withoutEvents, [])
      assert.deepStrictEqual(undelivered, [])
      assert.deepStrictEqual(ackWithoutHook, [])
      assert.isAbove(result.acknowledged.length, 10)
      assert.deepStrictEqual(
        result.refused.filter((s) => s >= 500),
        [],
      )
    } finally {
      killAll()
      await receiver.close()
      db.drop()
      data.remove()
    }
  })
})
