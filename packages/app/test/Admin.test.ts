/**
 * The operator API (/admin): off without PARTNERPAY_ADMIN_TOKEN, bearer
 * authentication, failed tokens throttled per client address, each
 * operation's answer, secret rotation, and absence from the partner OpenAPI
 * document. The whole service (`Service.makeLayer`) runs
 * in-process on a fresh PostgreSQL database (skipped loudly without a server,
 * failing with CI=true; see support.ts).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Redacted } from "effect"
import { isAuthorized } from "../src/operator/Admin.ts"
import { inProcessServices } from "./InProcessService.ts"
import { request as call } from "./Requests.ts"
import { companyBody, eventually, postgresAvailable, startReceiver } from "./support.ts"

const adminToken = "operator-token-0123456789abcdefghijklmnop"
const services = inProcessServices()
afterAll(services.stopAll)
const startInProcess = services.start

const admin = (base: string, method: string, path: string, body?: unknown) =>
  call(base, method, `/admin${path}`, { token: adminToken, body })

const tokenStatus = async (base: string, clientId: string, clientSecret: string) =>
  (await call(base, "POST", "/auth/token", { body: { ClientId: clientId, ClientSecret: clientSecret } })).status

describe("the admin token check", () => {
  const token = Redacted.make(adminToken)
  it("accepts exactly `Bearer <token>`", () => {
    assert.isTrue(isAuthorized(`Bearer ${adminToken}`, token))
    assert.isTrue(isAuthorized(`bearer ${adminToken}`, token))
    assert.isFalse(isAuthorized(undefined, token))
    assert.isFalse(isAuthorized(adminToken, token))
    assert.isFalse(isAuthorized(`Bearer ${adminToken}x`, token))
    assert.isFalse(isAuthorized(`Bearer ${adminToken.slice(0, -1)}`, token))
    assert.isFalse(isAuthorized("Bearer ", token))
  })
})

describe.skipIf(!postgresAvailable)("the operator API", () => {
  it("does not exist without PARTNERPAY_ADMIN_TOKEN: every /admin path is 404", { timeout: 30_000 }, async () => {
    const base = await startInProcess({})
    for (const [method, path] of [
      ["POST", "/admin/partners"],
      ["GET", "/admin/webhooks/deliveries"],
      ["POST", "/admin/partners/0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b/rotate-secret"],
    ] as const) {
      const answer = await call(base, method, path, { token: adminToken, body: method === "GET" ? undefined : {} })
      assert.strictEqual(answer.status, 404, `${method} ${path}`)
      assert.strictEqual(answer.headers.get("content-type"), "application/problem+json")
    }
  })

  it("serves every operation to the operator only", { timeout: 45_000 }, async () => {
    const receiver = await startReceiver()
    services.onStop(receiver.close)
    const base = await startInProcess({ PARTNERPAY_ADMIN_TOKEN: adminToken })

    // Authentication: missing or wrong token -> 401 problem.
    const missing = await call(base, "POST", "/admin/partners", { body: { name: "Acme" } })
    assert.strictEqual(missing.status, 401)
    assert.strictEqual(missing.headers.get("content-type"), "application/problem+json")
    assert.strictEqual(missing.headers.get("www-authenticate"), "Bearer")
    const wrong = await call(base, "GET", "/admin/webhooks/deliveries", { token: `${adminToken}-wrong` })
    assert.strictEqual(wrong.status, 401)
    assert.strictEqual(wrong.body.code, "UNAUTHORIZED")

    // The platform's books: the operator's only; an unknown parameter or a bad instant is a 400 naming it.
    assert.strictEqual((await call(base, "GET", "/admin/ledger/trial-balance")).status, 401)
    const books = await call(base, "GET", "/admin/ledger/trial-balance", { token: adminToken })
    assert.strictEqual(books.status, 200)
    assert.deepInclude(books.body, { asOf: null, balanced: true, discrepancies: [] })
    const unknownParameter = await call(base, "GET", "/admin/ledger/trial-balance?as_of=2026-03-31T23:59:59Z", {
      token: adminToken,
    })
    assert.strictEqual(unknownParameter.status, 400)
    assert.strictEqual(unknownParameter.body.errors[0].field, "query.as_of")
    const badInstant = await call(base, "GET", "/admin/ledger/trial-balance?asOf=2026-03-31", { token: adminToken })
    assert.strictEqual(badInstant.status, 400)
    assert.strictEqual(badInstant.body.errors[0].field, "query.asOf")

    // Not part of the partner OpenAPI document.
    const openapi = await call(base, "GET", "/openapi.json")
    assert.strictEqual(openapi.status, 200)
    const paths = Object.keys(openapi.body.paths as object)
    assert.isAbove(paths.length, 5)
    assert.deepStrictEqual(
      paths.filter((path) => path.toLowerCase().startsWith("/admin")),
      [],
    )

    // Create: the secret is shown once, and it works.
    const created = await admin(base, "POST", "/partners", { name: "Acme Payroll" })
    assert.strictEqual(created.status, 201)
    assert.deepStrictEqual(Object.keys(created.body).sort(), ["clientId", "clientSecret", "partnerId"])
    const { partnerId, clientId, clientSecret } = created.body as Record<string, string>
    assert.match(partnerId!, /^[0-9a-f-]{36}$/)
    assert.strictEqual(await tokenStatus(base, clientId!, clientSecret!), 200)
    const unnamed = await admin(base, "POST", "/partners", { name: "  " })
    assert.strictEqual(unnamed.status, 422)
    assert.deepStrictEqual(
      unnamed.body.errors.map((error: { field: string }) => error.field),
      ["name"],
    )
    const malformed = await admin(base, "POST", "/partners", { nom: "x" })
    assert.strictEqual(malformed.status, 400)

    // Webhook: the signing secret is never echoed.
    const webhook = await admin(base, "PUT", `/partners/${partnerId}/webhook`, {
      url: receiver.url,
      signingSecret: "whsec-admin-test",
    })
    assert.strictEqual(webhook.status, 200)
    assert.deepStrictEqual(webhook.body, { partnerId, url: receiver.url })
    const badWebhook = await admin(base, "PUT", `/partners/${partnerId}/webhook`, { url: "ftp://x", signingSecret: "" })
    assert.strictEqual(badWebhook.status, 422)
    assert.deepStrictEqual(
      badWebhook.body.errors.map((error: { field: string }) => error.field),
      ["url", "signingSecret"],
    )
    const unknownPartner = await admin(base, "PUT", "/partners/0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b/webhook", {
      url: receiver.url,
      signingSecret: "s",
    })
    assert.strictEqual(unknownPartner.status, 404)
    assert.strictEqual((await admin(base, "POST", "/partners/not-a-uuid/rotate-secret")).status, 404)

    // Revoking tokens: a token obtained before is 401 (renewal too), the secret still logs in.
    const login = async (secret: string) =>
      (await call(base, "POST", "/auth/token", { body: { ClientId: clientId, ClientSecret: secret } })).body
        .AccessToken as string
    const renewStatus = async (token: string) => (await call(base, "GET", "/Auth/ExchangeToken", { token })).status
    const beforeRevocation = await login(clientSecret!)
    assert.strictEqual(await renewStatus(beforeRevocation), 200)
    const revoked = await admin(base, "POST", `/partners/${partnerId}/revoke-tokens`)
    assert.strictEqual(revoked.status, 200)
    assert.deepStrictEqual(Object.keys(revoked.body).sort(), ["partnerId", "tokenGeneration"])
    assert.strictEqual(revoked.body.partnerId, partnerId)
    assert.strictEqual(await renewStatus(beforeRevocation), 401)
    const afterRevocation = await login(clientSecret!)
    assert.strictEqual(await renewStatus(afterRevocation), 200)
    assert.strictEqual(
      (await admin(base, "POST", "/partners/0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b/revoke-tokens")).status,
      404,
    )
    assert.strictEqual((await admin(base, "POST", "/partners/not-a-uuid/revoke-tokens")).status, 404)

    // Rotation: the old secret and the tokens issued so far stop working, the new secret works.
    const rotated = await admin(base, "POST", `/partners/${partnerId}/rotate-secret`)
    assert.strictEqual(rotated.status, 200)
    assert.deepStrictEqual(Object.keys(rotated.body).sort(), ["clientId", "clientSecret", "partnerId"])
    assert.strictEqual(rotated.body.clientId, clientId)
    assert.notStrictEqual(rotated.body.clientSecret, clientSecret)
    assert.strictEqual(await tokenStatus(base, clientId!, clientSecret!), 401)
    assert.strictEqual(await tokenStatus(base, clientId!, rotated.body.clientSecret), 200)
    assert.strictEqual(await renewStatus(afterRevocation), 401)

    // A delivery: register a company; the sandbox KYB decides at once and the partner is notified.
    const token = await call(base, "POST", "/auth/token", {
      body: { ClientId: clientId, ClientSecret: rotated.body.clientSecret },
    })
    const company = await call(base, "POST", "/Company/Create", {
      token: token.body.AccessToken,
      body: companyBody({ companyReferenceId: "admin-1" }),
    })
    assert.strictEqual(company.status, 200, JSON.stringify(company.body))
    await eventually(() => (receiver.received.length > 0 ? true : undefined))
    let resolved = await admin(base, "GET", "/webhooks/deliveries?status=delivered&limit=10")
    for (let i = 0; i < 100 && resolved.body.data.length === 0; i++) {
      await new Promise((done) => setTimeout(done, 100))
      resolved = await admin(base, "GET", "/webhooks/deliveries?status=delivered&limit=10")
    }
    assert.strictEqual(resolved.status, 200)
    const entry = resolved.body.data[0]
    assert.deepStrictEqual(Object.keys(entry).sort(), [
      "attempts",
      "createdAt",
      "deliveredAt",
      "eventType",
      "id",
      "lastError",
      "nextAttemptAt",
      "partnerId",
      "status",
    ])
    assert.strictEqual(entry.partnerId, partnerId)
    assert.strictEqual(entry.eventType, "COMPANY_VERIFICATION_STATUS_CHANGED")
    assert.strictEqual(entry.status, "delivered")
    assert.strictEqual(entry.attempts, 1)
    assert.notInclude(JSON.stringify(resolved.body), "whsec-admin-test")
    assert.strictEqual((await admin(base, "GET", "/webhooks/deliveries?status=lost")).status, 400)
    assert.strictEqual((await admin(base, "GET", "/webhooks/deliveries?limit=0")).status, 400)

    // Redelivery: queued again and delivered again with the same event id.
    const redelivered = await admin(base, "POST", `/webhooks/deliveries/${entry.id}/redeliver`)
    assert.strictEqual(redelivered.status, 202)
    assert.deepStrictEqual(redelivered.body, { id: entry.id, status: "pending" })
    await eventually(() =>
      receiver.received.filter((hook) => hook.headers["x-partnerpay-event-id"] === entry.id).length >= 2
        ? true
        : undefined,
    )
    assert.strictEqual((await admin(base, "POST", "/webhooks/deliveries/no-such-delivery/redeliver")).status, 404)
  })

  it("throttles failed operator tokens per client address: 429 with Retry-After, even for the right token", {
    timeout: 30_000,
  }, async () => {
    // Behind one proxy (this test's socket): the X-Forwarded-For entry the proxy appended is the client.
    const base = await startInProcess({ PARTNERPAY_ADMIN_TOKEN: adminToken, PARTNERPAY_TRUST_PROXY: "1" })
    const from = (address: string, token: string) =>
      call(base, "GET", "/admin/webhooks/deliveries", { token, headers: { "x-forwarded-for": address } })
    for (let i = 0; i < 10; i++) assert.strictEqual((await from("203.0.113.66", `wrong-token-${i}`)).status, 401)
    for (const token of ["wrong-token", adminToken]) {
      const refused = await from("203.0.113.66", token)
      assert.strictEqual(refused.status, 429)
      assert.strictEqual(refused.headers.get("content-type"), "application/problem+json")
      assert.strictEqual(refused.body.code, "RATE_LIMITED")
      assert.isAtLeast(Number(refused.headers.get("retry-after")), 1)
    }
    // Another address, and the one a client names left of the proxy's entry, are not held back.
    assert.strictEqual((await from("198.51.100.7", adminToken)).status, 200)
    assert.strictEqual((await from("203.0.113.66, 198.51.100.7", adminToken)).status, 200)
  })
})
