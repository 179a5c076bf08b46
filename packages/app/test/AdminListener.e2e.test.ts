/**
 * The real service process (`node src/main.ts`, embedded database) with the
 * operator API on a listener of its own (PARTNERPAY_ADMIN_PORT) and the test's
 * socket as the trusted proxy (PARTNERPAY_TRUST_PROXY=127.0.0.1,::1): /admin
 * is served there only (the public listener answers 404), the admin listener
 * serves nothing else, failed operator tokens are throttled per client address
 * on it, and on the public listener failed logins are limited per the address
 * the proxy appended, however the client rotates the entries it wrote itself.
 * A taken operator port is named in one line.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { type RequestOptions, request } from "./Requests.ts"
import { appDir, eventually, killAll, startService } from "./support.ts"

const adminToken = "operator-e2e-token-0123456789abcdefghij"
const dataDirs: Array<string> = []
afterAll(() => {
  killAll()
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true })
})

/** One request to an absolute URL (GET unless `init.method` says). */
const call = (url: string, init: RequestOptions & { readonly method?: string } = {}) =>
  request(url, init.method ?? "GET", "", init)

describe("the operator API on its own listener (PARTNERPAY_ADMIN_PORT)", () => {
  it("is served there only, throttles failed tokens per address, and the public limits key on the proxy's entry", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "partnerpay-admin-listener-"))
    dataDirs.push(dataDir)
    const service = await startService({
      PORT: "0",
      PARTNERPAY_DATA_DIR: dataDir,
      PARTNERPAY_ADMIN_TOKEN: adminToken,
      PARTNERPAY_ADMIN_PORT: "0",
      PARTNERPAY_TRUST_PROXY: "127.0.0.1,::1",
    })
    const adminUrl = await eventually(() =>
      service.output
        .map((line) => /partnerpay operator API listening on (http:\/\/[^\s"]+)/.exec(line)?.[1])
        .find((url) => url !== undefined),
    )
    assert.notStrictEqual(adminUrl, service.url)
    assert.match(adminUrl, /^http:\/\/127\.0\.0\.1:\d+$/)
    const operator = { authorization: `Bearer ${adminToken}` }

    // The public listener has no operator API; the partner API and probes are there.
    const hidden = await call(`${service.url}/admin/partners`, {
      method: "POST",
      headers: operator,
      body: { name: "Acme" },
    })
    assert.strictEqual(hidden.status, 404)
    assert.strictEqual(hidden.headers.get("content-type"), "application/problem+json")
    assert.strictEqual((await call(`${service.url}/livez`)).status, 200)

    // The admin listener serves the operator API, and nothing else.
    const created = await call(`${adminUrl}/admin/partners`, {
      method: "POST",
      headers: operator,
      body: { name: "Acme Payroll" },
    })
    assert.strictEqual(created.status, 201)
    assert.isNotNull(created.headers.get("x-correlation-id"))
    for (const path of ["/livez", "/openapi.json", "/HealthCheck/Get"]) {
      const other = await call(`${adminUrl}${path}`)
      assert.strictEqual(other.status, 404, path)
      assert.strictEqual(other.headers.get("content-type"), "application/problem+json", path)
    }

    // Failed operator tokens from one address: 10, then 429 with Retry-After even for the right token.
    const fromAddress = (address: string, token: string) =>
      call(`${adminUrl}/admin/webhooks/deliveries`, {
        headers: { authorization: `Bearer ${token}`, "x-forwarded-for": address },
      })
    for (let i = 0; i < 10; i++) assert.strictEqual((await fromAddress("203.0.113.66", `wrong-${i}`)).status, 401)
    const throttled = await fromAddress("203.0.113.66", adminToken)
    assert.strictEqual(throttled.status, 429)
    assert.isAtLeast(Number(throttled.headers.get("retry-after")), 1)
    assert.strictEqual((await fromAddress("198.51.100.7", adminToken)).status, 200)

    // Public failed logins behind the proxy (the test's socket): the entry it appended is the client,
    // whatever the client wrote left of it.
    const login = (forwardedFor: string, clientId: string) =>
      call(`${service.url}/auth/token`, {
        method: "POST",
        headers: { "x-forwarded-for": forwardedFor },
        body: { ClientId: clientId, ClientSecret: "wrong-secret" },
      })
    // (The unauthenticated rate limit, 20 at once, or the failure limit, 30, answers first: both key on it.)
    const statuses: Array<number> = []
    for (let i = 0; i < 40; i++) statuses.push((await login(`192.0.2.${i + 1}, 203.0.113.9`, `guess-${i}`)).status)
    const firstRefusal = statuses.indexOf(429)
    assert.isAbove(firstRefusal, 0, statuses.join(","))
    assert.deepStrictEqual(statuses.slice(0, firstRefusal), Array(firstRefusal).fill(401))
    assert.strictEqual((await login("203.0.113.9, 198.51.100.8", "guess-40")).status, 401)

    assert.strictEqual(await service.stop("SIGTERM"), 0)
  }, 90_000)

  it("a taken operator port is named in one line: PARTNERPAY_ADMIN_PORT", async () => {
    const blocker = createServer()
    const port = await new Promise<number>((done) =>
      blocker.listen(0, "127.0.0.1", () => done((blocker.address() as { port: number }).port)),
    )
    const dataDir = mkdtempSync(join(tmpdir(), "partnerpay-admin-listener-"))
    dataDirs.push(dataDir)
    try {
      const run = await new Promise<{ code: number | null; stderr: string }>((done) => {
        const child = spawn(process.execPath, ["src/main.ts"], {
          cwd: appDir,
          env: {
            PATH: process.env.PATH ?? "",
            HOME: process.env.HOME ?? "/tmp",
            PORT: "0",
            PARTNERPAY_DATA_DIR: dataDir,
            PARTNERPAY_ADMIN_TOKEN: adminToken,
            PARTNERPAY_ADMIN_PORT: String(port),
            LOG_LEVEL: "warn",
          },
          stdio: ["ignore", "ignore", "pipe"],
        })
        let stderr = ""
        child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
          stderr += chunk
        })
        child.once("close", (code) => done({ code, stderr }))
      })
      assert.strictEqual(run.code, 1)
      assert.strictEqual(
        run.stderr.trim(),
        `partnerpay cannot start: port ${port} is in use; set PARTNERPAY_ADMIN_PORT`,
      )
    } finally {
      blocker.close()
    }
  }, 90_000)
})
