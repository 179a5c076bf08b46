/**
 * End to end: the real service process (`node src/main.ts`) with a sandbox
 * partner from the environment, on the embedded database and on a PostgreSQL
 * server. A partner obtains a token, registers companies, and receives the
 * signed COMPANY_VERIFICATION_STATUS_CHANGED webhooks; the service is stopped
 * with SIGTERM mid-way and restarted on the same data: nothing is lost and the
 * pending verification is still delivered. Secrets never reach the logs.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Hmac } from "@partnerpay/secrets"
import {
  companyBody,
  eventually,
  freshDatabase,
  killAll,
  postgresAvailable,
  type ReceivedWebhook,
  type RunningService,
  startReceiver,
  startService,
} from "./support.ts"

const clientId = "sandbox-e2e-client"
const clientSecret = "e2e-client-secret-do-not-log-0123456789"
const webhookSecret = "e2e-webhook-signing-secret-4f1d"

afterAll(() => killAll())

const json = async (response: Response) => {
  const text = await response.text()
  return text === "" ? undefined : (JSON.parse(text) as Record<string, unknown>)
}

const tokenFor = async (service: RunningService): Promise<string> => {
  const response = await fetch(`${service.url}/auth/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ClientId: clientId, ClientSecret: clientSecret }),
  })
  assert.strictEqual(response.status, 200)
  const answer = await json(response)
  return answer!.AccessToken as string
}

const registerCompany = async (service: RunningService, token: string, overrides: Record<string, unknown>) => {
  const response = await fetch(`${service.url}/Company/Create`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(companyBody(overrides)),
  })
  const answer = await json(response)
  assert.strictEqual(response.status, 200, JSON.stringify(answer))
  return answer!.companyId as string
}

const webhookFor = (received: ReadonlyArray<ReceivedWebhook>, companyId: string) =>
  received.find((hook) => (JSON.parse(hook.body) as { Data: { CompanyId: string } }).Data.CompanyId === companyId)

/** The receiver's own check of the signature: HMAC-SHA256 over the exact body bytes. */
const assertSigned = (hook: ReceivedWebhook) => {
  const expected = `sha256=${Hmac.sha256Hex(webhookSecret, hook.body)}`
  assert.strictEqual(hook.headers["x-hmac-signature"], expected)
}

const scenario = (database: "embedded" | "postgres") => async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "partnerpay-e2e-"))
  const receiver = await startReceiver()
  const db = database === "postgres" ? await freshDatabase() : undefined
  const env = (kybDelay: number): Record<string, string> => ({
    PORT: "0",
    PARTNERPAY_DATA_DIR: dataDir,
    PARTNERPAY_KYB_DELAY_MS: String(kybDelay),
    PARTNERPAY_SANDBOX_CLIENT_ID: clientId,
    PARTNERPAY_SANDBOX_CLIENT_SECRET: clientSecret,
    PARTNERPAY_SANDBOX_WEBHOOK_URL: receiver.url,
    PARTNERPAY_SANDBOX_WEBHOOK_SECRET: webhookSecret,
    LOG_LEVEL: "debug",
    ...(db === undefined ? {} : { DATABASE_URL: db.url }),
  })
  const outputs: Array<ReadonlyArray<string>> = []
  try {
    // First run: a company is verified and its webhook arrives, signed.
    const first = await startService(env(200))
    outputs.push(first.output)
    const token = await tokenFor(first)
    const health = await fetch(`${first.url}/HealthCheck/Get`, { headers: { authorization: `Bearer ${token}` } })
    assert.strictEqual(health.status, 200)

    const verified = await registerCompany(first, token, { companyReferenceId: "e2e-verified" })
    const rejected = await registerCompany(first, token, {
      companyReferenceId: "e2e-rejected",
      name: "Please REJECT Me LLC",
    })
    const verifiedHook = await eventually(() => webhookFor(receiver.received, verified))
    const rejectedHook = await eventually(() => webhookFor(receiver.received, rejected))
    for (const [hook, companyId, status] of [
      [verifiedHook, verified, "Verified"],
      [rejectedHook, rejected, "Rejected"],
    ] as const) {
      assertSigned(hook)
      const payload = JSON.parse(hook.body) as { Live: boolean; Event: string; Data: Record<string, string> }
      assert.strictEqual(payload.Live, false)
      assert.strictEqual(payload.Event, "COMPANY_VERIFICATION_STATUS_CHANGED")
      assert.strictEqual(payload.Data.CompanyId, companyId)
      assert.strictEqual(payload.Data.Status, status)
      assert.isString(payload.Data.Timestamp)
      assert.strictEqual(hook.headers["content-type"], "application/json")
      assert.strictEqual(hook.headers["x-partnerpay-delivery-attempt"], "1")
      assert.match(String(hook.headers["x-partnerpay-event-id"]), /^[0-9a-f-]{36}$/)
    }

    // Stop mid-way: a company registered with a long KYB delay is still Unverified.
    await first.stop()
    const second = await startService(env(60_000))
    outputs.push(second.output)
    const pending = await registerCompany(second, token, { companyReferenceId: "e2e-pending" })
    const stopped = await second.stop("SIGTERM")
    assert.include([0, 130, "SIGTERM"], stopped)
    assert.isTrue(second.output.some((line) => line.includes('"partnerpay stopped"')))
    assert.isUndefined(webhookFor(receiver.received, pending))

    // Restart on the same data: the old token still works, nothing is lost, the pending webhook arrives.
    const third = await startService(env(200))
    outputs.push(third.output)
    const status = await fetch(`${third.url}/company/status?companyId=${verified}`, {
      headers: { authorization: `Bearer ${token}` },
    })
    assert.strictEqual(status.status, 200)
    assert.deepStrictEqual(await json(status), { CompanyId: verified, Status: "Verified", Metadata: {} })
    const pendingHook = await eventually(() => webhookFor(receiver.received, pending))
    assertSigned(pendingHook)
    // Each notification was delivered once (the event id is unique per delivery here).
    const ids = receiver.received.map((hook) => hook.headers["x-partnerpay-event-id"])
    assert.strictEqual(new Set(ids).size, ids.length)

    // A failing endpoint: the delivery is retried (after 2.5-5 s) with the same event id, attempt 2.
    receiver.status = 503
    const retried = await registerCompany(third, token, { companyReferenceId: "e2e-retried" })
    const failed = await eventually(() => webhookFor(receiver.requests, retried))
    receiver.status = 200
    const retriedHook = await eventually(() => webhookFor(receiver.received, retried))
    assert.strictEqual(retriedHook.headers["x-partnerpay-delivery-attempt"], "2")
    assert.strictEqual(retriedHook.headers["x-partnerpay-event-id"], failed.headers["x-partnerpay-event-id"])
    assert.strictEqual(retriedHook.body, failed.body)
    assertSigned(retriedHook)
    await third.stop()

    // Logs: JSON lines with request ids; no secret, token or SSN anywhere.
    const tokenSecretFile = readFileSync(join(dataDir, "token-secret"), "utf8")
    const all = outputs.flat()
    const requests = all.filter((line) => line.includes('"request"'))
    assert.isAbove(requests.length, 3)
    for (const line of all) {
      const parsed = JSON.parse(line) as { annotations: Record<string, unknown> }
      assert.isObject(parsed)
      for (const secret of [clientSecret, webhookSecret, token, tokenSecretFile, "987-65-4321", "D7654321"]) {
        assert.notInclude(line, secret)
      }
    }
    for (const line of requests) {
      assert.match(String((JSON.parse(line) as { annotations: { requestId: string } }).annotations.requestId), /-/)
    }
    console.info(
      `[${database}] start-up ${first.startupMillis} ms, ${second.startupMillis} ms, ${third.startupMillis} ms`,
    )
  } finally {
    killAll()
    await receiver.close()
    await db?.drop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

describe("the service process", () => {
  it("embedded database: token, company verification webhooks, restart without loss", scenario("embedded"), 80_000)
  it.skipIf(!postgresAvailable)("PostgreSQL server: the same journey", scenario("postgres"), 80_000)
})
