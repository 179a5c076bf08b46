/**
 * Who may read `GET /metrics` (the real process, embedded database): with PARTNERPAY_METRICS_TOKEN only a
 * request carrying it as a bearer token (else 401 problem+json); with PARTNERPAY_METRICS_PORT only on its
 * own listener (404 on the public one).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { eventually, killAll, startService } from "./support.ts"

const dataDir = mkdtempSync(join(tmpdir(), "partnerpay-metrics-"))
afterAll(() => {
  killAll()
  rmSync(dataDir, { recursive: true, force: true })
})

const token = "metrics-token-0123456789-abcdefghijklmnop"

describe("GET /metrics with a token and a port of its own", () => {
  it("answers only with the token, and only on its own listener", async () => {
    const service = await startService({
      PORT: "0",
      PARTNERPAY_DATA_DIR: dataDir,
      PARTNERPAY_METRICS_TOKEN: token,
      PARTNERPAY_METRICS_PORT: "0",
    })
    try {
      const line = await eventually(() => service.output.find((l) => l.includes("partnerpay metrics listening on")))
      const metricsUrl = /listening on (http:\/\/[^\s"]+\/metrics)/.exec(line)![1]!
      // Not on the public listener.
      assert.strictEqual(
        (await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status,
        404,
      )
      // Its own listener: the token is required.
      const anonymous = await fetch(metricsUrl)
      assert.strictEqual(anonymous.status, 401)
      assert.strictEqual(anonymous.headers.get("content-type"), "application/problem+json")
      assert.strictEqual((await fetch(metricsUrl, { headers: { authorization: "Bearer wrong" } })).status, 401)
      const scraped = await fetch(metricsUrl, { headers: { authorization: `Bearer ${token}` } })
      assert.strictEqual(scraped.status, 200)
      assert.include(await scraped.text(), "partnerpay_http_requests_total")
      // The probes stay on the public listener.
      assert.strictEqual((await fetch(`${service.url}/readyz`)).status, 200)
    } finally {
      await service.stop("SIGTERM")
    }
  }, 120_000)
})
