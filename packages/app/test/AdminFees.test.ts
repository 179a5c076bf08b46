/**
 * The operator's fee schedules over the admin API (`FeeOperations.ts`): none by default, set per rail,
 * a bad field refused with 400 naming it and nothing changed, unknown partners 404. The whole service
 * runs in-process on a fresh PostgreSQL database (skipped loudly without a server; see support.ts).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { HttpServer } from "effect/http"
import * as Config from "../src/config/Config.ts"
import * as Logging from "../src/observability/Logging.ts"
import * as Service from "../src/Service.ts"
import { request as call } from "./Requests.ts"
import { freshDatabase, postgresAvailable } from "./support.ts"

const adminToken = "operator-token-0123456789abcdefghijklmnop"
const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

const startInProcess = async () => {
  const db = await freshDatabase()
  cleanups.push(db.drop)
  const config = await Effect.runPromise(
    Config.fromRecord({ DATABASE_URL: db.url, PORT: "0", PARTNERPAY_ADMIN_TOKEN: adminToken }),
  )
  const runtime = ManagedRuntime.make(
    Service.makeLayer(config, Redacted.make("t".repeat(48))).pipe(Layer.provide(Logging.layer("None"))),
  )
  cleanups.push(() => runtime.dispose())
  return await runtime.runPromise(
    Effect.map(HttpServer.HttpServer, (server) => HttpServer.formatAddress(server.address)),
  )
}

const none = { percentageBasisPoints: 0, fixed: null, providerCost: null, returnFee: null, returnFeePassedOn: false }

describe.skipIf(!postgresAvailable)("a partner's fee schedule over the operator API", () => {
  it("is none until set; set per rail; a bad field is a 400 naming it, nothing changed", {
    timeout: 45_000,
  }, async () => {
    const base = await startInProcess()
    const admin = (method: string, path: string, body?: unknown) =>
      call(base, method, `/admin${path}`, { token: adminToken, body })
    const { partnerId } = (await admin("POST", "/partners", { name: "Fees Partner" })).body as { partnerId: string }

    const initial = await admin("GET", `/partners/${partnerId}/fees`)
    assert.strictEqual(initial.status, 200)
    assert.deepStrictEqual(initial.body, {
      partnerId,
      rails: [
        { rail: "AchDebit", ...none },
        { rail: "Card", ...none },
      ],
    })

    const ach = {
      percentageBasisPoints: 100,
      fixed: { value: 0.3, currencyCode: "USD" },
      providerCost: { value: 0.25, currencyCode: "USD" },
      returnFee: { value: 5, currencyCode: "USD" },
      returnFeePassedOn: true,
    }
    const set = await admin("PUT", `/partners/${partnerId}/fees/AchDebit`, ach)
    assert.strictEqual(set.status, 200)
    assert.deepStrictEqual(set.body.rails, [
      { rail: "AchDebit", ...ach },
      { rail: "Card", ...none },
    ])

    const bad = await admin("PUT", `/partners/${partnerId}/fees/Card`, {
      percentageBasisPoints: 10_001,
      fixed: { value: -1, currencyCode: "USD" },
      returnFee: { value: 0.001, currencyCode: "USD" },
      color: "blue",
    })
    assert.strictEqual(bad.status, 400)
    assert.strictEqual(bad.headers.get("content-type"), "application/problem+json")
    assert.sameMembers(
      bad.body.errors.map((error: { field: string }) => error.field),
      ["color", "fixed.value", "returnFee.value", "percentageBasisPoints"],
    )
    const badRail = await admin("PUT", `/partners/${partnerId}/fees/Wire`, { percentageBasisPoints: 1 })
    assert.strictEqual(badRail.status, 400)
    assert.deepStrictEqual(
      badRail.body.errors.map((error: { field: string }) => error.field),
      ["rail"],
    )
    assert.deepStrictEqual((await admin("GET", `/partners/${partnerId}/fees`)).body, set.body)

    const unknown = "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b"
    assert.strictEqual((await admin("GET", `/partners/${unknown}/fees`)).status, 404)
    assert.strictEqual((await admin("PUT", `/partners/${unknown}/fees/Card`, { percentageBasisPoints: 1 })).status, 404)
    assert.strictEqual((await call(base, "GET", `/admin/partners/${partnerId}/fees`)).status, 401)
  })
})
