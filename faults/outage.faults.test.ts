/**
 * Scenario 3, database outage: during a load of registrations and reads the
 * service's database backends are terminated (pg_terminate_backend) three
 * times, the last time with connections to the database refused for 3 s
 * (ALLOW_CONNECTIONS false). The service answers 503 problem+json while it
 * cannot reach the database, never 500, recovers by itself, and every
 * acknowledged registration is still there.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import {
  type Answer,
  call,
  callPatiently,
  companyBody,
  freshDatabase,
  isProblem,
  killAll,
  partnerToken,
  psql,
  serverUrl,
  serviceEnv,
  sleep,
  start,
  summary,
  tally,
  tempDir,
} from "./support.ts"

const clientId = "faults-outage-client"
const clientSecret = "faults-outage-secret-0123456789"

afterAll(() => killAll())

describe("database outage", () => {
  it("terminated backends: 503 problem+json (never 500), self-recovery, nothing acknowledged lost", async () => {
    const db = freshDatabase("outage")
    const data = tempDir("outage")
    const acknowledged: Array<string> = []
    const statuses: Array<number> = []
    const notProblem: Array<string> = []
    const fiveHundreds: Array<string> = []
    try {
      // Rate limiting off: the load should reach the database during the outages, not stop at 429.
      const service = await start(
        serviceEnv({
          clientId,
          clientSecret,
          dataDir: data.dir,
          databaseUrl: db.url,
          extra: { PARTNERPAY_RATE_LIMITING: "off" },
        }),
      )
      const token = await partnerToken(service, clientId, clientSecret)
      const record = (what: string, answer: Answer) => {
        statuses.push(answer.status)
        if (answer.status >= 400 && !isProblem(answer))
          notProblem.push(`${what} ${answer.status} ${answer.contentType}`)
        if (answer.status >= 500 && answer.status !== 503)
          fiveHundreds.push(`${what} ${answer.status} ${answer.text.slice(0, 200)}`)
      }
      let n = 0
      const stopAt = Date.now() + 14_000
      const loop = async (worker: number) => {
        while (Date.now() < stopAt) {
          const reference = `out-${worker}-${n++}`
          const created = await call(service.url, "POST", "/Company/Create", {
            token,
            body: companyBody({ companyReferenceId: reference }),
            timeoutMs: 20_000,
          }).catch((error: unknown) => ({
            status: -1,
            contentType: "",
            text: String(error),
            body: undefined,
            headers: new Headers(),
          }))
          record(`POST /Company/Create ${reference}`, created)
          if (created.status === 200) {
            const id = (created.body as { companyId: string }).companyId
            acknowledged.push(id)
            record("GET /company/status", await call(service.url, "GET", `/company/status?companyId=${id}`, { token }))
          }
          await sleep(20)
        }
      }
      const terminate = () =>
        Number(
          psql(
            serverUrl,
            `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '${db.name}' AND pid <> pg_backend_pid()`,
          ),
        )
      const outages = (async () => {
        const killed: Array<number> = []
        await sleep(2000)
        killed.push(terminate())
        await sleep(3000)
        killed.push(terminate())
        await sleep(3000)
        psql(serverUrl, `ALTER DATABASE ${db.name} ALLOW_CONNECTIONS false`)
        killed.push(terminate())
        await sleep(3000)
        psql(serverUrl, `ALTER DATABASE ${db.name} ALLOW_CONNECTIONS true`)
        return { killed, reopenedAt: Date.now() }
      })()
      await Promise.all([outages, ...Array.from({ length: 4 }, (_, w) => loop(w))])
      const { killed, reopenedAt } = await outages

      // Recovery: a registration succeeds again (bounded wait).
      let recoveredAfter = -1
      while (Date.now() - reopenedAt < 20_000) {
        const probe = await call(service.url, "POST", "/Company/Create", {
          token,
          body: companyBody({ companyReferenceId: `out-probe-${Date.now()}` }),
        })
        record("probe", probe)
        if (probe.status === 200) {
          acknowledged.push((probe.body as { companyId: string }).companyId)
          recoveredAfter = Date.now() - reopenedAt
          break
        }
        await sleep(250)
      }
      const health = await call(service.url, "GET", "/HealthCheck/Get", { token })
      const missing: Array<string> = []
      for (const id of acknowledged) {
        const answer = await callPatiently(service.url, "GET", `/company/status?companyId=${id}`, { token })
        if (answer.status !== 200) missing.push(`${id}: ${answer.status}`)
      }
      const inDb = Number(psql(db.url, `SELECT count(*) FROM read_models WHERE collection = 'companies'`))
      summary(
        "outage",
        `3 outages (backends terminated: ${killed.join(", ")}; the last with connections refused for 3 s); ${statuses.length} requests [${tally(statuses)}]; 5xx other than 503: ${fiveHundreds.length}; refusals not problem+json: ${notProblem.length}; recovered ${recoveredAfter} ms after the database reopened; health ${health.status}; ${acknowledged.length} acknowledged, ${missing.length} missing, ${inDb} companies stored`,
      )
      for (const line of [...fiveHundreds, ...notProblem].slice(0, 10))
        console.log(`[faults] outage VIOLATION: ${line}`)
      if (fiveHundreds.length > 0) {
        const cause = service.output
          .filter((l) => /"level":"(ERROR|FATAL)"/.test(l) || /"status":500/.test(l))
          .slice(0, 4)
        for (const line of cause) console.log(`[faults] outage service log: ${line.slice(0, 1200)}`)
      }
      assert.deepStrictEqual(fiveHundreds, [])
      assert.deepStrictEqual(notProblem, [])
      assert.isAtLeast(recoveredAfter, 0)
      assert.deepStrictEqual(missing, [])
      assert.isAtLeast(inDb, acknowledged.length)
    } finally {
      try {
        psql(serverUrl, `ALTER DATABASE ${db.name} ALLOW_CONNECTIONS true`)
      } catch {}
      killAll()
      db.drop()
      data.remove()
    }
  })
})
