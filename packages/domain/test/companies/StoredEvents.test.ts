/**
 * Company events stored before the status table: CompanyVerified, CompanyRejected,
 * CompanySuspended, CompanyReactivated and PayoutAccountErrored carried a `status`
 * field, which their tag already said. Such a stored event still decodes (the field
 * is ignored), to the same event as today's form, so replaying the stored events
 * rebuilds the same state and the same read model.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Schema } from "effect"
import * as CompaniesProjection from "../../src/companies/CompaniesProjection.ts"
import * as Company from "../../src/companies/Company.ts"
import { CompanyEvent, statusOf } from "../../src/companies/CompanyEvents.ts"
import { fold } from "../../src/kernel/Decider.ts"
import type { CompanyId, LocationId, PartnerId } from "../../src/kernel/Ids.ts"
import { Fixtures } from "../../src/testing/index.ts"

const partnerId = "1b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a61" as PartnerId
const companyId = "2b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a62" as CompanyId
const registration = Fixtures.companyRegistrationBody({ locations: [] }) as unknown as Company.RegistrationInput
const registeredDecision = Company.decide(
  {
    _tag: "RegisterCompany",
    partnerId,
    companyId,
    locationIds: [] as Array<LocationId>,
    registration,
    at: DateTime.makeUnsafe("2026-03-01T10:00:00.000Z"),
  },
  Company.initialState,
)
if (registeredDecision._tag === "Failure") throw new Error(registeredDecision.failure.message)

const encode = Schema.encodeSync(CompanyEvent)
const decode = Schema.decodeUnknownSync(CompanyEvent)

/** The registration as stored (it never had a `status` field). */
const storedRegistration = encode(registeredDecision.success[0]!)

/** A company verified, suspended and reactivated, as stored before the status table. */
const storedVerified: ReadonlyArray<unknown> = [
  storedRegistration,
  { _tag: "CompanyVerified", companyId, partnerId, status: "Verified", at: "2026-03-02T10:00:00.000Z" },
  {
    _tag: "CompanySuspended",
    companyId,
    partnerId,
    status: "Suspended",
    reason: "Dwolla: customer_suspended",
    at: "2026-03-03T10:00:00.000Z",
  },
  { _tag: "CompanyReactivated", companyId, partnerId, status: "Verified", at: "2026-03-04T10:00:00.000Z" },
]

/** A company rejected, as stored before the status table. */
const storedRejected: ReadonlyArray<unknown> = [
  storedRegistration,
  {
    _tag: "CompanyRejected",
    companyId,
    partnerId,
    status: "Rejected",
    reason: "tax id does not match the company name",
    at: "2026-03-02T10:00:00.000Z",
  },
]

/** A payout account's failure, as stored before the status table. */
const storedErrored = {
  _tag: "PayoutAccountErrored",
  companyId,
  partnerId,
  payoutAccountId: "6b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a66",
  payoutId: "7b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a7a",
  returnCode: "R03",
  reason: "No account / unable to locate account",
  status: "Errored",
  at: "2026-03-05T10:00:00.000Z",
}

/** The same JSON in today's form: no `status` field. */
const withoutStatus = (stored: unknown): unknown => {
  const { status: _, ...today } = stored as Record<string, unknown>
  return today
}

const envelope = (event: CompanyEvent, index: number): CompaniesProjection.CompanyEnvelope => ({
  streamType: "Company",
  event,
  eventId: `event-${index}`,
  streamId: companyId,
  streamVersion: index + 1,
  globalPosition: index + 1,
  recordedAt: DateTime.makeUnsafe("2026-03-10T00:00:00.000Z"),
  metadata: {},
})

const replay = (events: ReadonlyArray<CompanyEvent>) =>
  events.reduce<CompaniesProjection.CompanyDocument | undefined>(
    (document, event, index) => CompaniesProjection.projection.apply(document, envelope(event, index)),
    undefined,
  )

describe("a company's status events stored with a status field", () => {
  it("decode to the same events as today's form, whose tag gives the same status", () => {
    for (const stored of [...storedVerified.slice(1), ...storedRejected.slice(1)]) {
      const event = decode(stored)
      assert.deepStrictEqual(event, decode(withoutStatus(stored)))
      assert.notProperty(event, "status")
      assert.strictEqual(statusOf(event), (stored as { status: string }).status)
    }
  })

  it("replay to the same state and read model as today's events", () => {
    for (const [history, status] of [
      [storedVerified, "Verified"],
      [storedRejected, "Rejected"],
    ] as const) {
      const stored = history.map((event) => decode(event))
      const today = history.map((event) => decode(withoutStatus(event)))
      assert.deepStrictEqual(fold(Company.aggregate, stored), fold(Company.aggregate, today))
      assert.strictEqual(Company.statusOf(fold(Company.aggregate, stored)), status)
      const document = replay(stored)
      assert.deepStrictEqual(document, replay(today))
      assert.strictEqual(document?.status, status)
    }
  })
})

describe("a payout account's failure stored with a status field", () => {
  it("decodes to the same event as today's form, which keeps the company's status", () => {
    const event = decode(storedErrored)
    assert.deepStrictEqual(event, decode(withoutStatus(storedErrored)))
    assert.notProperty(event, "status")
    assert.isUndefined(statusOf(event))
  })
})
