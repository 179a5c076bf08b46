/**
 * The sandbox dispute worker's polls on PGlite and PostgreSQL (issue 38): its
 * work list is the `sandbox_card_disputes` read model
 * (`SandboxDisputesProjection`), and migration 130 fills it from the events
 * exactly as a rebuild of the projection does (so a database migrated with
 * sandbox disputes in flight needs no rebuild). The polls answer a company's
 * card payments with the card ending in 0259 not disputed yet (an in-app
 * payment's partner read from its payment request) and the sandbox's open
 * disputes, at or before the cutoff, oldest first.
 */
import { assert, describe, it } from "@effect/vitest"
import { DomainEvents, SandboxDisputesProjection } from "@partnerpay/domain"
import { Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import migration130 from "../src/migrations/0130_sandbox_card_disputes_read_model.ts"
import * as PgDomain from "../src/PgDomain.ts"
import * as PgDueWork from "../src/PgDueWork.ts"
import { databases } from "./readSideSupport.ts"

const partner = "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b"
const company = "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f"
const cutoff = "2026-03-10T00:00:00.000Z"
const at = (day: number) => `2026-03-${String(day).padStart(2, "0")}T10:00:00.000Z`
const usd = (minorUnits: number) => ({ minorUnits, currency: "USD" })

type StreamType = "PaymentRequest" | "CardPayment" | "CardDispute"

/** Records events on one stream, as the event store does (encoded by the stream's codec). */
const record = (streamType: StreamType, id: string, events: ReadonlyArray<Record<string, unknown>>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient
    const streamId = `${streamType}-${id}`
    const encode = Schema.encodeUnknownSync(DomainEvents.codecs[streamType])
    const decode = Schema.decodeUnknownSync(DomainEvents.codecs[streamType])
    yield* sql`INSERT INTO streams (stream_id, stream_type, version) VALUES (${streamId}, ${streamType}, ${events.length})`
    for (const [n, event] of events.entries()) {
      const data = JSON.stringify(encode(decode(event)))
      yield* sql`
        INSERT INTO events (stream_id, stream_type, stream_version, event_id, event_type, schema_version, data)
        VALUES (${streamId}, ${streamType}, ${n + 1}, ${crypto.randomUUID()}, ${String(event._tag)}, 1, ${data}::jsonb)`
    }
  })

const terminal = (cardPaymentId: string, last4: string, day: number, forCompany = true) =>
  record("CardPayment", cardPaymentId, [
    {
      _tag: "CardPaymentRegistered",
      cardPaymentId,
      partnerId: partner,
      merchantId: company,
      amount: usd(7_000),
      last4,
      brand: "visa",
      externalReference: `term-${cardPaymentId}`,
      ...(forCompany ? { companyId: company } : {}),
      at: at(day),
    },
  ])

const dispute = (cardPaymentId: string, days: ReadonlyArray<number>) => {
  const disputed = {
    disputeId: SandboxDisputesProjection.sandboxDisputeId(cardPaymentId),
    payment: { cardPaymentId, partnerId: partner, companyId: company },
    amount: usd(7_000),
    fee: usd(1_500),
    reason: "fraudulent",
  }
  return record(
    "CardDispute",
    disputed.disputeId,
    days.map((day, n) =>
      n === 0
        ? { _tag: "CardDisputeOpened", dispute: disputed, status: "NeedsResponse", at: at(day) }
        : { _tag: "CardDisputeClosed", dispute: disputed, outcome: "Lost", at: at(day) },
    ),
  )
}

const listed = Effect.flatMap(
  SqlClient,
  (sql) => sql<{ id: string; partner_id: string; keys: unknown; sort_key: string; data: unknown }>`
    SELECT id, partner_id, keys, sort_key, data FROM read_models
    WHERE collection = ${SandboxDisputesProjection.collection} ORDER BY id`,
)

for (const database of databases) {
  describe(`the sandbox dispute polls on ${database.name}`, () => {
    const layer = PgDomain.layer().pipe(Layer.provideMerge(database.layer()))

    it.layer(layer, { timeout: 120_000 })((it) => {
      it.effect(
        "read the work list that migration 130 fills from the events as the projection does, due ones oldest first",
        () =>
          Effect.gen(function* () {
            const ids = Array.from({ length: 8 }, () => crypto.randomUUID())
            const [inApp, paid, noCompany, otherCard, open, lost, late, request] = ids as [
              string,
              string,
              string,
              string,
              string,
              string,
              string,
              string,
            ]
            yield* record("PaymentRequest", request, [
              {
                _tag: "PaymentRequestPaidByCard",
                paymentRequestId: request,
                registrationId: crypto.randomUUID(),
                cardPaymentId: inApp,
                paymentMethodId: "pm_1",
                brand: "visa",
                last4: "0259",
                processorReference: "ch_1",
                status: "Paid",
                at: at(3),
              },
            ])
            yield* terminal(paid, "0259", 2)
            yield* terminal(noCompany, "0259", 2, false)
            yield* terminal(otherCard, "4242", 2)
            yield* terminal(open, "0259", 1)
            yield* dispute(open, [4])
            yield* terminal(lost, "0259", 1)
            yield* dispute(lost, [2, 5])
            yield* terminal(late, "0259", 20)

            // The projection's list, rebuilt from the events; then the migration's, from the same events.
            yield* PgDomain.rebuildProjections({ projections: [SandboxDisputesProjection.projection] })
            const projected = yield* listed
            const sql = yield* SqlClient
            yield* sql`DELETE FROM read_models WHERE collection = ${SandboxDisputesProjection.collection}`
            yield* migration130
            assert.deepStrictEqual(yield* listed, projected)
            assert.deepStrictEqual(
              projected.map((row) => row.id),
              [inApp, paid, open, late].sort(),
            )

            // The in-app payment's partner is its payment request's.
            yield* sql`
              INSERT INTO read_models (collection, id, partner_id, keys, sort_key, data)
              VALUES ('payment_requests', ${request}, ${partner}, '{}'::jsonb, ${at(3)}, '{}'::jsonb)`
            const toDispute = yield* PgDueWork.sandboxCardsToDispute(cutoff, 100)
            assert.deepStrictEqual(
              toDispute.map((row) => [row.id, row.partner_id, row.sort_key, row.payment_request_id]),
              [
                [paid, partner, at(2), null],
                [inApp, partner, at(3), request],
              ],
            )
            const toLose = yield* PgDueWork.sandboxDisputesToLose(cutoff, 100)
            assert.deepStrictEqual(
              toLose.map((row) => [row.id, row.partner_id, row.sort_key]),
              [[SandboxDisputesProjection.sandboxDisputeId(open), partner, at(4)]],
            )
            assert.lengthOf(yield* PgDueWork.sandboxCardsToDispute(cutoff, 1), 1)
          }),
      )
    })
  })
}
