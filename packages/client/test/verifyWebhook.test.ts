/**
 * `verifyWebhook` (Web Crypto) against the service's reference snippet
 * (docs/webhooks/verifyWebhook.ts, node:crypto): on a table of deliveries, signed here with
 * the service's own HMAC (`@partnerpay/secrets` Hmac) like the service signs them, both give the same verdict (the same rules: format,
 * tolerance both ways, several v1, missing headers); then what the client adds: a tolerance of
 * the caller's, Fetch `Headers`, header names in any case.
 */
import { assert, describe, it } from "@effect/vitest"
import { Hmac } from "@partnerpay/secrets"
import { verifyWebhook } from "../src/index.ts"

type Headers = Record<string, string | ReadonlyArray<string> | undefined>
type ReferenceVerdict = { ok: true; eventId: string; payload: unknown } | { ok: false; reason: string }

const snippetUrl = new URL("../../../docs/webhooks/verifyWebhook.ts", import.meta.url)
const reference = (await import(snippetUrl.href)) as {
  readonly toleranceSeconds: number
  readonly verifyWebhook: (
    rawBody: string | Uint8Array,
    headers: Headers,
    secret: string,
    now?: number,
  ) => ReferenceVerdict
}

const secret = "whsec_test-secret"
const now = 1_764_000_000
const eventId = "6f1e2d3c-4b5a-4987-8a6b-5c4d3e2f1a0b"
const body = JSON.stringify({
  Live: false,
  Event: "COMPANY_VERIFICATION_STATUS_CHANGED",
  Data: { CompanyId: "c-1", Status: "Verified", note: "café ✓" },
})

/** v1 as the service computes it: hex HMAC-SHA256 of `<t>.<event id>.<raw body>`. */
const sign = (t: number, id = eventId, raw: string = body, key = secret) => Hmac.sha256Hex(key, `${t}.${id}.${raw}`)

const delivery = (signature: string, id: string | undefined = eventId): Headers => ({
  "content-type": "application/json",
  "x-partnerpay-signature": signature,
  ...(id === undefined ? {} : { "x-partnerpay-event-id": id }),
})

const cases: ReadonlyArray<readonly [string, string | Uint8Array, Headers]> = [
  ["a valid signature", body, delivery(`t=${now},v1=${sign(now)}`)],
  ["a valid signature, raw bytes", new TextEncoder().encode(body), delivery(`t=${now},v1=${sign(now)}`)],
  ["spaces after the commas", body, delivery(`t=${now}, v1=${sign(now)}`)],
  [
    "header values as arrays (first taken)",
    body,
    { ...delivery(`t=${now},v1=${sign(now)}`), "x-partnerpay-signature": [`t=${now},v1=${sign(now)}`, "junk"] },
  ],
  ["a tampered body", body.replace("Verified", "Rejected"), delivery(`t=${now},v1=${sign(now)}`)],
  ["another event id", body, delivery(`t=${now},v1=${sign(now)}`, "00000000-0000-4000-8000-000000000000")],
  ["another secret", body, delivery(`t=${now},v1=${sign(now, eventId, body, "whsec_other")}`)],
  ["the timestamp changed", body, delivery(`t=${now + 1},v1=${sign(now)}`)],
  ["exactly 300 s old", body, delivery(`t=${now - 300},v1=${sign(now - 300)}`)],
  ["301 s old", body, delivery(`t=${now - 301},v1=${sign(now - 301)}`)],
  ["300 s ahead", body, delivery(`t=${now + 300},v1=${sign(now + 300)}`)],
  ["301 s ahead", body, delivery(`t=${now + 301},v1=${sign(now + 301)}`)],
  [
    "several v1, one matches (rotation)",
    body,
    delivery(`t=${now},v1=${sign(now, eventId, body, "old")},v1=${sign(now)}`),
  ],
  [
    "several v1, none matches",
    body,
    delivery(`t=${now},v1=${sign(now, eventId, body, "a")},v1=${sign(now, eventId, body, "b")}`),
  ],
  ["no signature header", body, { "x-partnerpay-event-id": eventId }],
  ["no event id header", body, delivery(`t=${now},v1=${sign(now)}`, undefined)],
  ["no t", body, delivery(`v1=${sign(now)}`)],
  ["t not a number", body, delivery(`t=12a,v1=${sign(now)}`)],
  ["no v1", body, delivery(`t=${now}`)],
  ["v1 in uppercase hex", body, delivery(`t=${now},v1=${sign(now).toUpperCase()}`)],
  ["v1 too short", body, delivery(`t=${now},v1=${sign(now).slice(2)}`)],
  ["only a v0", body, delivery(`t=${now},v0=${sign(now)}`)],
  ["the X-HMAC-Signature form", body, delivery(`sha256=${sign(now)}`)],
]

describe("verifyWebhook: the reference snippet's rules", () => {
  for (const [name, raw, headers] of cases) {
    it(`${name}: the same verdict as docs/webhooks/verifyWebhook.ts`, async () => {
      const expected = reference.verifyWebhook(raw, headers, secret, now)
      const actual = await verifyWebhook(raw, headers, secret, { nowSeconds: now })
      assert.deepStrictEqual(actual, expected)
    })
  }

  it("the table covers every verdict of the snippet", () => {
    const reasons = new Set(
      cases.map(([, raw, headers]) => {
        const verdict = reference.verifyWebhook(raw, headers, secret, now)
        return verdict.ok ? "ok" : verdict.reason
      }),
    )
    assert.deepStrictEqual([...reasons].sort(), [
      "malformed signature",
      "missing signature headers",
      "ok",
      "signature mismatch",
      "timestamp outside tolerance",
    ])
  })

  it("the default tolerance is the snippet's (5 minutes)", async () => {
    assert.strictEqual(reference.toleranceSeconds, 300)
    const verdict = await verifyWebhook(body, delivery(`t=${now - 301},v1=${sign(now - 301)}`), secret, {
      nowSeconds: now,
    })
    assert.deepStrictEqual(verdict, { ok: false, reason: "timestamp outside tolerance" })
  })
})

describe("verifyWebhook: beyond the snippet", () => {
  it("toleranceSeconds sets the window", async () => {
    const headers = delivery(`t=${now - 60},v1=${sign(now - 60)}`)
    assert.strictEqual((await verifyWebhook(body, headers, secret, { nowSeconds: now, toleranceSeconds: 60 })).ok, true)
    assert.deepStrictEqual(await verifyWebhook(body, headers, secret, { nowSeconds: now, toleranceSeconds: 59 }), {
      ok: false,
      reason: "timestamp outside tolerance",
    })
  })

  it("uses the clock when no time is given", async () => {
    const t = Math.floor(Date.now() / 1000)
    const verdict = await verifyWebhook(body, delivery(`t=${t},v1=${sign(t)}`), secret)
    assert.strictEqual(verdict.ok, true)
  })

  it("reads a Fetch Headers object (edge runtimes, service workers)", async () => {
    const headers = new Headers({
      "X-Partnerpay-Signature": `t=${now},v1=${sign(now)}`,
      "X-Partnerpay-Event-Id": eventId,
    })
    const verdict = await verifyWebhook(body, headers, secret, { nowSeconds: now })
    assert.deepStrictEqual(verdict, { ok: true, eventId, payload: JSON.parse(body) })
  })

  it("matches header names whatever their case in a plain object", async () => {
    const headers = { "X-Partnerpay-Signature": `t=${now},v1=${sign(now)}`, "X-PARTNERPAY-EVENT-ID": eventId }
    const verdict = await verifyWebhook(body, headers, secret, { nowSeconds: now })
    assert.strictEqual(verdict.ok, true)
  })

  it("the payload is typed by Event", async () => {
    const verdict = await verifyWebhook(body, delivery(`t=${now},v1=${sign(now)}`), secret, { nowSeconds: now })
    assert.isTrue(verdict.ok)
    if (verdict.ok && verdict.payload.Event === "COMPANY_VERIFICATION_STATUS_CHANGED") {
      assert.strictEqual(verdict.payload.Data.Status, "Verified")
    } else {
      assert.fail("expected a company verification event")
    }
  })
})
