/**
 * Dwolla's webhook subscription made at start when missing, through the
 * official `dwolla` SDK against a local fake checked with Dwolla's document:
 * created for the URL with the secret when none has it, left alone when one
 * does (reported when Dwolla paused it), never fatal when Dwolla is down.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import type * as DwollaClient from "../../src/providers/DwollaClient.ts"
import * as DwollaSubscription from "../../src/providers/DwollaSubscription.ts"
import * as DwollaFake from "./DwollaFake.ts"

const url = "https://partnerpay.example.com/ProviderWebhooks/Dwolla"

describe("Dwolla's webhook subscription, on its published contract", () => {
  const fakes: Array<DwollaFake.DwollaFake> = []
  afterAll(() => Promise.all(fakes.map((fake) => fake.close())))

  const start = Effect.fn(function* (subscriptions: ReadonlyArray<{ url: string; paused: boolean }>) {
    const fake = yield* Effect.promise(() => DwollaFake.start())
    fakes.push(fake)
    fake.answer(
      "/webhook-subscriptions",
      {
        status: 200,
        contentType: DwollaFake.hal,
        body: {
          _links: { self: { href: `${fake.url}/webhook-subscriptions` } },
          _embedded: {
            "webhook-subscriptions": subscriptions.map((subscription, index) => ({
              id: `077dfffb-4852-412f-96b6-0fe66806658${index}`,
              created: "2026-11-26T10:00:00+00:00",
              ...subscription,
            })),
          },
          total: subscriptions.length,
        },
      },
      {
        status: 201,
        contentType: DwollaFake.hal,
        headers: { location: `${fake.url}/webhook-subscriptions/5af4c10a-f6de-4ac8-840d-42cb65454216` },
      },
    )
    const config: DwollaClient.DwollaConfig = {
      key: "a-dwolla-key",
      secret: Redacted.make("a-dwolla-secret"),
      environment: "sandbox",
      baseUrl: fake.url,
      webhookSecret: Redacted.make("a-dwolla-webhook-secret"),
      timeoutMillis: 5000,
    }
    return { fake, config }
  })

  it.live("none for this URL: one is created with the webhook secret", () =>
    Effect.gen(function* () {
      const { fake, config } = yield* start([{ url: "https://elsewhere.example.com/hooks", paused: false }])
      assert.strictEqual(yield* DwollaSubscription.ensure(config, url), "created")
      const created = fake.requests.find((request) => request.method === "POST" && request.path.endsWith("s"))
      assert.deepStrictEqual(
        fake.requests.map((request) => `${request.method} ${request.path}`),
        ["POST /token", "GET /webhook-subscriptions", "POST /webhook-subscriptions"],
      )
      assert.isDefined(created)
      assert.deepStrictEqual(JSON.parse(fake.requests[2]?.body ?? "{}"), { url, secret: "a-dwolla-webhook-secret" })
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("one for this URL: nothing created (a paused one is reported)", () =>
    Effect.gen(function* () {
      const present = yield* start([{ url, paused: false }])
      assert.strictEqual(yield* DwollaSubscription.ensure(present.config, url), "present")
      const paused = yield* start([{ url, paused: true }])
      assert.strictEqual(yield* DwollaSubscription.ensure(paused.config, url), "paused")
      for (const { fake } of [present, paused]) {
        assert.notInclude(
          fake.requests.map((request) => `${request.method} ${request.path}`),
          "POST /webhook-subscriptions",
        )
        assert.deepStrictEqual(fake.violations, [])
      }
    }),
  )

  it.live("Dwolla down: logged, never fatal", () =>
    Effect.gen(function* () {
      const { fake, config } = yield* start([])
      fake.answer("/webhook-subscriptions", { status: 503, body: {} })
      yield* DwollaSubscription.ensureLogged(config, url)
    }),
  )
})
