/**
 * `PgWebhookLog` on the embedded database: a partner's rows only, newest
 * first in commit order, `startingAfter` pages, events limited to those
 * recorded in the last days given, redelivery outcomes, and the endpoint's secret
 * generated once when the webhook has none.
 */
import { assert, describe, it } from "@effect/vitest"
import { Outbox, WebhookLog } from "@partnerpay/domain"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../src/Migrations.ts"
import * as PgDatabase from "../src/PgDatabase.ts"
import * as PgOutbox from "../src/PgOutbox.ts"
import * as PgPartnerCredentials from "../src/PgPartnerCredentials.ts"
import * as PgPersonalDataVault from "../src/PgPersonalDataVault.ts"
import * as PgWebhookLog from "../src/PgWebhookLog.ts"

const layer = PgWebhookLog.layer.pipe(
  Layer.provideMerge(Layer.mergeAll(PgOutbox.layer, PgPartnerCredentials.layer({ N: 2 ** 10, r: 8, p: 1 }))),
  Layer.provideMerge(
    PgPersonalDataVault.layer(PgPersonalDataVault.parseMasterKey(PgPersonalDataVault.newMasterKeyText())),
  ),
  Layer.provideMerge(Migrations.layer),
  Layer.provideMerge(PgDatabase.layerPglite()),
)

const row = (partnerId: string, k: number): Outbox.Notification => ({
  id: `n-${partnerId.slice(0, 4)}-${k}`,
  partnerId,
  eventType: "PAYMENT_REQUEST_STATUS_CHANGED",
  data: { K: k },
  position: k,
})

describe("a partner's webhook log", () => {
  it.effect(
    "holds only its rows, newest first, by pages; events reach back `maxAgeDays`",
    () =>
      Effect.gen(function* () {
        const partners = yield* PgPartnerCredentials.Partners
        const a = (yield* partners.create({ name: "A" })).partnerId
        const b = (yield* partners.create({ name: "B" })).partnerId
        const outbox = yield* Outbox.Outbox
        // One transaction each: commit order is the recording order.
        for (const k of [1, 2, 3]) yield* outbox.record([row(a, k)])
        yield* outbox.record([row(b, 4)])
        const sql = yield* SqlClient
        yield* sql`UPDATE outbox SET created_at = now() - interval '40 days' WHERE id = ${row(a, 1).id}`
        const log = yield* WebhookLog.WebhookLog

        const first = yield* log.deliveries(a, { limit: 2 })
        assert.deepStrictEqual(
          first.items.map((d) => d.id),
          [row(a, 3).id, row(a, 2).id],
        )
        assert.isTrue(first.hasMore)
        const second = yield* log.deliveries(a, { limit: 2, startingAfter: row(a, 2).id })
        assert.deepStrictEqual(
          second.items.map((d) => [d.id, d.status, d.attempts, d.lastResponseStatus]),
          [[row(a, 1).id, "pending", 0, null]],
        )
        assert.isFalse(second.hasMore)
        assert.deepStrictEqual((yield* log.deliveries(b, { limit: 10, startingAfter: row(a, 3).id })).items, [])

        const events = yield* log.events(a, { limit: 10, maxAgeDays: 30 })
        assert.deepStrictEqual(
          events.items.map((e) => [e.id, e.data]),
          [
            [row(a, 3).id, { K: 3 }],
            [row(a, 2).id, { K: 2 }],
          ],
        )

        assert.strictEqual(yield* log.redeliver(b, row(a, 1).id), "not found")
        assert.strictEqual(yield* log.redeliver(a, row(a, 1).id), "in progress")
        const dispatch = yield* PgOutbox.OutboxDispatch
        yield* dispatch.markFailedAttempt(row(a, 1).id, "the endpoint answered HTTP 503", "give up", 503)
        const failed = (yield* log.deliveries(a, { limit: 1, startingAfter: row(a, 2).id })).items[0]!
        assert.deepStrictEqual([failed.status, failed.lastResponseStatus], ["failed", 503])
        assert.strictEqual(yield* log.redeliver(a, row(a, 1).id), "queued")
      }).pipe(Effect.provide(layer)),
    60_000,
  )

  it.effect(
    "the endpoint: none without a URL; a URL without a secret gets one, generated once",
    () =>
      Effect.gen(function* () {
        const partners = yield* PgPartnerCredentials.Partners
        const a = (yield* partners.create({ name: "A" })).partnerId
        const log = yield* WebhookLog.WebhookLog
        assert.isUndefined(yield* log.endpoint(a))
        yield* partners.setWebhook(a, { url: "https://example.com/hooks", signingSecret: Redacted.make("") })
        const generated = yield* log.endpoint(a)
        assert.match(Redacted.value(generated!.signingSecret), /^whsec_/)
        assert.strictEqual(
          Redacted.value((yield* log.endpoint(a))!.signingSecret),
          Redacted.value(generated!.signingSecret),
        )
      }).pipe(Effect.provide(layer)),
    60_000,
  )
})
