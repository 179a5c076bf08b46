import { assert, describe, it } from "@effect/vitest"
import { DateTime, Schema } from "effect"
import { type CompanyDocument, type CompanyEnvelope, projection } from "../../src/companies/CompaniesProjection.ts"
import * as Company from "../../src/companies/Company.ts"
import type { CompanyId, CompanyReferenceId, LocationId, PartnerId } from "../../src/kernel/Ids.ts"
import { ProjectionSpecification } from "../../src/testing/index.ts"

const partnerId = "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b" as PartnerId
const companyId = "2b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a62" as CompanyId
const locationId = "3b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a63" as LocationId
const newLocationId = "3b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a65" as LocationId
const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
const later = DateTime.makeUnsafe("2026-03-02T10:00:00.000Z")

let position = 0
const envelope = (event: Company.CompanyEvent): CompanyEnvelope => ({
  streamType: "Company",
  event,
  eventId: `00000000-0000-4000-8000-${String(++position).padStart(12, "0")}`,
  streamId: `Company-${companyId}`,
  streamVersion: position,
  globalPosition: position,
  recordedAt: at,
  metadata: {},
})

const address = { streetNumberAndName: "100 Main St", zipCode: "94105", city: "San Francisco", state: "CA" }

const registered = Company.CompanyRegistered.make({
  companyId,
  partnerId,
  companyReferenceId: "acme-001" as CompanyReferenceId,
  name: "Acme Coffee",
  emailAddress: "hello@acme.example.com",
  taxId: "123456789",
  taxIdType: "EIN",
  ...address,
  apartmentNumber: "Suite 200",
  contactNumber: "+14155550199",
  companyType: "ForProfit",
  owner: {
    name: "Ada Lovelace",
    emailAddress: "ada@acme.example.com",
    contactNumber: "+14155550100",
    title: "CEO",
    documentType: "Passport",
    ssnLastFour: "4321",
    dateOfBirth: "1980-12-10" as Company.OwnerRecord["dateOfBirth"],
    ...address,
  },
  employees: [],
  locations: [{ locationId, name: "Main Street Store", ...address }],
  registeredAt: at,
})

const fold = (events: ReadonlyArray<Company.CompanyEvent>): CompanyDocument | undefined =>
  events.reduce<CompanyDocument | undefined>((doc, event) => projection.apply(doc, envelope(event)), undefined)

const spec = ProjectionSpecification.forProjection(projection, {
  streamType: "Company",
  streamId: `Company-${companyId}`,
})

describe("the companies projection", () => {
  it("a registration makes an Unverified document with the partner-readable fields, without owner, employees or tax id", () => {
    const doc = fold([registered])!
    assert.strictEqual(doc.status, "Unverified")
    assert.strictEqual(doc.companyReferenceId, "acme-001")
    assert.strictEqual(doc.apartmentNumber, "Suite 200")
    assert.isUndefined(doc.websiteUrl)
    const json = JSON.stringify(Schema.encodeSync(projection.document)(doc))
    for (const hidden of ["owner", "employees", "taxId", "Ada", "4321"]) assert.notInclude(json, hidden)
    assert.deepStrictEqual(projection.index(doc), {
      partnerId,
      keys: { companyReferenceId: "acme-001" },
      sortKey: "2026-03-01T10:00:00.000Z",
    })
    assert.strictEqual(projection.key(envelope(registered)), companyId)
  })

  it("a new location is appended; a replayed one is not duplicated", () => {
    const added = Company.LocationAdded.make({
      companyId,
      partnerId,
      location: { locationId: newLocationId, name: "Kiosk", ...address },
      at: later,
    })
    spec.given([registered, added, added]).thenDocument((doc) =>
      assert.deepStrictEqual(
        doc.locations.map((l) => l.locationId),
        [locationId, newLocationId],
      ),
    )
  })

  it("KYB Verified sets the status and verifiedAt; a later Rejected does not change a decided company", () => {
    const verified = fold([registered, Company.CompanyVerified.make({ companyId, partnerId, at: later })])!
    spec
      .given([
        registered,
        Company.CompanyVerified.make({ companyId, partnerId, at: later }),
        Company.CompanyRejected.make({ companyId, partnerId, at: later }),
      ])
      .then(verified)
    assert.strictEqual(verified.status, "Verified")
    assert.strictEqual(DateTime.formatIso(verified.verifiedAt!), "2026-03-02T10:00:00.000Z")
    assert.isUndefined(verified.rejectedAt)
  })

  it("KYB Rejected sets the status, rejectedAt and the reason", () => {
    const doc = fold([
      registered,
      Company.CompanyRejected.make({ companyId, partnerId, reason: "mismatch", at: later }),
    ])!
    assert.deepInclude(doc, { status: "Rejected", rejectionReason: "mismatch" })
    assert.strictEqual(DateTime.formatIso(doc.rejectedAt!), "2026-03-02T10:00:00.000Z")
  })

  it("events before a registration change nothing, and other streams are ignored", () => {
    spec.given([Company.CompanyVerified.make({ companyId, partnerId, at: later })]).thenNoDocument()
    const other = { ...envelope(registered), streamType: "CompanyReference" } as unknown as CompanyEnvelope
    assert.isUndefined(projection.key(other))
  })

  it("documents survive their JSON codec unchanged", () => {
    const doc = fold([registered])!
    const codec = projection.document
    assert.deepStrictEqual(Schema.decodeUnknownSync(codec)(Schema.encodeSync(codec)(doc)), doc)
  })
})
