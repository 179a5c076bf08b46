/**
 * The sandbox message log, in memory and on PGlite (the same SQL as
 * PostgreSQL): one customer's messages of one partner, newest first, paged
 * with `limit` and `startingAfter`; another partner's or another customer's
 * messages never appear; an unknown cursor is an empty page.
 */
import { assert, describe, it } from "@effect/vitest"
import { Ids, Messaging } from "@partnerpay/domain"
import { DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../src/Migrations.ts"
import * as PgDatabase from "../src/PgDatabase.ts"
import * as PgSentMessages from "../src/PgSentMessages.ts"

const partner = Ids.PartnerId.make("0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b")
const otherPartner = Ids.PartnerId.make("1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f")
const customer = Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-00000000c0de")
const otherCustomer = Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-00000000c0df")
const request = Ids.PaymentRequestId.make("9d2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e01")

/** Messages are recent: older ones than the retention (90 days) are forgotten. */
const startedAt = Math.floor(Date.now() / 1000) * 1000

const id = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`

const message = (n: number, partnerId: Ids.PartnerId, registrationId: Ids.RegistrationId): Messaging.SentMessage => ({
  id: id(n),
  partnerId,
  registrationId,
  channel: n % 2 === 0 ? "sms" : "push",
  to: n % 2 === 0 ? "+14155550123" : `device-${n}`,
  template: "PaymentDueSoon",
  ...(n % 3 === 0 ? {} : { paymentRequestId: request }),
  sentAt: DateTime.makeUnsafe(startedAt + n * 1000),
})

const contract = (name: string, layer: Layer.Layer<Messaging.SentMessages, unknown>) =>
  describe(`the message log (${name})`, () => {
    it("pages one customer's messages of one partner, newest first", { timeout: 60_000 }, () =>
      Effect.runPromise(
        Effect.gen(function* () {
          const log = yield* Messaging.SentMessages
          for (let n = 1; n <= 5; n++) yield* log.record(message(n, partner, customer))
          yield* log.record(message(6, partner, otherCustomer))
          yield* log.record(message(7, otherPartner, customer))
          const page = (startingAfter?: string) =>
            log.list({ partnerId: partner, registrationId: customer, limit: 2, startingAfter })
          const first = yield* page()
          assert.deepStrictEqual(
            first.items.map((m) => m.id),
            [id(5), id(4)],
          )
          assert.isTrue(first.hasMore)
          assert.deepStrictEqual(first.items[0], message(5, partner, customer))
          const second = yield* page(id(4))
          assert.deepStrictEqual(
            second.items.map((m) => m.id),
            [id(3), id(2)],
          )
          assert.isTrue(second.hasMore)
          const last = yield* page(id(2))
          assert.deepStrictEqual(
            last.items.map((m) => m.id),
            [id(1)],
          )
          assert.isFalse(last.hasMore)
          assert.deepStrictEqual(yield* page(id(99)), { items: [], hasMore: false })
          // Another partner's message for the same registration id, or another customer's, never appears.
          assert.deepStrictEqual(yield* page(id(7)), { items: [], hasMore: false })
          const theirs = yield* log.list({ partnerId: otherPartner, registrationId: customer, limit: 100 })
          assert.deepStrictEqual(
            theirs.items.map((m) => m.id),
            [id(7)],
          )
        }).pipe(Effect.provide(layer)),
      ),
    )
  })

contract("memory", Messaging.SentMessages.layerMemory())
contract(
  "PGlite",
  PgSentMessages.layer().pipe(Layer.provideMerge(Migrations.layer), Layer.provideMerge(PgDatabase.layerPglite())),
)

describe("the message log on PGlite", () => {
  it("forgets messages older than the retention by the database clock, when it is read", { timeout: 60_000 }, () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const log = yield* Messaging.SentMessages
        const sql = yield* SqlClient
        const now = Date.now()
        yield* log.record({ ...message(1, partner, customer), sentAt: DateTime.makeUnsafe(now - 91 * 86_400_000) })
        yield* log.record({ ...message(2, partner, customer), sentAt: DateTime.makeUnsafe(now - 89 * 86_400_000) })
        // A sandbox clock far ahead records messages in the future: they are kept.
        yield* log.record({ ...message(3, partner, customer), sentAt: DateTime.makeUnsafe(now + 400 * 86_400_000) })
        const page = yield* log.list({ partnerId: partner, registrationId: customer, limit: 10 })
        assert.deepStrictEqual(
          page.items.map((m) => m.id),
          [id(3), id(2)],
        )
        const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM sent_messages`
        assert.strictEqual(rows[0]?.n, 2)
      }).pipe(
        Effect.provide(
          PgSentMessages.layer({ purgeEveryMillis: 0 }).pipe(
            Layer.provideMerge(Migrations.layer),
            Layer.provideMerge(PgDatabase.layerPglite()),
          ),
        ),
      ),
    ),
  )
})
