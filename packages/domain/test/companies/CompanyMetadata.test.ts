/**
 * Executable specification of a company's metadata (`CompanyMetadata.ts`, a command of the Company
 * aggregate): replaced whole in any status, the same metadata again records nothing, refused when it breaks
 * the metadata rules and for another partner's company.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import * as Company from "../../src/companies/Company.ts"
import { fold } from "../../src/kernel/Decider.ts"
import type { CompanyId, LocationId, PartnerId } from "../../src/kernel/Ids.ts"
import { DeciderSpecification, Fixtures } from "../../src/testing/index.ts"

const spec = DeciderSpecification.forAggregate(Company.aggregate)

const partnerId = "1b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a61" as PartnerId
const otherPartnerId = "1b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6f" as PartnerId
const companyId = "2b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a62" as CompanyId
const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
const later = DateTime.makeUnsafe("2026-03-02T10:00:00.000Z")

const registration = Fixtures.companyRegistrationBody({
  locations: [],
  metadata: { merchantRef: "M-1" },
}) as unknown as Company.RegistrationInput
const registeredDecision = Company.decide(
  { _tag: "RegisterCompany", partnerId, companyId, locationIds: [] as Array<LocationId>, registration, at },
  Company.initialState,
)
if (registeredDecision._tag === "Failure") throw new Error(registeredDecision.failure.message)
const registered = registeredDecision.success[0]!
const rejected = Company.CompanyRejected.make({ companyId, partnerId, at })

const setMetadata = (
  metadata: Record<string, string>,
  overrides: Partial<Company.SetCompanyMetadata> = {},
): Company.SetCompanyMetadata => ({
  _tag: "SetCompanyMetadata",
  partnerId,
  companyId,
  metadata,
  at: later,
  ...overrides,
})

const metadataSet = (metadata: Record<string, string>) =>
  Company.CompanyMetadataSet.make({ companyId, partnerId, metadata, at: later })

describe("a company registered with metadata", () => {
  it("replaces the metadata whole", () => {
    spec
      .given([registered])
      .when(setMetadata({ region: "west" }))
      .then([metadataSet({ region: "west" })])
  })

  it("records nothing when the same metadata is set again", () => {
    spec
      .given([registered])
      .when(setMetadata({ merchantRef: "M-1" }))
      .thenNothingHappens()
  })

  it("refuses metadata that breaks the rules, naming the key", () => {
    spec
      .given([registered])
      .when(setMetadata({ ["k".repeat(41)]: "v" }))
      .thenFails({ _tag: "ValidationFailed" })
  })

  it("is not found by another partner", () => {
    spec
      .given([registered])
      .when(setMetadata({ a: "b" }, { partnerId: otherPartnerId }))
      .thenFails({ _tag: "NotFound" })
  })
})

describe("a Rejected company", () => {
  it("still takes the partner's metadata (the partner's data, not the company's business)", () => {
    spec
      .given([registered, rejected])
      .when(setMetadata({ closed: "yes" }))
      .then([metadataSet({ closed: "yes" })])
  })
})

describe("a company not registered", () => {
  it("is not found", () => {
    spec
      .given([])
      .when(setMetadata({ a: "b" }))
      .thenFails({ _tag: "NotFound" })
  })
})

describe("a company whose metadata was set", () => {
  it("holds the new metadata, the rest of its profile unchanged", () => {
    const before = fold(Company.aggregate, [registered])
    const after = fold(Company.aggregate, [registered, metadataSet({ region: "west" })])
    assert.isTrue(before._tag !== "Initial" && after._tag !== "Initial")
    if (before._tag === "Initial" || after._tag === "Initial") return
    assert.deepStrictEqual(after, { ...before, profile: { ...before.profile, metadata: { region: "west" } } })
  })
  it("a metadata set for a company never registered does not fit and leaves it unchanged", () => {
    spec.given([]).ignores(metadataSet({ region: "west" }))
  })
})
