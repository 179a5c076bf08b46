/**
 * Deliveries verify with the `standardwebhooks` library (the Standard
 * Webhooks reference implementation, what Svix and many receivers use), given
 * `"whsec_" + base64(signing secret)`: through the dispatcher against a local
 * receiver (embedded database), and during a secret roll with either secret.
 * The existing signature headers stay as they were.
 */
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Migrations, PgDatabase, PgOutbox, PgPartnerCredentials, PgPersonalDataVault } from "@partnerpay/adapters-pg"
import { Outbox } from "@partnerpay/domain"
import { Hmac } from "@partnerpay/secrets"
import { Effect, Layer, Redacted } from "effect"
import { Webhook } from "standardwebhooks"
import * as WebhookDispatcher from "../src/workers/WebhookDispatcher.ts"

/** The key the library takes for a partnerpay signing secret: the recipe of docs/api/webhooks.md. */
const libraryKey = (secret: string) => `whsec_${Buffer.from(secret, "utf8").toString("base64")}`

const headersOf = (headers: IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]))

const base = Layer.mergeAll(PgOutbox.layer, PgPartnerCredentials.layer({ N: 2 ** 10, r: 8, p: 1 })).pipe(
  Layer.provideMerge(
    PgPersonalDataVault.layer(PgPersonalDataVault.parseMasterKey(PgPersonalDataVault.newMasterKeyText())),
  ),
  Layer.provideMerge(Migrations.layer),
  Layer.provideMerge(PgDatabase.layerPglite()),
)

/** A receiver on 127.0.0.1 answering 200; records every request. */
const receiver = Effect.acquireRelease(
  Effect.callback<{
    readonly url: string
    readonly requests: Array<{ headers: IncomingHttpHeaders; body: string }>
    readonly close: () => void
  }>((resume) => {
    const requests: Array<{ headers: IncomingHttpHeaders; body: string }> = []
    const server = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        requests.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") })
        response.writeHead(200).end()
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resume(
        Effect.succeed({
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
          requests,
          close: () => {
            server.close()
            server.closeAllConnections()
          },
        }),
      ),
    )
  }),
  (server) => Effect.sync(server.close),
)

describe("a webhook delivery", () => {
  it.live(
    "verifies with the standardwebhooks library given whsec_ + base64 of the signing secret",
    () =>
      Effect.gen(function* () {
        const outbox = yield* Outbox.Outbox
        const partners = yield* PgPartnerCredentials.Partners
        const partnerId = (yield* partners.create({ name: "Receiver" })).partnerId
        const secret = "whsec_partnerpay-secret-Café"
        const target = yield* receiver
        yield* partners.setWebhook(partnerId, { url: target.url, signingSecret: Redacted.make(secret) })
        const id = crypto.randomUUID()
        yield* outbox.record([
          { id, partnerId, eventType: "PAYMENT_REQUEST_STATUS_CHANGED", data: { Name: "Café ☕" }, position: 1 },
        ])
        yield* Layer.build(WebhookDispatcher.layer({ live: false, workerId: "test", pollMillis: 20 }))
        for (let i = 0; i < 400 && target.requests.length === 0; i++) yield* Effect.sleep(50)
        const request = target.requests[0]
        assert.isDefined(request)
        const headers = headersOf(request!.headers)
        assert.strictEqual(headers["webhook-id"], id)
        assert.match(headers["webhook-timestamp"]!, /^[0-9]+$/)
        assert.deepStrictEqual(
          new Webhook(libraryKey(secret)).verify(request!.body, headers),
          JSON.parse(request!.body),
        )
        // The existing headers are unchanged.
        assert.strictEqual(headers["x-hmac-signature"], `sha256=${Hmac.sha256Hex(secret, request!.body)}`)
        assert.strictEqual(
          headers["x-partnerpay-signature"],
          `t=${headers["webhook-timestamp"]},v1=${Hmac.sha256Hex(secret, `${headers["webhook-timestamp"]}.${id}.${request!.body}`)}`,
        )
      }).pipe(Effect.scoped, Effect.provide(base)),
    60_000,
  )

  it("signed during a roll verifies with the new secret and with the replaced one, and not with another", () => {
    const body = JSON.stringify({ Live: false, Event: "WEBHOOK_TEST", Data: { Message: "hi" } })
    const id = crypto.randomUUID()
    const now = Math.floor(Date.now() / 1000)
    const headers = WebhookDispatcher.signatureHeaders(body, id, now, [
      Redacted.make("whsec_new"),
      Redacted.make("whsec_old"),
    ])
    assert.strictEqual(headers["webhook-signature"]!.split(" ").length, 2)
    assert.deepStrictEqual(new Webhook(libraryKey("whsec_new")).verify(body, headers), JSON.parse(body))
    assert.deepStrictEqual(new Webhook(libraryKey("whsec_old")).verify(body, headers), JSON.parse(body))
    assert.throws(() => new Webhook(libraryKey("whsec_other")).verify(body, headers))
  })
})
