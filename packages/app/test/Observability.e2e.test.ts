/**
 * Metrics and traces of the real service process: `GET /metrics` in the
 * Prometheus text format (requests by route and status with latency
 * histograms, event appends, outbox backlog, worker runs), and OpenTelemetry
 * spans exported to an OTLP/HTTP endpoint (a local receiver here), the
 * request's span continuing the caller's `traceparent`.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { companyBody, eventually, killAll, startReceiver, startService } from "./support.ts"

const clientId = "observability-e2e-client"
const clientSecret = "observability-e2e-secret-0123456789"

const dataDirs: Array<string> = []
const freshDataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "partnerpay-observability-"))
  dataDirs.push(dir)
  return dir
}
afterAll(() => {
  killAll()
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true })
})

interface Sample {
  readonly name: string
  readonly labels: Record<string, string>
  readonly value: number
}

/** The samples of a Prometheus text exposition (comment lines skipped). */
const samples = (text: string): Array<Sample> =>
  text
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
      if (match === null) throw new Error(`not a Prometheus sample line: ${line}`)
      const labels: Record<string, string> = {}
      for (const pair of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
        labels[pair[1]!] = pair[2]!
      }
      return { name: match[1]!, labels, value: Number(match[3]) }
    })

const find = (all: ReadonlyArray<Sample>, name: string, labels: Record<string, string> = {}) =>
  all.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  )

describe("the service's metrics and traces", () => {
  it("serves Prometheus metrics and exports the spans of a request to the OTLP endpoint", async () => {
    const collector = await startReceiver()
    try {
      const service = await startService({
        PORT: "0",
        PARTNERPAY_DATA_DIR: freshDataDir(),
        PARTNERPAY_SANDBOX_CLIENT_ID: clientId,
        PARTNERPAY_SANDBOX_CLIENT_SECRET: clientSecret,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: collector.url,
        OTEL_SERVICE_NAME: "partnerpay-observability-test",
        OTEL_BSP_SCHEDULE_DELAY: "100",
      })
      const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
      const live = await fetch(`${service.url}/livez`, {
        headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
      })
      assert.strictEqual(live.status, 200)

      const token = (
        (await (
          await fetch(`${service.url}/auth/token`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ ClientId: clientId, ClientSecret: clientSecret }),
          })
        ).json()) as { AccessToken: string }
      ).AccessToken
      const partner = { authorization: `Bearer ${token}`, "content-type": "application/json" }
      const created = await fetch(`${service.url}/Company/Create`, {
        method: "POST",
        headers: partner,
        body: JSON.stringify(companyBody({ companyReferenceId: `metrics-${crypto.randomUUID()}` })),
      })
      assert.strictEqual(created.status, 200)
      const missing = await fetch(`${service.url}/company/status?companyId=${crypto.randomUUID()}`, {
        headers: partner,
      })
      assert.strictEqual(missing.status, 404)
      assert.strictEqual((await fetch(`${service.url}/no/such/path`)).status, 404)

      // Workers count their steps: wait until the scheduler has run once.
      const scrape = async () => {
        const response = await fetch(`${service.url}/metrics`)
        assert.strictEqual(response.status, 200)
        assert.match(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/)
        return samples(await response.text())
      }
      let metrics = await scrape()
      for (let i = 0; i < 100 && find(metrics, "partnerpay_worker_runs_total").length === 0; i++) {
        await new Promise((done) => setTimeout(done, 100))
        metrics = await scrape()
      }

      const requests = (route: string, status: string) =>
        find(metrics, "partnerpay_http_requests_total", { route, status }).reduce((sum, s) => sum + s.value, 0)
      assert.strictEqual(requests("/Company/Create", "200"), 1)
      assert.strictEqual(requests("/company/status", "404"), 1)
      assert.strictEqual(requests("/livez", "200"), 1)
      // A path no route knows is one bounded series, not one per path.
      assert.strictEqual(requests("unmatched", "404"), 1)
      assert.lengthOf(find(metrics, "partnerpay_http_requests_total", { route: "/no/such/path" }), 0)

      const createdBuckets = find(metrics, "partnerpay_http_request_duration_seconds_bucket", {
        route: "/Company/Create",
      })
      assert.isAbove(createdBuckets.length, 5)
      assert.strictEqual(
        find(createdBuckets, "partnerpay_http_request_duration_seconds_bucket", { le: "+Inf" })[0]?.value,
        1,
      )

      assert.isAtLeast(find(metrics, "partnerpay_events_appended_total")[0]?.value ?? 0, 1)
      assert.isAtLeast(find(metrics, "partnerpay_units_of_work_total", { outcome: "committed" })[0]?.value ?? 0, 1)
      assert.lengthOf(find(metrics, "partnerpay_outbox_backlog"), 1)
      assert.lengthOf(find(metrics, "partnerpay_outbox_oldest_age_seconds"), 1)
      assert.isAtLeast(
        find(metrics, "partnerpay_worker_runs_total", { worker: "payment-plan-scheduler" }).reduce(
          (sum, s) => sum + s.value,
          0,
        ),
        1,
      )

      // The Node.js runtime: process and event loop, heap and garbage collection.
      assert.isAbove(find(metrics, "process_resident_memory_bytes")[0]?.value ?? 0, 0)
      assert.isAbove(find(metrics, "process_cpu_seconds_total")[0]?.value ?? 0, 0)
      assert.lengthOf(find(metrics, "nodejs_eventloop_lag_seconds"), 1)
      assert.isAbove(find(metrics, "nodejs_heap_size_used_bytes")[0]?.value ?? 0, 0)
      const exposition = await (await fetch(`${service.url}/metrics`)).text()
      assert.include(exposition, "# TYPE nodejs_gc_duration_seconds histogram")

      // The request's span continues the caller's trace and reaches the collector.
      const exported = await eventually(() => {
        const bodies = collector.received.map((request) => request.body).join("\n")
        return bodies.includes(traceId) ? bodies : undefined
      })
      assert.include(exported, "partnerpay-observability-test")
      assert.include(collector.received[0]?.headers["content-type"] ?? "", "application/json")
      await service.stop()
    } finally {
      await collector.close()
    }
  }, 120_000)

  it("does not serve /metrics when PARTNERPAY_METRICS=off", async () => {
    const service = await startService({
      PORT: "0",
      PARTNERPAY_DATA_DIR: freshDataDir(),
      PARTNERPAY_METRICS: "off",
    })
    assert.strictEqual((await fetch(`${service.url}/metrics`)).status, 404)
    await service.stop()
  }, 60_000)
})
