/**
 * Executable specification of a company the KYB provider suspends after
 * verification (issue 35 §3, Dwolla's `customer_suspended` and
 * `customer_deactivated`): Verified -> Suspended (no new collections: 422
 * COMPANY_NOT_VERIFIED; payouts pause), reactivated -> Verified; one not
 * verified yet is Rejected.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import * as Company from "../../src/companies/Company.ts"
import * as CompanyEvents from "../../src/companies/CompanyEvents.ts"
import { fold } from "../../src/kernel/Decider.ts"
import type { CompanyId, LocationId, PartnerId } from "../../src/kernel/Ids.ts"
import * as WhoMayCollect from "../../src/payments/WhoMayCollect.ts"
import { DeciderSpecification, Fixtures } from "../../src/testing/index.ts"

const spec = DeciderSpecification.forAggregate(Company.aggregate)

const partnerId = "1b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a61" as PartnerId
const companyId = "2b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a62" as CompanyId
const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
const later = DateTime.makeUnsafe("2026-03-02T10:00:00.000Z")

const registration = Fixtures.companyRegistrationBody({ locations: [] }) as unknown as Company.RegistrationInput
const registeredDecision = Company.decide(
  { _tag: "RegisterCompany", partnerId, companyId, locationIds: [] as Array<LocationId>, registration, at },
  Company.initialState,
)
if (registeredDecision._tag === "Failure") throw new Error(registeredDecision.failure.message)
const registered = registeredDecision.success[0]!
const verified = CompanyEvents.CompanyVerified.make({ companyId, partnerId, at })
const suspension: Company.SuspendCompany = {
  _tag: "SuspendCompany",
  companyId,
  reason: "Dwolla: customer_suspended",
  at: later,
}
const suspended = CompanyEvents.CompanySuspended.make({
  companyId,
  partnerId,
  reason: "Dwolla: customer_suspended",
  at: later,
})

describe("a Verified company", () => {
  it("suspended by the KYB provider becomes Suspended", () => {
    spec.given([registered, verified]).when(suspension).then([suspended])
    assert.strictEqual(Company.statusOf(fold(Company.aggregate, [registered, verified, suspended])), "Suspended")
  })
})

describe("a Suspended company", () => {
  it("collects nothing: COMPANY_NOT_VERIFIED", () => {
    assert.strictEqual(WhoMayCollect.companyRefusal("Suspended")?.code, "COMPANY_NOT_VERIFIED")
  })
  it("suspended again changes nothing", () => {
    spec.given([registered, verified, suspended]).when(suspension).thenNothingHappens()
  })
  it("verified again by the provider (reactivated) is Verified", () => {
    spec
      .given([registered, verified, suspended])
      .when({ _tag: "CompleteKyb", companyId, outcome: "Verified", at: later })
      .then([CompanyEvents.CompanyReactivated.make({ companyId, partnerId, at: later })])
    const reactivated = CompanyEvents.CompanyReactivated.make({ companyId, partnerId, at: later })
    assert.strictEqual(
      Company.statusOf(fold(Company.aggregate, [registered, verified, suspended, reactivated])),
      "Verified",
    )
  })
})

describe("an Unverified company", () => {
  it("suspended by the KYB provider before its verdict is Rejected", () => {
    spec
      .given([registered])
      .when(suspension)
      .then([
        CompanyEvents.CompanyRejected.make({
          companyId,
          partnerId,
          reason: "Dwolla: customer_suspended",
          at: later,
        }),
      ])
  })
})

describe("a Suspended company told of its verdict", () => {
  it("rejected by the provider after the suspension: it stays Suspended, nothing happens", () => {
    spec
      .given([registered, verified, suspended])
      .when({ _tag: "CompleteKyb", companyId, outcome: "Rejected", at: later })
      .thenNothingHappens()
  })
  it("a KYB submission is refused: its KYB is completed", () => {
    spec
      .given([registered, verified, suspended])
      .when({ _tag: "RecordKybSubmission", companyId, submissionId: "kyb-1", at: later })
      .thenFails({ _tag: "IllegalTransition", state: "Suspended" })
  })
})

describe("a company never registered, or Rejected, suspended by the provider", () => {
  it("never registered: the suspension is refused as not found", () => {
    spec.given([]).when(suspension).thenFails({ _tag: "NotFound" })
  })
  it("Rejected: the suspension changes nothing", () => {
    const rejected = CompanyEvents.CompanyRejected.make({ companyId, partnerId, at })
    spec.given([registered, rejected]).when(suspension).thenNothingHappens()
  })
})

describe("a suspension or a reactivation that does not fit the state leaves it unchanged", () => {
  const reactivated = CompanyEvents.CompanyReactivated.make({ companyId, partnerId, at: later })
  it("a suspension of a company Unverified or never registered", () => {
    spec.given([registered]).ignores(suspended)
    spec.given([]).ignores(suspended)
  })
  it("a reactivation of a company not Suspended", () => {
    spec.given([registered, verified]).ignores(reactivated)
    spec.given([registered]).ignores(reactivated)
    spec.given([]).ignores(reactivated)
  })
})
