/**
 * The webhook dispatcher against local receivers (embedded database): a
 * partner's backlog arrives in order, over several batches, signed, with the
 * event id and attempt headers (a partner without a signing secret gets one
 * generated); a failed delivery holds back that partner's
 * later notifications (released unattempted) and never another partner's;
 * a partner without a webhook URL has its notifications given up at once.
 */
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Migrations, PgDatabase, PgOutbox, PgPartnerCredentials, PgPersonalDataVault } from "@partnerpay/adapters-pg"
import { Outbox } from "@partnerpay/domain"
import { Hmac } from "@partnerpay/secrets"
import { Effect, Layer, Option, Redacted } from "effect"
import * as WebhookDispatcher from "../src/workers/WebhookDispatcher.ts"

interface Received {
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/** A receiver on 127.0.0.1 answering `statusFor(eventId)`; records every request. */
const receiver = (statusFor: (eventId: string) => number) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly requests: Array<Received>; readonly close: () => void }>(
      (resume) => {
        const requests: Array<Received> = []
        const server = createServer((request, response) => {
          const chunks: Array<Buffer> = []
          request.on("data", (chunk: Buffer) => chunks.push(chunk))
          request.on("end", () => {
            requests.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") })
            response.writeHead(statusFor(String(request.headers["x-partnerpay-event-id"]))).end()
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
      },
    ),
    (server) => Effect.sync(server.close),
  )

const notification = (partnerId: string, position: number): Outbox.Webhook => ({
  id: crypto.randomUUID(),
  partnerId,
  eventType: "COMPANY_VERIFICATION_STATUS_CHANGED",
  data: { Position: position, Name: "Café ☕" },
  position,
})

const secret = "whsec-dispatcher-test"

const base = Layer.mergeAll(PgOutbox.layer, PgPartnerCredentials.layer({ N: 2 ** 10, r: 8, p: 1 })).pipe(
  Layer.provideMerge(
    PgPersonalDataVault.layer(PgPersonalDataVault.parseMasterKey(PgPersonalDataVault.newMasterKeyText())),
  ),
  Layer.provideMerge(Migrations.layer),
  Layer.provideMerge(PgDatabase.layerPglite()),
)

/** Waits (at most 20 s) until `done` holds. */
const until = (done: () => boolean) =>
  Effect.gen(function* () {
    for (let i = 0; i < 400 && !done(); i++) yield* Effect.sleep(50)
    assert.isTrue(done(), "condition not met within 20 s")
  })

describe("the webhook dispatcher", () => {
  it.live(
    "delivers a partner's backlog in order over several batches; a failure holds back only that partner",
    () =>
      Effect.gen(function* () {
        const outbox = yield* Outbox.Outbox
        const dispatch = yield* PgOutbox.OutboxDispatch
        const partners = yield* PgPartnerCredentials.Partners
        const a = (yield* partners.create({ name: "A" })).partnerId
        const b = (yield* partners.create({ name: "B" })).partnerId
        const aRows = Array.from({ length: 30 }, (_, k) => notification(a, k + 1))
        const bRows = Array.from({ length: 3 }, (_, k) => notification(b, k + 100))
        const receiverA = yield* receiver(() => 200)
        const receiverB = yield* receiver((id) => (id === bRows[1]!.id ? 500 : 200))
        yield* partners.setWebhook(a, { url: receiverA.url, signingSecret: Redacted.make(secret) })
        yield* partners.setWebhook(b, { url: receiverB.url, signingSecret: Redacted.make("") })
        yield* outbox.record([...aRows.slice(0, 10), ...bRows, ...aRows.slice(10)])

        yield* Layer.build(
          WebhookDispatcher.layer({ live: false, workerId: "test", pollMillis: 20, perPartner: 7, batchSize: 500 }),
        )
        const delivered = () => dispatch.list({ status: "delivered", limit: 100 })
        yield* until(() => receiverA.requests.length === 30 && receiverB.requests.length === 2)
        yield* Effect.sleep(200)
        for (let i = 0; i < 100 && (yield* delivered()).length < 31; i++) yield* Effect.sleep(50)

        // A: every notification once, in order, signed over the exact body, first attempt.
        assert.deepStrictEqual(
          receiverA.requests.map((r) => r.headers["x-partnerpay-event-id"]),
          aRows.map((r) => r.id),
        )
        for (const [i, request] of receiverA.requests.entries()) {
          assert.deepStrictEqual(JSON.parse(request.body), {
            Live: false,
            Event: "COMPANY_VERIFICATION_STATUS_CHANGED",
            Data: aRows[i]!.data,
          })
          assert.strictEqual(request.headers["content-type"], "application/json")
          assert.strictEqual(request.headers["x-partnerpay-delivery-attempt"], "1")
          assert.strictEqual(request.headers["x-hmac-signature"], `sha256=${Hmac.sha256Hex(secret, request.body)}`)
        }
        // B: no secret configured: one was generated (and stored) and signs its deliveries; the second
        // notification fails (always), the third waits behind its retries.
        const bIds = receiverB.requests.map((r) => r.headers["x-partnerpay-event-id"])
        assert.deepStrictEqual(bIds.slice(0, 2), [bRows[0]!.id, bRows[1]!.id])
        assert.isTrue(bIds.slice(2).every((id) => id === bRows[1]!.id))
        const generated = Redacted.value((yield* partners.getWebhook(b)).pipe(Option.getOrThrow).signingSecret)
        assert.match(generated, /^whsec_[A-Za-z0-9_-]{43}$/)
        assert.strictEqual(
          receiverB.requests[0]!.headers["x-hmac-signature"],
          `sha256=${Hmac.sha256Hex(generated, receiverB.requests[0]!.body)}`,
        )
        const pending = yield* dispatch.list({ status: "pending", limit: 10 })
        assert.deepStrictEqual(
          pending.map((e) => [e.id, e.attempts, e.lastError]),
          [
            [bRows[2]!.id, 0, null],
            [bRows[1]!.id, bIds.length - 1, "the endpoint answered HTTP 500"],
          ],
        )
        assert.strictEqual((yield* delivered()).length, 31)
      }).pipe(Effect.scoped, Effect.provide(base)),
    60_000,
  )

  it.live(
    "gives up at once on every notification of a partner without a webhook URL, and only that partner's",
    () =>
      Effect.gen(function* () {
        const outbox = yield* Outbox.Outbox
        const dispatch = yield* PgOutbox.OutboxDispatch
        const partners = yield* PgPartnerCredentials.Partners
        const silent = (yield* partners.create({ name: "No URL" })).partnerId
        const listening = (yield* partners.create({ name: "Listening" })).partnerId
        const receiverL = yield* receiver(() => 200)
        yield* partners.setWebhook(listening, { url: receiverL.url, signingSecret: Redacted.make(secret) })
        const silentRows = Array.from({ length: 12 }, (_, k) => notification(silent, k + 1))
        const listeningRows = Array.from({ length: 2 }, (_, k) => notification(listening, k + 50))
        yield* outbox.record([...silentRows, ...listeningRows])

        yield* Layer.build(
          WebhookDispatcher.layer({ live: false, workerId: "test", pollMillis: 20, perPartner: 50, batchSize: 500 }),
        )
        const failed = () => dispatch.list({ status: "failed", limit: 100 })
        for (let i = 0; i < 400 && (yield* failed()).length < silentRows.length; i++) yield* Effect.sleep(50)
        yield* until(() => receiverL.requests.length === 2)

        const gaveUp = yield* failed()
        assert.deepStrictEqual(gaveUp.map((e) => e.id).sort(), silentRows.map((r) => r.id).sort())
        assert.isTrue(gaveUp.every((e) => e.lastError === WebhookDispatcher.noWebhookUrl && e.attempts === 1))
        assert.deepStrictEqual(
          receiverL.requests.map((r) => r.headers["x-partnerpay-event-id"]),
          listeningRows.map((r) => r.id),
        )
      }).pipe(Effect.scoped, Effect.provide(base)),
    60_000,
  )
})
