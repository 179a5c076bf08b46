/**
 * The partner's webhook endpoints on the in-memory ports (the `WebhookLog`
 * memory layer over the memory outbox: nothing is delivered there, every
 * notification is pending): who may call them, tenant isolation, pages,
 * input errors, and their OpenAPI description. Delivery itself, signatures
 * and the PostgreSQL adapter: packages/app/test/WebhooksApi.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Ids, Outbox } from "@partnerpay/domain"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { bearer, otherPartnerId, partnerId, postJson, send } from "./fixtures.ts"
import { customerToken, makeSharedServer, partnerTokenFor } from "./partyFixtures.ts"

const { handler, run, dispose } = await makeSharedServer()
afterAll(dispose)

const partner = await Effect.runPromise(partnerTokenFor(partnerId))
const otherPartner = await Effect.runPromise(partnerTokenFor(otherPartnerId))
const customer = await Effect.runPromise(
  customerToken(partnerId, "7e57ab1e-0000-4000-8000-0000000000c1" as Ids.RegistrationId),
)

const notification = (owner: string, k: number): Outbox.Webhook => ({
  id: crypto.randomUUID(),
  partnerId: owner,
  eventType: "PAYMENT_REQUEST_STATUS_CHANGED",
  data: { K: k },
  position: k,
})
const mine = [1, 2, 3].map((k) => notification(partnerId, k))
const theirs = notification(otherPartnerId, 4)
await Effect.runPromise(
  run(
    Effect.gen(function* () {
      const outbox = yield* Outbox.Outbox
      yield* outbox.record([...mine, theirs])
    }),
  ),
)

const redeliver = (id: string, token: string) =>
  send(handler, `/Webhooks/Deliveries/${id}/Redeliver`, { ...postJson({}), ...bearer(token), method: "POST" })

describe("the partner webhook endpoints", () => {
  it.effect("are for partners: a customer token is 403, no token 401", () =>
    Effect.gen(function* () {
      for (const path of ["/Events", "/Webhooks/Deliveries", "/Webhooks/Endpoint"]) {
        assert.strictEqual((yield* send(handler, path, bearer(customer))).status, 403, path)
        assert.strictEqual((yield* send(handler, path)).status, 401, path)
      }
      assert.strictEqual((yield* redeliver(mine[0]!.id, customer)).status, 403)
    }),
  )

  it.effect("list only the caller's notifications, newest first, a page at a time", () =>
    Effect.gen(function* () {
      const page = yield* send(handler, "/Events?limit=2", bearer(partner))
      assert.strictEqual(page.status, 200)
      const body = page.json as { data: Array<{ id: string; event: string; data: unknown }>; hasMore: boolean }
      assert.deepStrictEqual(
        body.data.map((e) => e.id),
        [mine[2]!.id, mine[1]!.id],
      )
      assert.deepStrictEqual(body.data[0]!.data, { K: 3 })
      assert.isTrue(body.hasMore)
      const rest = yield* send(handler, `/Events?limit=2&startingAfter=${mine[1]!.id}`, bearer(partner))
      assert.deepStrictEqual(rest.json, {
        data: [
          {
            id: mine[0]!.id,
            event: "PAYMENT_REQUEST_STATUS_CHANGED",
            data: { K: 1 },
            createdAt: "1970-01-01T00:00:00.000Z",
          },
        ],
        hasMore: false,
      })
      const deliveries = yield* send(handler, "/Webhooks/Deliveries", bearer(otherPartner))
      const theirList = deliveries.json as { data: Array<{ id: string; status: string }> }
      assert.deepStrictEqual(
        theirList.data.map((d) => [d.id, d.status]),
        [[theirs.id, "pending"]],
      )
      // Another partner's id as a cursor: an empty page, nothing learnt.
      const foreign = yield* send(handler, `/Webhooks/Deliveries?startingAfter=${mine[0]!.id}`, bearer(otherPartner))
      assert.deepStrictEqual(foreign.json, { data: [], hasMore: false })
    }),
  )

  it.effect("redeliver: another partner's delivery is 404, a queued one 409", () =>
    Effect.gen(function* () {
      assert.strictEqual((yield* redeliver(theirs.id, partner)).status, 404)
      const queued = yield* redeliver(mine[0]!.id, partner)
      assert.strictEqual(queued.status, 409)
      assert.strictEqual((queued.json as { code: string }).code, "DELIVERY_IN_PROGRESS")
      const endpoint = yield* send(handler, "/Webhooks/Endpoint", bearer(partner))
      assert.strictEqual(endpoint.status, 404)
    }),
  )

  it.effect("refuse bad paging input, naming the field", () =>
    Effect.gen(function* () {
      for (const [query, field] of [
        ["limit=0", "query.limit"],
        ["limit=abc", "query.limit"],
        ["limit=101", "query.limit"],
        [`startingAfter=${"x".repeat(201)}`, "query.startingAfter"],
      ] as const) {
        const r = yield* send(handler, `/Webhooks/Deliveries?${query}`, bearer(partner))
        assert.strictEqual(r.status, 400, query)
        assert.strictEqual((r.json as { errors: Array<{ field: string }> }).errors[0]!.field, field, query)
      }
    }),
  )

  it.effect("are described in /openapi.json", () =>
    Effect.gen(function* () {
      const doc = (yield* send(handler, "/openapi.json")).json as {
        paths: Record<string, Record<string, { description?: string; responses: Record<string, unknown> }>>
      }
      for (const [path, method] of [
        ["/Webhooks/Deliveries", "get"],
        ["/Webhooks/Deliveries/{deliveryId}/Redeliver", "post"],
        ["/Webhooks/Endpoint", "get"],
        ["/Events", "get"],
      ] as const) {
        const operation = doc.paths[path]?.[method]
        assert.isDefined(operation, `${method} ${path}`)
        assert.isAbove(operation!.description?.length ?? 0, 40, `${method} ${path}`)
      }
      assert.isDefined(doc.paths["/Webhooks/Deliveries/{deliveryId}/Redeliver"]!.post!.responses["202"])
    }),
  )
})

describe("PUT /Webhooks/Endpoint (the partner sets its own endpoint)", () => {
  const setter = "7e57ab1e-0000-4000-8000-00000000e0d1" as Ids.PartnerId
  const put = (body: unknown, token?: string) =>
    send(handler, "/Webhooks/Endpoint", {
      method: "PUT",
      headers: {
        "content-type": "application/json",
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      },
      body: JSON.stringify(body),
    })

  it.effect("sets the URL and types, answers a new secret, and GET shows them to that partner only", () =>
    Effect.gen(function* () {
      const token = yield* partnerTokenFor(setter)
      const first = yield* put(
        { url: "http://127.0.0.1:4000/hooks", eventTypes: ["PAYMENT_REQUEST_STATUS_CHANGED"] },
        token,
      )
      assert.strictEqual(first.status, 200, first.text)
      const body = first.json as {
        url: string
        eventTypes: Array<string>
        signingSecret: string
        previousSecretExpiresAt: string | null
      }
      assert.deepStrictEqual(body.eventTypes, ["PAYMENT_REQUEST_STATUS_CHANGED"])
      assert.match(body.signingSecret, /^whsec_/)
      assert.isNull(body.previousSecretExpiresAt)
      const read = yield* send(handler, "/Webhooks/Endpoint", bearer(token))
      assert.deepStrictEqual(read.json, {
        url: "http://127.0.0.1:4000/hooks",
        eventTypes: ["PAYMENT_REQUEST_STATUS_CHANGED"],
        signingSecret: body.signingSecret,
      })
      // Another partner sees nothing of it.
      assert.strictEqual((yield* send(handler, "/Webhooks/Endpoint", bearer(otherPartner))).status, 404)

      // Setting again rolls the secret: a new one, the replaced one valid until an instant; types omitted: all.
      const second = yield* put({ url: "http://127.0.0.1:4000/hooks" }, token)
      assert.strictEqual(second.status, 200)
      const rolled = second.json as { eventTypes: null; signingSecret: string; previousSecretExpiresAt: string | null }
      assert.isNull(rolled.eventTypes)
      assert.notStrictEqual(rolled.signingSecret, body.signingSecret)
      assert.isString(rolled.previousSecretExpiresAt)
    }),
  )

  it.effect(
    "refuses an unknown event type naming eventTypes[i], a bad URL naming url, an unknown field; changes nothing",
    () =>
      Effect.gen(function* () {
        const token = yield* partnerTokenFor("7e57ab1e-0000-4000-8000-00000000e0d2" as Ids.PartnerId)
        const unknownType = yield* put(
          { url: "https://example.com/hooks", eventTypes: ["PAYMENT_REQUEST_STATUS_CHANGED", "NOPE"] },
          token,
        )
        assert.strictEqual(unknownType.status, 400)
        assert.strictEqual((unknownType.json as { errors: Array<{ field: string }> }).errors[0]!.field, "eventTypes[1]")
        for (const url of ["not a url", "ftp://example.com/x", ""]) {
          const r = yield* put({ url }, token)
          assert.strictEqual(r.status, 400, url)
          assert.strictEqual(
            (r.json as { errors: Array<{ field: string }> }).errors[0]!.field.replace("payload.", ""),
            "url",
            url,
          )
        }
        const extra = yield* put({ url: "https://example.com/hooks", secret: "mine" }, token)
        assert.strictEqual(extra.status, 400)
        assert.strictEqual((yield* send(handler, "/Webhooks/Endpoint", bearer(token))).status, 404)
      }),
  )

  it.effect("is for partners: a customer token is 403, no token 401", () =>
    Effect.gen(function* () {
      assert.strictEqual((yield* put({ url: "https://example.com/hooks" }, customer)).status, 403)
      const anonymous = yield* put({ url: "https://example.com/h" })
      assert.strictEqual(anonymous.status, 401)
    }),
  )

  it.effect("is described in /openapi.json", () =>
    Effect.gen(function* () {
      const doc = (yield* send(handler, "/openapi.json")).json as {
        paths: Record<string, Record<string, { description?: string }>>
      }
      assert.include(doc.paths["/Webhooks/Endpoint"]?.put?.description ?? "", "24 h")
    }),
  )
})
