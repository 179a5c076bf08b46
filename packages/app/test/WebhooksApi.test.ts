/**
 * The partner's webhook tools over HTTP (issue 11 section 4, issue 14 section
 * 3), on the whole service in-process (`Service.makeLayer`) with a fresh
 * PostgreSQL database and a local receiver on an ephemeral port:
 * - the operator sets a webhook without a secret: one is generated, answered
 *   once, readable by the partner (`GET /Webhooks/Endpoint`);
 * - `POST /Sandbox/Webhooks/Test` delivers a signed test event that the
 *   documented snippet (docs/webhooks/verifyWebhook.ts, quoted in
 *   docs/api/webhooks.md) verifies, and refuses when tampered with or replayed
 *   late;
 * - `GET /Webhooks/Deliveries`, `POST .../Redeliver`, `GET /Events`: own rows
 *   only (another partner's delivery is 404), newest first, paginated;
 * - `RateLimit-*` headers on every answer;
 * - production: a webhook URL pointing to a loopback or private address is
 *   refused when set (400 naming `url`).
 */
import { readFileSync } from "node:fs"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { HttpServer } from "effect/http"
import * as Config from "../src/config/Config.ts"
import * as Logging from "../src/observability/Logging.ts"
import * as Service from "../src/Service.ts"
import { request as call } from "./Requests.ts"
import {
  eventually,
  freshDatabase,
  postgresAvailable,
  productionEnvironment,
  runSql,
  startReceiver,
} from "./support.ts"

/** The documented snippet, loaded from the docs (outside every TypeScript project, so typed here). */
const snippetUrl = new URL("../../../docs/webhooks/verifyWebhook.ts", import.meta.url)
const { toleranceSeconds, verifyWebhook } = (await import(snippetUrl.href)) as {
  readonly toleranceSeconds: number
  readonly verifyWebhook: (
    rawBody: string | Uint8Array,
    headers: Record<string, string | ReadonlyArray<string> | undefined>,
    secret: string,
    nowSeconds?: number,
  ) =>
    | { readonly ok: true; readonly eventId: string; readonly payload: unknown }
    | { readonly ok: false; readonly reason: string }
}

const adminToken = "operator-token-0123456789abcdefghijklmnop"
const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
}, 60_000)

const startInProcess = async (extra: Partial<Record<Config.Variable, string>>) => {
  const db = await freshDatabase()
  cleanups.push(db.drop)
  return (await startOn(db.url, extra)).base
}

/** The service on the database at `url`; its base URL and a function stopping it. */
const startOn = async (url: string, extra: Partial<Record<Config.Variable, string>>) => {
  const config = await Effect.runPromise(
    Config.fromRecord({
      DATABASE_URL: url,
      PORT: "0",
      PARTNERPAY_KYB_DELAY_MS: "0",
      PARTNERPAY_ADMIN_TOKEN: adminToken,
      ...extra,
    }),
  )
  const runtime = ManagedRuntime.make(
    Service.makeLayer(config, Redacted.make("t".repeat(48))).pipe(Layer.provide(Logging.layer("None"))),
  )
  cleanups.push(() => runtime.dispose())
  const base = await runtime.runPromise(
    Effect.map(HttpServer.HttpServer, (server) => HttpServer.formatAddress(server.address)),
  )
  return { base, stop: () => runtime.dispose() }
}

const admin = (base: string, method: string, path: string, body?: unknown) =>
  call(base, method, `/admin${path}`, { token: adminToken, body })

/** A new partner and its access token. */
const partner = async (base: string, name: string) => {
  const created = await admin(base, "POST", "/partners", { name })
  assert.strictEqual(created.status, 201)
  const token = await call(base, "POST", "/auth/token", {
    body: { ClientId: created.body.clientId, ClientSecret: created.body.clientSecret },
  })
  assert.strictEqual(token.status, 200)
  return { partnerId: created.body.partnerId as string, token: token.body.AccessToken as string }
}

describe("the verification snippet in the docs", () => {
  it("is quoted verbatim in docs/api/webhooks.md", () => {
    const source = readFileSync(snippetUrl, "utf8")
    const markdown = readFileSync(new URL("../../../docs/api/webhooks.md", import.meta.url), "utf8")
    const block = /```ts\n([\s\S]*?)```/.exec(markdown.slice(markdown.indexOf("## Verifying a webhook")))?.[1]
    assert.strictEqual(block, source)
  })
})

describe.skipIf(!postgresAvailable)("a sandbox partner's webhooks", () => {
  it("are signed with a generated secret the snippet verifies, listed, redelivered and readable as events", {
    timeout: 60_000,
  }, async () => {
    // Started first, so closed last: after the service (and its keep-alive connections) stopped.
    const receiver = await startReceiver()
    cleanups.push(receiver.close)
    const base = await startInProcess({ PARTNERPAY_ENV: "sandbox" })
    const a = await partner(base, "Partner A")
    const b = await partner(base, "Partner B")

    // No URL yet: no endpoint. A test event is recorded all the same (listed by GET /Events, for
    // `partnerpay listen`), its id a uuid; its delivery fails at once with a last error pointing at
    // PUT /Webhooks/Endpoint (WebhookDispatcher.test.ts). A partner of its own, so that A's lists below
    // hold A's deliveries only.
    assert.strictEqual((await call(base, "GET", "/Webhooks/Endpoint", { token: a.token })).status, 404)
    const c = await partner(base, "Partner C")
    const early = await call(base, "POST", "/Sandbox/Webhooks/Test", { token: c.token })
    assert.strictEqual(early.status, 202)
    assert.match(early.body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    const listedEvent = await call(base, "GET", `/Events/${early.body.id}`, { token: c.token })
    assert.strictEqual(listedEvent.status, 200)
    assert.strictEqual(listedEvent.body.event, "WEBHOOK_TEST")
    assert.strictEqual((await call(base, "GET", `/Events/${early.body.id}`, { token: a.token })).status, 404)

    // Set without a secret: one is generated, answered once, and readable by the partner.
    const set = await admin(base, "PUT", `/partners/${a.partnerId}/webhook`, { url: receiver.url })
    assert.strictEqual(set.status, 200)
    const secret = set.body.signingSecret as string
    assert.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/)
    const endpoint = await call(base, "GET", "/Webhooks/Endpoint", { token: a.token })
    assert.deepStrictEqual(endpoint.body, { url: receiver.url, eventTypes: null, signingSecret: secret })
    assert.strictEqual((await call(base, "GET", "/Webhooks/Endpoint", { token: b.token })).status, 404)

    // A test event arrives signed; the documented snippet accepts it.
    const test = await call(base, "POST", "/Sandbox/Webhooks/Test", { token: a.token })
    assert.strictEqual(test.status, 202)
    assert.strictEqual(test.body.event, "WEBHOOK_TEST")
    const delivery = await eventually(() => receiver.received[0])
    const verdict = verifyWebhook(delivery.body, delivery.headers, secret)
    assert.isTrue(verdict.ok)
    if (verdict.ok) {
      assert.strictEqual(verdict.eventId, test.body.id)
      assert.strictEqual((verdict.payload as { Event: string }).Event, "WEBHOOK_TEST")
    }
    // ... and refuses a tampered body, another event id, another secret, a late replay.
    const t = Number(/t=(\d+)/.exec(String(delivery.headers["x-partnerpay-signature"]))![1])
    assert.deepStrictEqual(verifyWebhook(delivery.body.replace("test", "tests"), delivery.headers, secret), {
      ok: false,
      reason: "signature mismatch",
    })
    assert.isFalse(verifyWebhook(delivery.body, { ...delivery.headers, "x-partnerpay-event-id": "other" }, secret).ok)
    assert.isFalse(verifyWebhook(delivery.body, delivery.headers, `${secret}x`).ok)
    assert.isTrue(verifyWebhook(delivery.body, delivery.headers, secret, t + toleranceSeconds).ok)
    assert.deepStrictEqual(verifyWebhook(delivery.body, delivery.headers, secret, t + toleranceSeconds + 1), {
      ok: false,
      reason: "timestamp outside tolerance",
    })
    assert.isFalse(verifyWebhook(delivery.body, { "x-partnerpay-event-id": test.body.id }, secret).ok)

    // Deliveries: A's, newest first, paginated; the receiver's answer status is kept.
    const second = await call(base, "POST", "/Sandbox/Webhooks/Test", { token: a.token })
    const third = await call(base, "POST", "/Sandbox/Webhooks/Test", { token: a.token })
    await eventually(() => (receiver.received.length >= 3 ? true : undefined))
    // Recorded as delivered by the dispatcher's next claim: wait for it.
    let page1 = await call(base, "GET", "/Webhooks/Deliveries?limit=2", { token: a.token })
    for (let i = 0; i < 100 && page1.body.data.some((d: { status: string }) => d.status !== "delivered"); i++) {
      await new Promise((done) => setTimeout(done, 50))
      page1 = await call(base, "GET", "/Webhooks/Deliveries?limit=2", { token: a.token })
    }
    assert.strictEqual(page1.status, 200)
    assert.deepStrictEqual(
      page1.body.data.map((d: { id: string }) => d.id),
      [third.body.id, second.body.id],
    )
    assert.isTrue(page1.body.hasMore)
    assert.deepStrictEqual(
      { ...page1.body.data[0], createdAt: "-", deliveredAt: typeof page1.body.data[0].deliveredAt },
      {
        id: third.body.id,
        event: "WEBHOOK_TEST",
        status: "delivered",
        attempts: 1,
        lastResponseStatus: 200,
        lastError: null,
        createdAt: "-",
        deliveredAt: "string",
        nextAttemptAt: null,
      },
    )
    const page2 = await call(base, "GET", `/Webhooks/Deliveries?limit=2&startingAfter=${second.body.id}`, {
      token: a.token,
    })
    assert.deepStrictEqual(
      page2.body.data.map((d: { id: string }) => d.id),
      [test.body.id],
    )
    assert.isFalse(page2.body.hasMore)
    const badLimit = await call(base, "GET", "/Webhooks/Deliveries?limit=0", { token: a.token })
    assert.strictEqual(badLimit.status, 400)
    assert.strictEqual(badLimit.body.errors[0].field, "query.limit")

    // Tenant isolation: B sees none of A's rows, and A's delivery id is 404 for B.
    const bList = await call(base, "GET", "/Webhooks/Deliveries", { token: b.token })
    assert.deepStrictEqual(bList.body, { data: [], hasMore: false })
    const bPage = await call(base, "GET", `/Webhooks/Deliveries?startingAfter=${third.body.id}`, { token: b.token })
    assert.deepStrictEqual(bPage.body, { data: [], hasMore: false })
    const bRedeliver = await call(base, "POST", `/Webhooks/Deliveries/${test.body.id}/Redeliver`, { token: b.token })
    assert.strictEqual(bRedeliver.status, 404)
    assert.deepStrictEqual(
      (await call(base, "POST", "/Webhooks/Deliveries/unknown/Redeliver", { token: a.token })).status,
      404,
    )

    // Redelivery: the same event id again, as a second attempt.
    const redeliver = await call(base, "POST", `/Webhooks/Deliveries/${test.body.id}/Redeliver`, { token: a.token })
    assert.strictEqual(redeliver.status, 202)
    assert.deepStrictEqual(redeliver.body, { id: test.body.id, status: "pending" })
    const again = await eventually(() => receiver.received[3])
    assert.strictEqual(again.headers["x-partnerpay-event-id"], test.body.id)
    assert.strictEqual(again.headers["x-partnerpay-delivery-attempt"], "2")
    assert.isTrue(verifyWebhook(again.body, again.headers, secret).ok)

    // Events: A's notifications with their data, newest first; none of them for B.
    const events = await call(base, "GET", "/Events?limit=10", { token: a.token })
    assert.strictEqual(events.status, 200)
    assert.deepStrictEqual(
      events.body.data.map((e: { id: string }) => e.id),
      [third.body.id, second.body.id, test.body.id],
    )
    assert.strictEqual(events.body.data[2].event, "WEBHOOK_TEST")
    assert.deepStrictEqual(events.body.data[2].data, JSON.parse(delivery.body).Data)
    assert.isFalse(events.body.hasMore)
    assert.deepStrictEqual((await call(base, "GET", "/Events", { token: b.token })).body, {
      data: [],
      hasMore: false,
    })

    // A sample of any documented event type, to try the receiver's handling of each; an unknown type is a 400.
    const sample = await call(base, "POST", "/Sandbox/Webhooks/Test", {
      token: a.token,
      body: { type: "CONSENT_STATUS_CHANGED" },
    })
    assert.strictEqual(sample.status, 202, JSON.stringify(sample.body))
    assert.strictEqual(sample.body.event, "CONSENT_STATUS_CHANGED")
    const sampled = await eventually(() =>
      receiver.received.find((r) => r.headers["x-partnerpay-event-id"] === sample.body.id),
    )
    assert.isTrue(verifyWebhook(sampled.body, sampled.headers, secret).ok)
    const sampledBody = JSON.parse(sampled.body) as { Event: string; Data: Record<string, unknown> }
    assert.strictEqual(sampledBody.Event, "CONSENT_STATUS_CHANGED")
    assert.strictEqual(sampledBody.Data.Status, "Accepted")
    assert.isString(sampledBody.Data.ConsentId)
    // Events filtered by type and resource, oldest first, one by id; an unknown type is a 400, not ignored.
    const consents = await call(base, "GET", "/Events?type=CONSENT_STATUS_CHANGED", { token: a.token })
    assert.deepStrictEqual(
      consents.body.data.map((e: { id: string }) => e.id),
      [sample.body.id],
    )
    const byResource = await call(base, "GET", `/Events?resourceId=${sampledBody.Data.ConsentId}`, { token: a.token })
    assert.deepStrictEqual(
      byResource.body.data.map((e: { id: string }) => e.id),
      [sample.body.id],
    )
    const oldestFirst = await call(base, "GET", "/Events?order=asc&limit=2", { token: a.token })
    assert.deepStrictEqual(
      oldestFirst.body.data.map((e: { id: string }) => e.id),
      [test.body.id, second.body.id],
    )
    const nextAsc = await call(base, "GET", `/Events?order=asc&limit=2&startingAfter=${second.body.id}`, {
      token: a.token,
    })
    assert.strictEqual(nextAsc.body.data[0].id, third.body.id)
    const future = new Date(Date.now() + 3_600_000).toISOString()
    const none = await call(base, "GET", `/Events?createdFrom=${future}`, { token: a.token })
    assert.deepStrictEqual(none.body, { data: [], hasMore: false })
    const badType = await call(base, "GET", "/Events?type=NOT_AN_EVENT", { token: a.token })
    assert.strictEqual(badType.status, 400)
    assert.strictEqual(badType.body.errors[0].field, "query.type")
    const one = await call(base, "GET", `/Events/${sample.body.id}`, { token: a.token })
    assert.strictEqual(one.status, 200)
    assert.deepStrictEqual(one.body.data, sampledBody.Data)
    assert.strictEqual((await call(base, "GET", `/Events/${sample.body.id}`, { token: b.token })).status, 404)
    assert.strictEqual((await call(base, "GET", "/Events/unknown-id", { token: a.token })).status, 404)

    const unknownType = await call(base, "POST", "/Sandbox/Webhooks/Test", { token: a.token, body: { type: "NOPE" } })
    assert.strictEqual(unknownType.status, 400)
    assert.strictEqual(unknownType.body.errors[0].field, "type")
    const unknownField = await call(base, "POST", "/Sandbox/Webhooks/Test", { token: a.token, body: { kind: "x" } })
    assert.strictEqual(unknownField.status, 400)
    assert.strictEqual(unknownField.body.errors[0].field, "kind")

    // A failing endpoint: the answer status is recorded, the delivery waits for its retry, and a
    // redelivery of it is refused while it is queued.
    receiver.status = 500
    const failing = await call(base, "POST", "/Sandbox/Webhooks/Test", { token: a.token })
    await eventually(() => receiver.requests.find((r) => r.headers["x-partnerpay-event-id"] === failing.body.id))
    let failed = await call(base, "GET", "/Webhooks/Deliveries?limit=1", { token: a.token })
    for (let i = 0; i < 100 && failed.body.data[0].lastResponseStatus !== 500; i++) {
      await new Promise((done) => setTimeout(done, 50))
      failed = await call(base, "GET", "/Webhooks/Deliveries?limit=1", { token: a.token })
    }
    assert.strictEqual(failed.body.data[0].id, failing.body.id)
    assert.strictEqual(failed.body.data[0].status, "pending")
    assert.strictEqual(failed.body.data[0].lastResponseStatus, 500)
    assert.strictEqual(failed.body.data[0].lastError, "the endpoint answered HTTP 500")
    assert.isString(failed.body.data[0].nextAttemptAt)
    const queued = await call(base, "POST", `/Webhooks/Deliveries/${failing.body.id}/Redeliver`, { token: a.token })
    assert.strictEqual(queued.status, 409)
    assert.strictEqual(queued.body.code, "DELIVERY_IN_PROGRESS")

    // The partner endpoints are for partners, with a token.
    assert.strictEqual((await call(base, "GET", "/Events")).status, 401)
    assert.strictEqual((await call(base, "GET", "/Webhooks/Deliveries")).status, 401)
  })

  it("carry RateLimit headers on every answer", { timeout: 30_000 }, async () => {
    const base = await startInProcess({ PARTNERPAY_ENV: "sandbox" })
    const a = await partner(base, "Partner A")
    const answers = [
      await call(base, "GET", "/Events", { token: a.token }),
      await call(base, "GET", "/Webhooks/Deliveries", { token: a.token }),
      await call(base, "GET", "/Events"),
      await call(base, "GET", "/No/Such/Route", { token: a.token }),
      await call(base, "POST", "/Sandbox/Webhooks/Test", { token: a.token }),
    ]
    for (const answer of answers) {
      assert.match(answer.headers.get("ratelimit-limit") ?? "", /^\d+$/, `status ${answer.status}`)
      assert.match(answer.headers.get("ratelimit-remaining") ?? "", /^\d+$/, `status ${answer.status}`)
      assert.match(answer.headers.get("ratelimit-reset") ?? "", /^\d+$/, `status ${answer.status}`)
    }
    // A partner's bucket: 200; each request takes a token, so fewer remain than the limit and it is not yet full
    // (the decrease itself, with a test clock: RateLimitHeaders.test.ts in adapters-http).
    const answer = await call(base, "GET", "/Events", { token: a.token })
    assert.strictEqual(answer.headers.get("ratelimit-limit"), "200")
    assert.isAtMost(Number(answer.headers.get("ratelimit-remaining")), 199)
    assert.isAtLeast(Number(answer.headers.get("ratelimit-reset")), 1)
  })
})

describe.skipIf(!postgresAvailable)("the sandbox partner's webhook without a configured secret", () => {
  it("gets a generated secret, kept across restarts", { timeout: 60_000 }, async () => {
    const db = await freshDatabase()
    cleanups.push(db.drop)
    const env = {
      PARTNERPAY_ENV: "sandbox",
      PARTNERPAY_SANDBOX_CLIENT_ID: "sandbox-client",
      PARTNERPAY_SANDBOX_CLIENT_SECRET: "sandbox-secret-0123456789",
      PARTNERPAY_SANDBOX_WEBHOOK_URL: "http://127.0.0.1:9/hooks",
    }
    const secretOf = async (base: string) => {
      const token = await call(base, "POST", "/auth/token", {
        body: { ClientId: env.PARTNERPAY_SANDBOX_CLIENT_ID, ClientSecret: env.PARTNERPAY_SANDBOX_CLIENT_SECRET },
      })
      const endpoint = await call(base, "GET", "/Webhooks/Endpoint", { token: token.body.AccessToken })
      assert.strictEqual(endpoint.body.url, env.PARTNERPAY_SANDBOX_WEBHOOK_URL)
      return endpoint.body.signingSecret as string
    }
    const first = await startOn(db.url, env)
    const secret = await secretOf(first.base)
    assert.match(secret, /^whsec_/)
    await first.stop()
    const second = await startOn(db.url, env)
    assert.strictEqual(await secretOf(second.base), secret)
  })
})

describe.skipIf(!postgresAvailable)("in production, a webhook URL", () => {
  it("pointing to a loopback, private or link-local address is refused when set (400 naming url)", {
    timeout: 30_000,
  }, async () => {
    const base = await startInProcess(productionEnvironment())
    const created = await admin(base, "POST", "/partners", { name: "Production partner" })
    const path = `/partners/${created.body.partnerId}/webhook`
    for (const url of [
      "http://127.0.0.1:8080/hooks",
      "http://localhost/hooks",
      "https://10.1.2.3/hooks",
      "https://192.168.0.10/hooks",
      "http://169.254.169.254/latest/meta-data",
      "http://[::1]/hooks",
      "http://[::ffff:127.0.0.1]/hooks",
      "http://[fd00:ec2::254]/hooks",
    ]) {
      const refused = await admin(base, "PUT", path, { url, signingSecret: "a-secret-of-the-partner" })
      assert.strictEqual(refused.status, 400, url)
      assert.strictEqual(refused.body.errors[0].field, "url", url)
    }
    // A public address is accepted (an IP literal: no DNS needed by the test).
    const accepted = await admin(base, "PUT", path, { url: "https://93.184.215.14/hooks" })
    assert.strictEqual(accepted.status, 200)
    assert.match(accepted.body.signingSecret, /^whsec_/)
    // The partner's own setting: the same addresses refused, and https only; a public https URL accepted.
    const token = await call(base, "POST", "/auth/token", {
      body: { ClientId: created.body.clientId, ClientSecret: created.body.clientSecret },
    })
    const own = (url: string) =>
      call(base, "PUT", "/Webhooks/Endpoint", { token: token.body.AccessToken, body: { url } })
    for (const url of ["https://127.0.0.1:8080/hooks", "https://169.254.169.254/x", "http://93.184.215.14/hooks"]) {
      const refused = await own(url)
      assert.strictEqual(refused.status, 400, url)
      assert.strictEqual(refused.body.errors[0].field, "url", url)
    }
    const mine = await own("https://93.184.215.14/own-hooks")
    assert.strictEqual(mine.status, 200)
    assert.strictEqual(mine.body.url, "https://93.184.215.14/own-hooks")
    // The sandbox-only test route does not exist in production.
    const created2 = await call(base, "POST", "/Sandbox/Webhooks/Test")
    assert.strictEqual(created2.status, 404)
  })
})

describe.skipIf(!postgresAvailable)("a partner setting its own webhook endpoint (PUT /Webhooks/Endpoint)", () => {
  const subscribed = "PAYMENT_REQUEST_STATUS_CHANGED"
  const other = "PAYOUT_STATUS_CHANGED"
  const eventOf = (delivery: { body: string }) => (JSON.parse(delivery.body) as { Event: string }).Event
  const v1s = (delivery: { headers: Record<string, unknown> }) =>
    String(delivery.headers["x-partnerpay-signature"])
      .split(",")
      .filter((part) => part.startsWith("v1="))

  it("gets only the types it subscribed to; a roll signs with both secrets until the old one expires", {
    timeout: 60_000,
  }, async () => {
    const receiver = await startReceiver()
    cleanups.push(receiver.close)
    const db = await freshDatabase()
    cleanups.push(db.drop)
    const { base } = await startOn(db.url, { PARTNERPAY_ENV: "sandbox" })
    const a = await partner(base, "Partner A")
    const b = await partner(base, "Partner B")

    // Set with a filter: a new secret, nothing replaced; GET shows the filter; B sees nothing.
    const set = await call(base, "PUT", "/Webhooks/Endpoint", {
      token: a.token,
      body: { url: receiver.url, eventTypes: [subscribed] },
    })
    assert.strictEqual(set.status, 200)
    const first = set.body.signingSecret as string
    assert.match(first, /^whsec_/)
    assert.isNull(set.body.previousSecretExpiresAt)
    assert.deepStrictEqual((await call(base, "GET", "/Webhooks/Endpoint", { token: a.token })).body, {
      url: receiver.url,
      eventTypes: [subscribed],
      signingSecret: first,
    })
    assert.strictEqual((await call(base, "GET", "/Webhooks/Endpoint", { token: b.token })).status, 404)

    // An unsubscribed type is not sent (its delivery says why) but stays among the events; a subscribed one is.
    const skipped = await call(base, "POST", "/Sandbox/Webhooks/Test", { token: a.token, body: { type: other } })
    assert.strictEqual(skipped.status, 202)
    const sent = await call(base, "POST", "/Sandbox/Webhooks/Test", { token: a.token, body: { type: subscribed } })
    assert.strictEqual(sent.status, 202)
    const delivered = await eventually(() => receiver.received[0])
    assert.strictEqual(eventOf(delivered), subscribed)
    assert.deepStrictEqual(v1s(delivered).length, 1)
    assert.isTrue(verifyWebhook(delivered.body, delivered.headers, first).ok)
    const deliveries = await call(base, "GET", "/Webhooks/Deliveries", { token: a.token })
    const notSent = (deliveries.body.data as Array<{ id: string; status: string; lastError: string | null }>).find(
      (d) => d.id === skipped.body.id,
    )
    assert.strictEqual(notSent?.status, "failed")
    assert.match(notSent?.lastError ?? "", /not subscribed/)
    const events = await call(base, "GET", "/Events", { token: a.token })
    assert.isTrue((events.body.data as Array<{ id: string }>).some((e) => e.id === skipped.body.id))

    // Roll: a new secret; both sign (new first) and either verifies, until the old one expires.
    const roll = await call(base, "PUT", "/Webhooks/Endpoint", {
      token: a.token,
      body: { url: receiver.url, eventTypes: [subscribed] },
    })
    assert.strictEqual(roll.status, 200)
    const second = roll.body.signingSecret as string
    assert.notStrictEqual(second, first)
    const expiresAt = Date.parse(roll.body.previousSecretExpiresAt as string)
    assert.isTrue(expiresAt > Date.now() + 23 * 60 * 60 * 1000)
    assert.strictEqual((await call(base, "GET", "/Webhooks/Endpoint", { token: a.token })).body.signingSecret, second)
    await call(base, "POST", "/Sandbox/Webhooks/Test", { token: a.token, body: { type: subscribed } })
    const during = await eventually(() => receiver.received[1])
    assert.strictEqual(v1s(during).length, 2)
    assert.isTrue(verifyWebhook(during.body, during.headers, second).ok)
    assert.isTrue(verifyWebhook(during.body, during.headers, first).ok)
    const [newest] = v1s(during)
    assert.isTrue(
      verifyWebhook(
        during.body,
        {
          ...during.headers,
          "x-partnerpay-signature": `t=${/t=(\d+)/.exec(String(during.headers["x-partnerpay-signature"]))![1]},${newest}`,
        },
        second,
      ).ok,
    )

    // The grace period over (its end moved into the past): only the new secret signs.
    await runSql(db.url, "UPDATE partners SET webhook_previous_secret_expires_at = now() - interval '1 second'")
    await call(base, "POST", "/Sandbox/Webhooks/Test", { token: a.token, body: { type: subscribed } })
    const after = await eventually(() => receiver.received[2])
    assert.strictEqual(v1s(after).length, 1)
    assert.isTrue(verifyWebhook(after.body, after.headers, second).ok)
    assert.isFalse(verifyWebhook(after.body, after.headers, first).ok)
  })
})
