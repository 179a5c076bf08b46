/**
 * Operating the real service process (`node src/main.ts`, and `./pnpm start`
 * at the repository root): the probes `GET /livez` and `GET /readyz`
 * (unauthenticated), one id per request (the client's X-Correlation-Id or
 * traceparent trace id, returned and in every log line), the access line's
 * route template and partner id, string log messages, the start lines
 * (`/docs` URL, the first start's sandbox partner), a busy port in one line, and a
 * quiet Ctrl-C.
 */
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { sandboxPartnerId } from "../src/sandbox/Partners.ts"
import { appDir, eventually, killAll, startService } from "./support.ts"

const clientId = "operable-e2e-client"
const clientSecret = "operable-e2e-secret-0123456789"
const repositoryRoot = fileURLToPath(new URL("../../..", import.meta.url))

const dataDirs: Array<string> = []
const freshDataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "partnerpay-operable-"))
  dataDirs.push(dir)
  return dir
}
afterAll(() => {
  killAll()
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true })
})

interface LogLine {
  readonly message: unknown
  readonly annotations: Record<string, unknown>
}
const parsed = (output: ReadonlyArray<string>): Array<LogLine> => output.map((line) => JSON.parse(line) as LogLine)
const accessLineOf = (output: ReadonlyArray<string>, requestId: string) =>
  parsed(output).find((line) => line.message === "request" && line.annotations.requestId === requestId)

describe("the service in operation", () => {
  it("answers the probes, honours client ids, and logs one id, the route and the partner per request", async () => {
    const service = await startService({
      PORT: "0",
      PARTNERPAY_DATA_DIR: freshDataDir(),
      PARTNERPAY_SANDBOX_CLIENT_ID: clientId,
      PARTNERPAY_SANDBOX_CLIENT_SECRET: clientSecret,
    })
    // Start lines: the reference's URL; a partner is configured, so no hint.
    await eventually(() =>
      service.output.some((line) => line.includes(`API reference: ${service.url}/docs`)) ? true : undefined,
    )
    assert.isFalse(service.output.some((line) => line.includes("no sandbox partner configured")))

    const live = await fetch(`${service.url}/livez`)
    assert.strictEqual(live.status, 200)
    assert.deepStrictEqual(await live.json(), { status: "live" })

    const ready = await fetch(`${service.url}/readyz`, { headers: { "x-correlation-id": "probe-1" } })
    assert.strictEqual(ready.status, 200)
    assert.deepStrictEqual(await ready.json(), {
      status: "ready",
      checks: { database: "ok", migrations: "ok", workers: "ok", sessions: "ok" },
    })
    assert.strictEqual(ready.headers.get("x-correlation-id"), "probe-1")

    const tokenResponse = await fetch(`${service.url}/auth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ClientId: clientId, ClientSecret: clientSecret }),
    })
    const token = ((await tokenResponse.json()) as { AccessToken: string }).AccessToken

    // A problem answered by the API: the client's id in the header and the instance.
    const missing = await fetch(`${service.url}/company/status?companyId=${crypto.randomUUID()}`, {
      headers: { authorization: `Bearer ${token}`, "x-correlation-id": "client-42" },
    })
    assert.strictEqual(missing.status, 404)
    assert.strictEqual(missing.headers.get("x-correlation-id"), "client-42")
    assert.strictEqual(
      ((await missing.json()) as { instance: string }).instance,
      "urn:partnerpay:correlation:client-42",
    )

    // A W3C traceparent: its trace id is the request's id.
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
    const traced = await fetch(`${service.url}/HealthCheck/Get`, {
      headers: { authorization: `Bearer ${token}`, traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    })
    assert.strictEqual(traced.status, 200)
    assert.strictEqual(traced.headers.get("x-correlation-id"), traceId)

    // An unknown route still returns the id; the service's own id is a UUID.
    const unknown = await fetch(`${service.url}/nowhere`)
    assert.strictEqual(unknown.status, 404)
    const madeId = unknown.headers.get("x-correlation-id") ?? ""
    assert.match(madeId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)

    const statusLine = await eventually(() => accessLineOf(service.output, "client-42"))
    assert.strictEqual(statusLine.annotations.route, "/company/status")
    assert.strictEqual(statusLine.annotations.path, "/company/status")
    assert.strictEqual(statusLine.annotations.status, 404)
    assert.strictEqual(statusLine.annotations.partnerId, sandboxPartnerId(clientId))
    assert.isNumber(statusLine.annotations.durationMs)
    const healthLine = await eventually(() => accessLineOf(service.output, traceId))
    assert.strictEqual(healthLine.annotations.route, "/HealthCheck/Get")
    const probeLine = await eventually(() => accessLineOf(service.output, "probe-1"))
    assert.strictEqual(probeLine.annotations.route, "/readyz")
    assert.isNull(probeLine.annotations.partnerId)
    const unknownLine = await eventually(() => accessLineOf(service.output, madeId))
    assert.isNull(unknownLine.annotations.route)

    const stopped = await service.stop("SIGINT")
    assert.strictEqual(stopped, 0)
    // Every line is JSON with a string message.
    for (const line of parsed(service.output)) assert.isString(line.message)
  }, 90_000)

  it("on a first start, creates a sandbox partner, keeps it in the data directory and says how to get a token", async () => {
    const dataDir = freshDataDir()
    const first = await startService({ PORT: "0", PARTNERPAY_DATA_DIR: dataDir })
    const created = await eventually(() => first.output.find((line) => line.includes("sandbox partner created")))
    const file = join(dataDir, "sandbox-partner.json")
    assert.strictEqual(statSync(file).mode & 0o777, 0o600)
    const credentials = JSON.parse(readFileSync(file, "utf8")) as { ClientId: string; ClientSecret: string }
    assert.include(created, credentials.ClientId)
    // JSON log lines go to log stores: they name the file, never the secret (a terminal's pretty lines show it once).
    assert.notInclude(first.output.join("\n"), credentials.ClientSecret)
    const hint = await eventually(() => first.output.find((line) => line.includes("get a partner token: curl")))
    assert.include(hint, `-d @${file}`)
    // The file is the token request's body, as the printed curl sends it.
    const token = await fetch(`${first.url}/auth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: readFileSync(file),
    })
    assert.strictEqual(token.status, 200)
    assert.strictEqual(await first.stop("SIGTERM"), 0)

    // A later start keeps that partner and names the file, not the secret.
    const again = await startService({ PORT: "0", PARTNERPAY_DATA_DIR: dataDir })
    const kept = await eventually(() => again.output.find((line) => line.includes("sandbox partner: ClientId")))
    assert.include(kept, credentials.ClientId)
    assert.isFalse(again.output.some((line) => line.includes("sandbox partner created")))
    assert.strictEqual(JSON.parse(readFileSync(file, "utf8")).ClientSecret, credentials.ClientSecret)
    assert.strictEqual(await again.stop("SIGTERM"), 0)

    // Partners exist but the file is gone (a partner made with the CLI, say): no new one, how to get one.
    rmSync(file)
    const third = await startService({ PORT: "0", PARTNERPAY_DATA_DIR: dataDir })
    const none = await eventually(() => third.output.find((line) => line.includes("no sandbox partner configured")))
    assert.include(none, "PARTNERPAY_SANDBOX_CLIENT_ID")
    assert.include(none, "partners create")
    assert.isFalse(existsSync(file))
    assert.strictEqual(await third.stop("SIGTERM"), 0)
  }, 120_000)

  it("says in one line that the port is in use", async () => {
    const blocker = createServer()
    const port = await new Promise<number>((done) =>
      blocker.listen(0, "127.0.0.1", () => done((blocker.address() as { port: number }).port)),
    )
    try {
      const run = await new Promise<{ code: number | null; stderr: string }>((done) => {
        const child = spawn(process.execPath, ["src/main.ts"], {
          cwd: appDir,
          env: {
            PATH: process.env.PATH ?? "",
            HOME: process.env.HOME ?? "/tmp",
            PORT: String(port),
            PARTNERPAY_DATA_DIR: freshDataDir(),
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
      assert.strictEqual(run.stderr.trim(), `partnerpay cannot start: port ${port} is in use; set PORT`)
    } finally {
      blocker.close()
    }
  }, 90_000)

  it("./pnpm start ends quietly on Ctrl-C (exit 0, no package-manager failure lines)", async () => {
    const child = spawn("bash", ["./pnpm", "start"], {
      cwd: repositoryRoot,
      env: { ...process.env, PORT: "0", PARTNERPAY_DATA_DIR: freshDataDir(), LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // its own process group, as a terminal's foreground job
    })
    let output = ""
    for (const stream of [child.stdout, child.stderr]) {
      stream.setEncoding("utf8").on("data", (chunk: string) => {
        output += chunk
      })
    }
    const exited = new Promise<number | string>((done) =>
      child.once("exit", (code, signal) => done(code ?? signal ?? "unknown")),
    )
    try {
      await eventually(() => (output.includes("partnerpay listening on") ? true : undefined), 60_000)
      process.kill(-child.pid!, "SIGINT") // Ctrl-C: the whole foreground group
      assert.strictEqual(await exited, 0)
      assert.include(output, "partnerpay stopped")
      assert.notInclude(output, "ELIFECYCLE")
      assert.notInclude(output, "Command failed")
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, "SIGKILL")
    }
  }, 90_000)
})
