/**
 * `partnerpay listen --forward-to <url>` against the real service (embedded database): it reads the
 * partner's events over the API and forwards each new one to a local receiver, signed with the
 * session's secret it printed (the documented verification accepts it), one line per delivery with the
 * receiver's status; events older than its start are not forwarded.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { on } from "./Requests.ts"
import { appDir, companyBody, eventually, killAll, startReceiver, startService } from "./support.ts"

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
