/**
 * Payout events stored before a payout's status was derived from its event's tag carry a `status`
 * field: they still decode (the field ignored), move the payout to the same status, and rebuild the
 * same `payouts` documents as the events recorded since.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { fold } from "../../src/kernel/Decider.ts"
import * as Payout from "../../src/payouts/Payout.ts"
import { PayoutEvent, statusOf } from "../../src/payouts/PayoutEvents.ts"
import * as PayoutsProjection from "../../src/payouts/PayoutsProjection.ts"

const payoutId = "6e2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e04"
const created = {
  _tag: "PayoutCreated",
  payoutId,
  companyId: "6e2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e02",
  partnerId: "6e2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e01",
  amount: { minorUnits: 10_000, currency: "USD" },
  items: [{ entryId: "e1:settled", type: "payment", amount: { minorUnits: 10_000, currency: "USD" } }],
  payoutAccountId: "6e2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e03",
  accountNumberMasked: "****6789",
  arrivalDate: "2026-03-09",
  at: "2026-03-06T10:00:00.000Z",
}
const paid = { _tag: "PayoutPaid", payoutId, at: "2026-03-09T10:00:00.000Z" }
const failed = {
  _tag: "PayoutFailed",
  payoutId,
  returnCode: "R01",
  reason: "Insufficient funds",
  at: "2026-03-10T10:00:00.000Z",
}

/** The JSON of the events as they were stored, each with the status it moved the payout to. */
const stored = [
  { ...created, status: "Pending" },
  { ...paid, status: "Paid" },
  { ...failed, status: "Failed" },
]
const recorded = [created, paid, failed]

const decode = Schema.decodeUnknownSync(PayoutEvent)
const encode = Schema.encodeSync(PayoutEvent)

/** The `payouts` document after each event, in order. */
const documentsOf = (events: ReadonlyArray<PayoutEvent>) => {
  const docs: Array<PayoutsProjection.PayoutDocument | undefined> = []
  events.forEach((event, index) => {
    const envelope: PayoutsProjection.PayoutEnvelope = {
      streamType: "Payout",
      event,
      eventId: `event-${index}`,
      streamId: `Payout-${payoutId}`,
      streamVersion: index + 1,
      globalPosition: index + 1,
      recordedAt: event.at,
      metadata: {},
    }
    docs.push(PayoutsProjection.apply(docs.at(-1), envelope))
  })
  return docs
}

describe("a payout event stored with its status", () => {
  it("decodes as the event recorded today, its status field ignored", () => {
    const old = stored.map((json) => decode(json))
    assert.deepStrictEqual(
      old,
      recorded.map((json) => decode(json)),
    )
    for (const event of old) assert.isFalse("status" in encode(event))
  })

  it("moves the payout to the status it carried: its tag's", () => {
    for (const json of stored) assert.strictEqual(statusOf(decode(json)), json.status)
  })

  it("replays into the same state and the same documents as the events recorded today", () => {
    const old = stored.map((json) => decode(json))
    const now = recorded.map((json) => decode(json))
    assert.deepStrictEqual(fold(Payout.aggregate, old.slice(0, 2)), fold(Payout.aggregate, now.slice(0, 2)))
    assert.deepStrictEqual(documentsOf(old), documentsOf(now))
    assert.deepStrictEqual(
      documentsOf(old).map((doc) => doc?.status),
      ["Pending", "Paid", "Failed"],
    )
  })
})
