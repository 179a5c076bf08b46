/**
 * `partnerpay listen --forward-to <url>` against the real service (embedded database): it reads the
 * partner's events over the API and forwards each new one to a local receiver, signed with the
 * session's secret it printed (the documented verification accepts it), one line per delivery with the
 * receiver's status; events older than its start are not forwarded. Found as `start` serves the service
 * (PORT) and following the PARTNERPAY_SANDBOX_CLIENT_ID partner, it forwards a `partnerpay trigger`ed event
 * with no webhook endpoint configured, signed with its stable secret (Standard Webhooks verifies it), only
 * the types of `--events`, and Ctrl-C ends it with status 0.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Webhook } from "standardwebhooks"
import { on } from "./Requests.ts"
import { appDir, cli, companyBody, eventually, killAll, startReceiver, startService } from "./support.ts"

const snippetUrl = new URL("../../../docs/webhooks/verifyWebhook.ts", import.meta.url)
const { verifyWebhook } = (await import(snippetUrl.href)) as {
  readonly verifyWebhook: (
    rawBody: string,
    headers: Record<string, string | ReadonlyArray<string> | undefined>,
    secret: string,
  ) => { readonly ok: boolean }
}

const clientId = "listen-e2e-client"
const clientSecret = "listen-e2e-client-secret-0123456789"
const dataDir = mkdtempSync(join(tmpdir(), "partnerpay-listen-"))
afterAll(() => {
  killAll()
  rmSync(dataDir, { recursive: true, force: true })
})

describe("partnerpay listen", () => {
  it("forwards each new event, signed with the printed secret, and prints one line per delivery", async () => {
    const service = await startService({
      PORT: "0",
      PARTNERPAY_DATA_DIR: dataDir,
      PARTNERPAY_SANDBOX_CLIENT_ID: clientId,
      PARTNERPAY_SANDBOX_CLIENT_SECRET: clientSecret,
      PARTNERPAY_KYB_DELAY_MS: "300",
    })
    const receiver = await startReceiver()
    const { ok, until } = on(() => service.url)
    const token = (await ok("POST", "/auth/token", undefined, { ClientId: clientId, ClientSecret: clientSecret }))
      .AccessToken as string
    // An event before the listener starts: not forwarded.
    const before = await ok("POST", "/Company/Create", token, companyBody({ companyReferenceId: "listen-before" }))
    await until(`/company/status?companyId=${before.companyId}`, token, (body) => body.Status === "Verified")
    await eventually(async () => ((await ok("GET", "/Events?limit=1", token)).data.length > 0 ? true : undefined))

    const output: Array<string> = []
    const child = spawn(
      process.execPath,
      [
        "src/cli.ts",
        "listen",
        "--forward-to",
        receiver.url,
        "--base",
        service.url,
        "--client-id",
        clientId,
        "--client-secret",
        clientSecret,
        "--poll-ms",
        "200",
      ],
      { cwd: appDir, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" } },
    )
    child.stdout.on("data", (chunk: Buffer) =>
      output.push(
        ...chunk
          .toString()
          .split("\n")
          .filter((l) => l !== ""),
      ),
    )
    child.stderr.on("data", (chunk: Buffer) =>
      output.push(
        ...chunk
          .toString()
          .split("\n")
          .filter((l) => l !== ""),
      ),
    )
    try {
      const secretLine = await eventually(() => output.find((line) => line.includes("signing secret")))
      const secret = /(whsec_[A-Za-z0-9_-]+)/.exec(secretLine)![1]!

      const after = await ok("POST", "/Company/Create", token, companyBody({ companyReferenceId: "listen-after" }))
      const forwarded = await eventually(() =>
        receiver.received.find((r) => JSON.parse(r.body).Data.CompanyId === after.companyId),
      )
      const body = JSON.parse(forwarded.body) as { Live: boolean; Event: string; Data: { Status: string } }
      assert.strictEqual(body.Event, "COMPANY_VERIFICATION_STATUS_CHANGED")
      assert.strictEqual(body.Live, false)
      assert.isTrue(verifyWebhook(forwarded.body, forwarded.headers, secret).ok)
      assert.isFalse(verifyWebhook(forwarded.body, forwarded.headers, `${secret}x`).ok)
      const line = await eventually(() =>
        output.find((l) => l.includes("--> COMPANY_VERIFICATION_STATUS_CHANGED") && l.includes("<-- [200]")),
      )
      assert.include(line, receiver.url)
      // Only what happened after the start.
      assert.isFalse(receiver.received.some((r) => JSON.parse(r.body).Data.CompanyId === before.companyId))
    } finally {
      child.kill("SIGINT")
      await receiver.close()
      await service.stop("SIGTERM")
    }
  }, 120_000)
})

describe("partnerpay listen and trigger, as the walkthrough runs them", () => {
  it("forwards a triggered event to the URL, signed with the stable secret, with no endpoint configured", async () => {
    const directory = mkdtempSync(join(tmpdir(), "partnerpay-trigger-"))
    const service = await startService({
      PORT: "0",
      PARTNERPAY_DATA_DIR: directory,
      PARTNERPAY_SANDBOX_CLIENT_ID: clientId,
      PARTNERPAY_SANDBOX_CLIENT_SECRET: clientSecret,
    })
    const receiver = await startReceiver()
    const env = {
      PORT: new URL(service.url).port,
      PARTNERPAY_DATA_DIR: directory,
      PARTNERPAY_SANDBOX_CLIENT_ID: clientId,
      PARTNERPAY_SANDBOX_CLIENT_SECRET: clientSecret,
    }
    const output: Array<string> = []
    const child = spawn(
      process.execPath,
      [
        "src/cli.ts",
        "listen",
        "--forward-to",
        receiver.url,
        "--events",
        "PAYMENT_REQUEST_STATUS_CHANGED",
        "--poll-ms",
        "200",
      ],
      { cwd: appDir, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env } },
    )
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
    child.stdout.on("data", (chunk: Buffer) => output.push(...chunk.toString().split("\n")))
    child.stderr.on("data", (chunk: Buffer) => output.push(...chunk.toString().split("\n")))
    try {
      const secretLine = await eventually(() => output.find((line) => line.includes("signing secret")))
      const secret = /(whsec_[A-Za-z0-9_-]+)/.exec(secretLine)![1]!
      assert.isDefined(output.find((line) => line.includes(`partner ${clientId} (from PARTNERPAY_SANDBOX_CLIENT_ID)`)))
      // Stable: printed alone, the same secret.
      const printed = await cli(["listen", "--print-secret"], env)
      assert.strictEqual(printed.stdout.trim(), secret)

      // A type not asked for is not forwarded; the one asked for is.
      const other = await cli(["trigger", "CONSENT_STATUS_CHANGED"], env)
      assert.strictEqual(other.code, 0, other.stderr)
      const triggered = await cli(["trigger", "PAYMENT_REQUEST_STATUS_CHANGED"], env)
      assert.strictEqual(triggered.code, 0, triggered.stderr)
      const id = /\[([0-9a-f-]{36})\]/.exec(triggered.stdout)![1]!
      const forwarded = await eventually(() => receiver.received.find((r) => r.headers["webhook-id"] === id))
      const headers = Object.fromEntries(Object.entries(forwarded.headers).map(([k, v]) => [k, String(v)]))
      const payload = new Webhook(`whsec_${Buffer.from(secret, "utf8").toString("base64")}`).verify(
        forwarded.body,
        headers,
      ) as { Event: string }
      assert.strictEqual(payload.Event, "PAYMENT_REQUEST_STATUS_CHANGED")
      assert.isTrue(verifyWebhook(forwarded.body, forwarded.headers, secret).ok)
      assert.isFalse(receiver.received.some((r) => JSON.parse(r.body).Event === "CONSENT_STATUS_CHANGED"))
    } finally {
      child.kill("SIGINT")
      assert.strictEqual(await exited, 0, output.join("\n"))
      await receiver.close()
      await service.stop("SIGTERM")
      rmSync(directory, { recursive: true, force: true })
    }
  }, 120_000)
})
