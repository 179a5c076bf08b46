/**
 * Plan and consent events declared with `EventSchema.eventsOf` (the ids first, `at` last) read the
 * events stored before, whose `at` came right after the plan's ids: each decodes, and encodes back to
 * the same fields.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { ConsentEvent } from "../../src/plans/ConsentEvents.ts"
import { PaymentPlanEvent } from "../../src/plans/PaymentPlanEvents.ts"

const planIds = {
  paymentPlanId: "6e2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e10",
  partnerId: "6e2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e01",
  companyId: "6e2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e02",
}

/** Plan events as stored: the plan's ids, `at`, then what the event says. */
const storedPlanEvents = [
  { _tag: "PaymentPlanPaused", ...planIds, at: "2026-03-06T10:00:00.000Z" },
  {
    _tag: "InstalmentFailed",
    ...planIds,
    at: "2026-03-07T10:00:00.000Z",
    instalmentNumber: 2,
    dueDate: "2026-03-05",
    transferId: "6e2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e11",
    returnCode: "R01",
    reason: "Insufficient funds",
  },
  {
    _tag: "PaymentPlanConsentWithdrawn",
    ...planIds,
    at: "2026-03-08T10:00:00.000Z",
    consentId: "6e2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e12",
    withdrawal: "Revoked",
  },
]

const storedConsentEvents = [
  {
    _tag: "ConsentRequested",
    consentId: "6e2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e12",
    ...planIds,
    payerRegistrationId: "6e2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e13",
    amount: { minorUnits: 2_500, currency: "USD" },
    frequency: "Monthly",
    at: "2026-03-01T10:00:00.000Z",
  },
]

describe("plan and consent events stored before eventsOf", () => {
  it("decode and encode back to the same fields", () => {
    for (const stored of storedPlanEvents) {
      const encoded = Schema.encodeSync(PaymentPlanEvent)(Schema.decodeUnknownSync(PaymentPlanEvent)(stored))
      assert.deepStrictEqual(encoded, stored as never)
    }
    for (const stored of storedConsentEvents) {
      const encoded = Schema.encodeSync(ConsentEvent)(Schema.decodeUnknownSync(ConsentEvent)(stored))
      assert.deepStrictEqual(encoded, stored as never)
    }
  })
})
