/**
 * The service's own routes beside the API's (sandbox, operator API, probes, metrics), like the API's
 * paths, answer a method they are not served with 405 and `Allow` (Server.ServedRoutes, recorded as
 * they are added); an unknown path stays 404, and the operator API's paths stay 404 when it is off.
 * The whole service (`Service.makeLayer`) runs in-process on a fresh PostgreSQL database.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { inProcessServices } from "./InProcessService.ts"
import { send } from "./Requests.ts"
import { postgresAvailable } from "./support.ts"

const services = inProcessServices()
afterAll(services.stopAll)
const startInProcess = services.start

const expect405 = async (base: string, method: string, path: string, allow: string) => {
  const response = await send(`${base}${path}`, method)
  assert.strictEqual(response.status, 405, `${method} ${path}`)
  assert.strictEqual(response.headers.get("allow"), allow, `${method} ${path}`)
  assert.strictEqual(response.headers.get("content-type"), "application/problem+json")
  const body = (await response.json()) as { code: string; allow: ReadonlyArray<string> }
  assert.strictEqual(body.code, "METHOD_NOT_ALLOWED")
  assert.deepStrictEqual(body.allow, allow.split(", "))
}

describe.skipIf(!postgresAvailable)("the service's own routes called with another method", () => {
  it("answer 405 with Allow: sandbox, operator API, probes and metrics", { timeout: 45_000 }, async () => {
    const base = await startInProcess({ PARTNERPAY_ADMIN_TOKEN: "operator-token-0123456789abcdefghijklmnop" })
    await expect405(base, "DELETE", "/Sandbox/Clock", "GET, HEAD")
    await expect405(base, "GET", "/Sandbox/Clock/Advance", "POST")
    await expect405(base, "PUT", "/Sandbox/Webhooks/Test", "POST")
    await expect405(base, "POST", "/Sandbox/Messages", "GET, HEAD")
    await expect405(base, "GET", "/Sandbox/CardPaymentMethods", "POST")
    await expect405(base, "POST", "/livez", "GET, HEAD")
    await expect405(base, "DELETE", "/readyz", "GET, HEAD")
    await expect405(base, "POST", "/metrics", "GET, HEAD")
    await expect405(base, "GET", "/admin/partners", "POST")
    await expect405(base, "GET", "/admin/partners/0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b/rotate-secret", "POST")
    // The API's paths still answer theirs, and an unknown path is still 404.
    await expect405(base, "DELETE", `/Payment/${crypto.randomUUID()}`, "GET, HEAD")
    assert.strictEqual((await send(`${base}/Sandbox/Nothing`, "GET")).status, 404)
  })

  it("keep the operator API's paths 404 when it is off", { timeout: 30_000 }, async () => {
    const base = await startInProcess({})
    assert.strictEqual((await send(`${base}/admin/partners`, "GET")).status, 404)
    await expect405(base, "POST", "/livez", "GET, HEAD")
  })
})
