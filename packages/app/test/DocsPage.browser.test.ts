/**
 * The API reference page (`GET /docs`) in a real browser (headless Chromium,
 * Debian's `chromium` package, driven by playwright-core): every request the
 * page makes stays on the service (no CDN script, font or stylesheet), the
 * reference renders the operations, and a screenshot is kept
 * (`test/output/docs.png`, git-ignored) for a human to look at. Without
 * Chromium the test is skipped with a message; CI installs it, and under CI a
 * missing browser is a failure.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { chromium } from "playwright-core"
import { killAll, startService } from "./support.ts"

const chromiumPath = process.env.PARTNERPAY_CHROMIUM ?? "/usr/bin/chromium"
const available = existsSync(chromiumPath)
if (!available) {
  if (process.env.CI === "true") throw new Error(`Chromium is required under CI (looked for ${chromiumPath})`)
  console.warn(`skipping the /docs browser test: no Chromium at ${chromiumPath} (apt-get install chromium)`)
}

const outputDir = fileURLToPath(new URL("./output", import.meta.url))
const dataDir = mkdtempSync(join(tmpdir(), "partnerpay-docs-"))
afterAll(() => {
  killAll()
  rmSync(dataDir, { recursive: true, force: true })
})

describe.skipIf(!available)("the API reference page in a browser", () => {
  it("renders the operations and makes no request outside the service", async () => {
    const service = await startService({ PORT: "0", PARTNERPAY_DATA_DIR: dataDir })
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    })
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
      const requested: Array<string> = []
      page.on("request", (request) => {
        requested.push(request.url())
      })
      const answer = await page.goto(`${service.url}/docs`, { waitUntil: "networkidle" })
      assert.strictEqual(answer?.status(), 200)
      // Scalar renders the document: its title, and the operations of each group (their summaries).
      await page.getByRole("heading", { name: "partnerpay partner API" }).first().waitFor({ timeout: 30_000 })
      await page.getByText("Obtain an access token").first().waitFor({ timeout: 30_000 })
      assert.strictEqual(await page.title(), "partnerpay partner API")
      // No developer toolbar: nothing offers to upload the document (share, deploy).
      for (const name of [/share/i, /deploy/i])
        assert.strictEqual(await page.getByRole("button", { name }).count(), 0, `a ${name.source} button is shown`)
      await page.waitForLoadState("networkidle")
      mkdirSync(outputDir, { recursive: true })
      await page.screenshot({ path: join(outputDir, "docs.png"), fullPage: false })

      const outside = requested.filter(
        (url) => !url.startsWith(`${service.url}/`) && !url.startsWith("data:") && !url.startsWith("blob:"),
      )
      assert.deepStrictEqual(outside, [], `requests outside the service: ${outside.join(", ")}`)
      assert.isAbove(requested.length, 0)
    } finally {
      await browser.close()
      await service.stop()
    }
  }, 120_000)
})
