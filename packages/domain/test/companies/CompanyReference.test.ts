import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import fc from "fast-check"
import * as CompanyReference from "../../src/companies/CompanyReference.ts"
import { fold } from "../../src/kernel/Decider.ts"
import type { CompanyId, CompanyReferenceId, PartnerId } from "../../src/kernel/Ids.ts"
import { DeciderSpecification, PropertyParams } from "../../src/testing/index.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(2026112609)

const spec = DeciderSpecification.forAggregate(CompanyReference.aggregate)

const partnerId = "1b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a61" as PartnerId
const otherPartnerId = "1b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6f" as PartnerId
const companyId = "2b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a62" as CompanyId
const otherCompanyId = "2b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a63" as CompanyId
const reference = "acme-001" as CompanyReferenceId
const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")

const reserve = (forCompany = companyId): CompanyReference.ReserveCompanyReference => ({
  _tag: "ReserveCompanyReference",
  partnerId,
  companyReferenceId: reference,
  companyId: forCompany,
  at,
})

const reserved = CompanyReference.CompanyReferenceReserved.make({
  partnerId,
  companyReferenceId: reference,
  companyId,
  at,
})

describe("a free company reference", () => {
  it("Reserve records CompanyReferenceReserved for the company", () => spec.given([]).when(reserve()).then([reserved]))
  it("is named per partner: two partners' streams differ", () =>
    assert.notStrictEqual(
      CompanyReference.idOf(partnerId, reference),
      CompanyReference.idOf(otherPartnerId, reference),
    ))
})

describe("a reserved company reference", () => {
  it("Reserve for another company is refused as AlreadyExists", () =>
    spec
      .given([reserved])
      .when(reserve(otherCompanyId))
      .thenFails({ _tag: "AlreadyExists", entity: "CompanyReference" }))
  it("Reserve again for the same company does nothing", () =>
    spec.given([reserved]).when(reserve()).thenNothingHappens())
  it("a second reservation event, for another company, leaves it reserved for the first", () =>
    spec.given([reserved]).ignores(
      CompanyReference.CompanyReferenceReserved.make({
        partnerId,
        companyReferenceId: reference,
        companyId: otherCompanyId,
        at,
      }),
    ))
})

describe("whatever the requests", () => {
  it("a reference names at most one company, the first one that reserved it", () =>
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(companyId, otherCompanyId), { minLength: 1, maxLength: 10 }),
        (companies) => {
          let events: ReadonlyArray<CompanyReference.CompanyReferenceEvent> = []
          for (const c of companies) {
            const decision = CompanyReference.decide(reserve(c), fold(CompanyReference.aggregate, events))
            if (decision._tag === "Success") events = [...events, ...decision.success]
          }
          assert.strictEqual(events.length, 1)
          const state = fold(CompanyReference.aggregate, events)
          assert.deepInclude(state, { _tag: "Reserved", companyId: companies[0] })
        },
      ),
      seeded({ numRuns: 200 }),
    ))
})
