/**
 * Scenario 2 on the embedded database (PGlite): the same kill -9 cycles as on
 * PostgreSQL (three here: a PGlite start takes 5-25 s), checked through the
 * API only (the data directory cannot be queried from outside): every
 * acknowledged registration is readable after the last restart and every
 * acknowledged company's verification webhook arrives. A data directory that
 * no longer opens after a SIGKILL is reported as a finding (the test fails).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import {
  call,
  callPatiently,
  companyBody,
  killAll,
  partnerToken,
  serviceEnv,
  sleep,
  start,
  startReceiver,
  summary,
  tally,
  tempDir,
} from "./support.ts"

const clientId = "faults-crash-pglite-client"
const clientSecret = "faults-crash-pglite-secret-0123456789"
const kills = 3

afterAll(() => killAll())

describe("crash (PGlite)", () => {
  it(`kill -9 ${kills} times under load on PGlite: the data directory opens again, nothing acknowledged lost`, async () => {
    const data = tempDir("crash-pglite")
    const receiver = await startReceiver()
    const env = serviceEnv({ clientId, clientSecret, dataDir: data.dir, webhookUrl: receiver.url, kybDelayMs: 300 })
    const acknowledged: Array<string> = []
    const refused: Array<number> = []
    let interrupted = 0
    const restarts: Array<string> = []
    try {
      let token: string | undefined
      for (let round = 0; round < kills; round++) {
        const started = Date.now()
        const service = await start(env)
        restarts.push(`${Date.now() - started} ms`)
        token ??= await partnerToken(service, clientId, clientSecret)
        const stopAt = Date.now() + 10_000
        let n = 0
        const loop = async (worker: number) => {
          while (Date.now() < stopAt) {
            try {
              const answer = await call(service.url, "POST", "/Company/Create", {
                token,
                body: companyBody({ companyReferenceId: `p${round}-${worker}-${n++}` }),
                timeoutMs: 10_000,
              })
              if (answer.status === 200) acknowledged.push((answer.body as { companyId: string }).companyId)
              else refused.push(answer.status)
            } catch {
              interrupted++
              return
            }
          }
        }
        const running = Promise.all(Array.from({ length: 4 }, (_, w) => loop(w)))
        await sleep(1500 + Math.floor(Math.random() * 1500))
        await service.stop("SIGKILL")
        await running
      }
      const started = Date.now()
      const last = await start(env).catch((error: unknown) => {
        summary(
          "crash/pglite",
          `FINDING: the data directory does not open after ${kills} SIGKILLs: ${String(error).slice(0, 600)}`,
        )
        throw error
      })
      restarts.push(`${Date.now() - started} ms`)
      token ??= await partnerToken(last, clientId, clientSecret)
      const missing: Array<string> = []
      for (const companyId of acknowledged) {
        const answer = await callPatiently(last.url, "GET", `/company/status?companyId=${companyId}`, { token })
        if (answer.status !== 200) missing.push(`${companyId}: ${answer.status}`)
      }
      const hooked = () =>
        new Set(
          receiver.received.map((hook) => (JSON.parse(hook.body) as { Data: { CompanyId?: string } }).Data.CompanyId),
        )
      const deadline = Date.now() + 60_000
      while (Date.now() < deadline && acknowledged.some((id) => !hooked().has(id))) await sleep(500)
      const withoutHook = acknowledged.filter((id) => !hooked().has(id))
      const ids = receiver.received.map((hook) => String(hook.headers["x-partnerpay-event-id"]))
      summary(
        "crash/pglite",
        `${kills} kills; starts ${restarts.join(", ")}; ${acknowledged.length} registrations acknowledged, ${refused.length} refused [${tally(refused)}], ${interrupted} interrupted; acknowledged missing ${missing.length}; webhooks received ${ids.length} (${new Set(ids).size} unique), acknowledged companies without webhook ${withoutHook.length}`,
      )
      assert.deepStrictEqual(missing, [])
      assert.deepStrictEqual(withoutHook, [])
      assert.deepStrictEqual(
        refused.filter((s) => s >= 500),
        [],
      )
    } finally {
      killAll()
      await receiver.close()
      data.remove()
    }
  })
})
