/**
 * One measuring process of the Context benchmark (see `context.ts`): the API on a Node server in
 * this process (the test fixtures' in-memory ports; requests by `fetch`, so the client's work is
 * counted too, the same for every variant), warmed up, then per scenario one batch: the
 * CPU per request (`process.cpuUsage`) and the bytes allocated per request (the heap's growth over
 * a batch during which no collection ran: started with a young generation large enough, checked
 * with a `gc` performance observer). Prints one JSON line.
 */
import { createServer } from "node:http"
import { PerformanceObserver } from "node:perf_hooks"
import { getHeapStatistics } from "node:v8"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Fixtures } from "@partnerpay/domain/testing"
import { Context, Layer, ManagedRuntime } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import * as OverlayBudget from "../src/cross-cutting/OverlayBudget.ts"
import * as Server from "../src/Server.ts"
import { clientId, clientSecret, Ports } from "../test/fixtures.ts"

const batch = Number(process.env.CONTEXT_BATCH ?? 200)
/** The request contexts' overlay budget (CONTEXT_MAX_DEPTH; default the server's). */
const maxDepth = Number(process.env.CONTEXT_MAX_DEPTH ?? OverlayBudget.requestMaxDepth)
const runtime = ManagedRuntime.make(
  HttpRouter.serve(Server.Routes, {
    routerConfig: Server.routerConfig,
    disableLogger: true,
    disableListenLog: true,
  }).pipe(
    OverlayBudget.serveWith(maxDepth),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
    Layer.provide(Ports),
  ),
)
const address = (await runtime.runPromise(HttpServer.HttpServer)).address
const origin = `http://127.0.0.1:${address._tag === "InetAddressV4" ? address.port : 0}`
const json = { "content-type": "application/json" }
const tokenResponse = await fetch(`${origin}/auth/token`, {
  method: "POST",
  headers: json,
  body: JSON.stringify({ ClientId: clientId, ClientSecret: clientSecret }),
})
const token = ((await tokenResponse.json()) as { AccessToken: string }).AccessToken
let counter = 0
const auth = { authorization: `Bearer ${token}`, ...json }

const create = async () => {
  const body = Fixtures.companyRegistrationBody({ companyReferenceId: `bench-${process.pid}-${++counter}` })
  const response = await fetch(`${origin}/Company/Create`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify(body),
  })
  if (response.status !== 200) throw new Error(`create: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { companyId: string }).companyId
}
const companyId = await create()
const status = async () => {
  const response = await fetch(`${origin}/company/status?companyId=${companyId}`, { headers: auth })
  if (response.status !== 200) throw new Error(`status: ${response.status} ${await response.text()}`)
  await response.text()
}

let collections = 0
new PerformanceObserver((list) => {
  collections += list.getEntries().length
}).observe({ entryTypes: ["gc"] })

const measure = async (request: () => Promise<unknown>) => {
  for (let index = 0; index < batch; index++) await request()
  ;(globalThis as { gc?: () => void }).gc?.()
  // The observer hears of that collection asynchronously.
  await new Promise((resolve) => setTimeout(resolve, 100))
  const collectionsBefore = collections
  const heapBefore = getHeapStatistics().used_heap_size
  const cpuBefore = process.cpuUsage()
  for (let index = 0; index < batch; index++) await request()
  const cpu = process.cpuUsage(cpuBefore)
  const heapAfter = getHeapStatistics().used_heap_size
  await new Promise((resolve) => setTimeout(resolve, 100))
  return {
    cpuMicros: (cpu.user + cpu.system) / batch,
    bytes: collections === collectionsBefore ? Math.round((heapAfter - heapBefore) / batch) : null,
    collections: collections - collectionsBefore,
  }
}

/** Which Context.js runs: the patched `add` answers the context itself for a value it already holds. */
const probe = Context.Service<never, string>("bench/Probe")
const probed = Context.make(probe, "held").pipe(Context.add(Context.Service<never, string>("bench/Other"), "other"))
const patchedAdd = Context.add(probed, probe, "held") === probed

const result = {
  variant: process.env.CONTEXT_VARIANT ?? "installed",
  maxDepth,
  patchedAdd,
  create: await measure(create),
  status: await measure(status),
}
console.log(JSON.stringify(result))
await runtime.dispose()
