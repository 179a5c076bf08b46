/**
 * `PgWebhookLog` on the embedded database: a partner's rows only, newest
 * first in commit order, `startingAfter` pages, events limited to those
 * recorded in the last days given, redelivery outcomes, and the endpoint's secret
 * generated once when the webhook has none; the partner's own setting (types,
 * secret roll with the replaced secret kept until it expires) on PGlite and
 * PostgreSQL.
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
import { databases } from "./readSideSupport.ts"

const layerOn = <E>(database: Layer.Layer<SqlClient, E>) =>
  PgWebhookLog.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(PgOutbox.layer, PgPartnerCredentials.layer({ N: 2 ** 10, r: 8, p: 1 }))),
    Layer.provideMerge(
      PgPersonalDataVault.layer(PgPersonalDataVault.parseMasterKey(PgPersonalDataVault.newMasterKeyText())),
    ),
    Layer.provideMerge(Migrations.layer),
    Layer.provideMerge(database),
  )

const layer = PgWebhookLog.layer.pipe(
  Layer.provideMerge(Layer.mergeAll(PgOutbox.layer, PgPartnerCredentials.layer({ N: 2 ** 10, r: 8, p: 1 }))),
  Layer.provideMerge(
    PgPersonalDataVault.layer(PgPersonalDataVault.parseMasterKey(PgPersonalDataVault.newMasterKeyText())),
  ),
  Layer.provideMerge(Migrations.layer),
  Layer.provideMerge(PgDatabase.layerPglite()),
)

const row = (partnerId: string, k: number): Outbox.Webhook => ({
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

for (const database of databases) {
  describe(`a partner's own webhook endpoint on ${database.name}`, () => {
    it.effect(
      "is set with its types and a new secret; a roll keeps the replaced secret until it expires",
      () =>
        Effect.gen(function* () {
          const partners = yield* PgPartnerCredentials.Partners
          const a = (yield* partners.create({ name: "A" })).partnerId
          const log = yield* WebhookLog.WebhookLog
          assert.isUndefined(
            yield* log.setEndpoint(crypto.randomUUID(), { url: "https://x.example/h", eventTypes: null }),
          )

          const first = (yield* log.setEndpoint(a, {
            url: "https://example.com/hooks",
            eventTypes: ["PAYOUT_STATUS_CHANGED"],
          }))!
          assert.isNull(first.previousSecretExpiresAt)
          const read = (yield* log.endpoint(a))!
          assert.deepStrictEqual(read.eventTypes, ["PAYOUT_STATUS_CHANGED"])
          assert.strictEqual(Redacted.value(read.signingSecret), Redacted.value(first.signingSecret))

          const second = (yield* log.setEndpoint(a, { url: "https://example.com/hooks2", eventTypes: null }))!
          assert.isNotNull(second.previousSecretExpiresAt)
          const webhook = (yield* partners.getWebhook(a)).pipe((o) => (o._tag === "Some" ? o.value : undefined))!
          assert.strictEqual(webhook.url, "https://example.com/hooks2")
          assert.isNull(webhook.eventTypes)
          assert.strictEqual(Redacted.value(webhook.signingSecret), Redacted.value(second.signingSecret))
          assert.strictEqual(Redacted.value(webhook.previous!.signingSecret), Redacted.value(first.signingSecret))

          // Expired: no previous secret any more.
          const sql = yield* SqlClient
          yield* sql`UPDATE partners SET webhook_previous_secret_expires_at = now() - interval '1 second'`
          const later = (yield* partners.getWebhook(a)).pipe((o) => (o._tag === "Some" ? o.value : undefined))!
          assert.isUndefined(later.previous)
          // The stored secrets are sealed: neither is in the table in plaintext.
          const dump = yield* sql<{ row: string }>`SELECT row_to_json(p)::text AS row FROM partners p`
          for (const secret of [first.signingSecret, second.signingSecret])
            assert.isFalse(
              dump.some((r) => r.row.includes(Redacted.value(secret))),
              "secret in plaintext",
            )
        }).pipe(Effect.provide(layerOn(database.layer()))),
      60_000,
    )
  })
}
