import { assert, describe, it } from "@effect/vitest"
import { DateTime, Schema } from "effect"
import fc from "fast-check"
import * as Company from "../../src/companies/Company.ts"
import * as CompanyEvents from "../../src/companies/CompanyEvents.ts"
import { fold } from "../../src/kernel/Decider.ts"
import type { ValidationFailed } from "../../src/kernel/DomainError.ts"
import type { CompanyId, LocationId, PartnerId } from "../../src/kernel/Ids.ts"
import { DeciderSpecification, Fixtures, PropertyParams } from "../../src/testing/index.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(2026112610)

const spec = DeciderSpecification.forAggregate(Company.aggregate)

const partnerId = "1b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a61" as PartnerId
const otherPartnerId = "1b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6f" as PartnerId
const companyId = "2b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a62" as CompanyId
const firstLocationId = "3b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a63" as LocationId
const secondLocationId = "3b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a64" as LocationId
const newLocationId = "3b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a65" as LocationId
const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
const later = DateTime.makeUnsafe("2026-03-02T10:00:00.000Z")

// ---------------------------------------------------------------------------
// Fixtures: a valid registration as a partner would send it

type Json = { readonly [key: string]: unknown }

const location = (name = "Main Street Store"): Company.LocationInput => ({
  name,
  streetNumberAndName: "100 Main St",
  apartmentNumber: "",
  zipCode: "94105",
  city: "San Francisco",
  state: "CA",
})

const owner: Company.OwnerInput = {
  name: "Ada Lovelace",
  emailAddress: "ada@acme.example.com",
  contactNumber: "(415) 555-0100",
  title: "CEO",
  documentNumber: "D1234567",
  documentType: "DriversLicense",
  ssn: "123-45-6789",
  dateOfBirth: "1980-12-10",
  streetNumberAndName: "1 Analytical Way",
  apartmentNumber: "Apt 4",
  zipCode: "94105-1234",
  city: "San Francisco",
  state: "CA",
}

const employee = (n: number): Company.EmployeeInput => ({
  name: `Employee ${n}`,
  emailAddress: `employee${n}@acme.example.com`,
  contactNumber: "415-555-0101",
  title: "Cashier",
})

/** A registration that passes every rule; `overrides` replace top-level fields. */
const registration = (overrides: Json = {}): Company.RegistrationInput =>
  Fixtures.companyRegistrationBody({
    owner,
    employees: [employee(1), employee(2)],
    locations: [location(), location("Harbor Kiosk")],
    ...overrides,
  }) as unknown as Company.RegistrationInput

const withOwner = (fields: Json) => registration({ owner: { ...owner, ...fields } })
const withEmployee = (index: number, fields: Json) =>
  registration({
    employees: [employee(1), employee(2), employee(3)].map((e, i) => (i === index ? { ...e, ...fields } : e)),
  })
const withLocation = (fields: Json) => registration({ locations: [{ ...location(), ...fields }] })

const issuesOf = (input: unknown, when = at): ReadonlyArray<{ field: string; message: string }> => {
  const result = Company.validateRegistration(input, when)
  return result._tag === "Failure" ? result.failure.issues : []
}

const validated = (input: unknown, when = at): Company.ValidRegistration => {
  const result = Company.validateRegistration(input, when)
  if (result._tag === "Failure") throw new Error(`expected a valid registration, got ${result.failure.message}`)
  return result.success
}

/** The registration is refused for exactly one field, with a message containing `message`. */
const refusedFor = (input: unknown, field: string, message?: string, when = at): void => {
  const issues = issuesOf(input, when)
  assert.deepStrictEqual(
    issues.map((issue) => issue.field),
    [field],
    `issues were ${JSON.stringify(issues)}`,
  )
  if (message !== undefined) assert.include(issues[0]!.message, message)
}

const accepted = (input: unknown, when = at): void => assert.deepStrictEqual(issuesOf(input, when), [])

// ---------------------------------------------------------------------------
// Registration rules

describe("registration validation", () => {
  it("accepts a complete registration and normalizes it", () => {
    const valid = validated(registration({ name: "  Acme Coffee  " }))
    assert.strictEqual(valid.name, "Acme Coffee")
    assert.strictEqual(valid.taxId, "123456789")
    assert.strictEqual(valid.contactNumber, "+14155550199")
    assert.strictEqual(valid.owner.contactNumber, "+14155550100")
    assert.strictEqual(valid.owner.ssn, "123456789")
    assert.strictEqual(valid.employees[0]!.contactNumber, "+14155550101")
    assert.strictEqual(valid.locations.length, 2)
    assert.isFalse("apartmentNumber" in valid.locations[0]!, "a blank apartment number is left out")
    assert.strictEqual(valid.owner.apartmentNumber, "Apt 4")
  })

  describe("companyReferenceId (required since v0.4.6)", () => {
    it("is required", () => {
      const { companyReferenceId: _, ...rest } = registration()
      refusedFor(rest, "companyReferenceId", "is required")
    })
    it("must not be empty", () => refusedFor(registration({ companyReferenceId: "" }), "companyReferenceId", "empty"))
    it("is kept exactly as sent, so surrounding spaces are refused", () =>
      refusedFor(registration({ companyReferenceId: " acme-001" }), "companyReferenceId", "whitespace"))
    it("may be 64 characters but not 65", () => {
      accepted(registration({ companyReferenceId: "r".repeat(64) }))
      refusedFor(registration({ companyReferenceId: "r".repeat(65) }), "companyReferenceId", "at most 64")
    })
    it("null counts as missing", () =>
      refusedFor(registration({ companyReferenceId: null }), "companyReferenceId", "is required"))
    it("must be a string", () =>
      refusedFor(registration({ companyReferenceId: 1001 }), "companyReferenceId", "must be a string"))
  })

  describe("required text fields", () => {
    it("refuses a missing name", () => refusedFor(registration({ name: undefined }), "name", "is required"))
    it("refuses a blank name", () => refusedFor(registration({ name: "   " }), "name", "must not be empty"))
    it("refuses a name that is not a string", () => refusedFor(registration({ name: 42 }), "name", "must be a string"))
    it("refuses a null name as missing", () => refusedFor(registration({ name: null }), "name", "is required"))
    it("refuses a name longer than 200 characters", () => {
      accepted(registration({ name: "n".repeat(200) }))
      refusedFor(registration({ name: "n".repeat(201) }), "name", "at most 200")
    })
    it("refuses line breaks in text", () => refusedFor(registration({ city: "San\nFrancisco" }), "city", "control"))
    it("refuses the DEL character in text", () =>
      refusedFor(registration({ city: "San\u007fFrancisco" }), "city", "control"))
    it("refuses a missing street, city, owner title and employee name", () => {
      refusedFor(registration({ streetNumberAndName: "" }), "streetNumberAndName")
      refusedFor(registration({ city: null }), "city", "is required")
      refusedFor(withOwner({ title: "" }), "owner.title")
      refusedFor(withOwner({ documentNumber: "" }), "owner.documentNumber")
      refusedFor(withEmployee(1, { name: "" }), "employees[1].name")
      refusedFor(withLocation({ name: "" }), "locations[0].name")
    })
  })

  describe("apartmentNumber", () => {
    it("is optional: absent, null or blank means none", () => {
      const { apartmentNumber: _, ...rest } = registration()
      assert.isFalse("apartmentNumber" in validated(rest))
      assert.isFalse("apartmentNumber" in validated(registration({ apartmentNumber: null })))
      assert.isFalse("apartmentNumber" in validated(registration({ apartmentNumber: "  " })))
    })
    it("is at most 50 characters", () =>
      refusedFor(withLocation({ apartmentNumber: "a".repeat(51) }), "locations[0].apartmentNumber", "at most 50"))
  })

  describe("a missing field with a format is reported once, as required (not also as badly formatted)", () => {
    it("a missing ZIP code", () => refusedFor(registration({ zipCode: undefined }), "zipCode", "is required"))
    it("a missing company type", () =>
      refusedFor(registration({ companyType: undefined }), "companyType", "is required"))
    it("a missing contact number", () =>
      refusedFor(registration({ contactNumber: undefined }), "contactNumber", "is required"))
    it("a missing owner's date of birth", () =>
      refusedFor(withOwner({ dateOfBirth: undefined }), "owner.dateOfBirth", "is required"))
  })

  describe("email addresses", () => {
    it("accepts common addresses", () => {
      for (const email of [
        "a@b.co",
        "first.last+tag@sub.example.org",
        "o'brien@example.ie",
        "x_y-z@xn--p1ai.xn--p1ai",
      ]) {
        accepted(registration({ emailAddress: email }))
      }
    })
    it("refuses malformed addresses, naming the field", () => {
      for (const email of [
        "not-an-email",
        "a@b",
        "a@@b.com",
        "a b@c.com",
        ".a@b.com",
        "a..b@c.com",
        "a@-b.com",
        "a@b.c",
      ]) {
        refusedFor(registration({ emailAddress: email }), "emailAddress", "email address")
      }
    })
    it("refuses a domain of one label, however long (ops@localhost)", () => {
      for (const email of ["ops@localhost", "billing@intranet"]) {
        refusedFor(registration({ emailAddress: email }), "emailAddress", "email address")
      }
    })
    it("refuses addresses longer than 254 characters", () => {
      const long = `${"a".repeat(60)}@${"b".repeat(60)}.${"c".repeat(60)}.${"d".repeat(60)}.${"e".repeat(10)}.com`
      assert.isAbove(long.length, 254)
      refusedFor(registration({ emailAddress: long }), "emailAddress", "at most 254")
    })
    it("refuses a local part longer than 64 characters", () =>
      refusedFor(registration({ emailAddress: `${"a".repeat(65)}@example.com` }), "emailAddress"))
    it("checks the owner's and every employee's address", () => {
      refusedFor(withOwner({ emailAddress: "owner@" }), "owner.emailAddress")
      refusedFor(withEmployee(2, { emailAddress: "nope" }), "employees[2].emailAddress")
    })
  })

  describe("owner and employee emails are unique within the registration", () => {
    it("refuses an employee with the owner's address, ignoring case", () =>
      refusedFor(
        withEmployee(0, { emailAddress: "ADA@acme.example.com" }),
        "employees[0].emailAddress",
        "duplicates owner.emailAddress",
      ))
    it("refuses two employees with the same address, naming the later one", () =>
      refusedFor(
        withEmployee(2, { emailAddress: "Employee1@ACME.example.com" }),
        "employees[2].emailAddress",
        "duplicates employees[0].emailAddress",
      ))
    it("lets the company's own address equal the owner's", () =>
      accepted(registration({ emailAddress: owner.emailAddress })))
  })

  describe("phone numbers", () => {
    it("accepts E.164 and common US formats, normalized to E.164", () => {
      const forms = ["+15551234567", "(555) 123-4567", "555-123-4567", "555.123.4567", "555 123 4567", "5551234567"]
      for (const form of [...forms, "+1 (555) 123-4567", "1-555-123-4567"]) {
        assert.strictEqual(validated(registration({ contactNumber: form })).contactNumber, "+15551234567", form)
      }
      assert.strictEqual(validated(registration({ contactNumber: "+442079460000" })).contactNumber, "+442079460000")
    })
    it("refuses other text, naming the field", () => {
      for (const phone of ["123", "555-1234", "(155) 123-4567", "+0123456789", "phone", "555-123-45678", "+1234567"]) {
        refusedFor(registration({ contactNumber: phone }), "contactNumber", "phone number")
      }
      refusedFor(withOwner({ contactNumber: "12" }), "owner.contactNumber")
      refusedFor(withEmployee(1, { contactNumber: "12" }), "employees[1].contactNumber")
    })
  })

  describe("ZIP codes", () => {
    it("accepts 12345 and 12345-6789", () => {
      accepted(registration({ zipCode: "12345" }))
      accepted(registration({ zipCode: "12345-6789" }))
    })
    it("refuses anything else", () => {
      for (const zip of ["1234", "123456", "12345-678", "ABCDE", "12345 6789"]) {
        refusedFor(registration({ zipCode: zip }), "zipCode", "ZIP")
      }
      refusedFor(withOwner({ zipCode: "1" }), "owner.zipCode")
      refusedFor(withLocation({ zipCode: "1" }), "locations[0].zipCode")
    })
  })

  describe("state abbreviations", () => {
    it("accepts the 50 states, DC, the territories and the military codes", () => {
      assert.strictEqual(Company.usStateCodes.length, 50 + 1 + 5 + 3)
      for (const state of Company.usStateCodes) accepted(registration({ state }))
    })
    it("refuses lowercase, unknown codes and full names", () => {
      for (const state of ["ca", "XX", "California", "C", "FM"]) {
        refusedFor(registration({ state }), "state", "abbreviation")
      }
      refusedFor(withOwner({ state: "ZZ" }), "owner.state")
      refusedFor(withLocation({ state: "ZZ" }), "locations[0].state")
    })
  })

  describe("websiteUrl (optional since v0.4.6)", () => {
    it("may be absent, null or blank", () => {
      const { websiteUrl: _, ...rest } = registration()
      assert.isFalse("websiteUrl" in validated(rest))
      assert.isFalse("websiteUrl" in validated(registration({ websiteUrl: null })))
      assert.isFalse("websiteUrl" in validated(registration({ websiteUrl: "" })))
    })
    it("is kept, trimmed, in the accepted registration", () =>
      assert.strictEqual(
        validated(registration({ websiteUrl: " https://acme.example.com/menu " })).websiteUrl,
        "https://acme.example.com/menu",
      ))
    it("is at most 2048 characters", () => {
      const url = (length: number) => `https://acme.example.com/${"m".repeat(length - 25)}`
      assert.strictEqual(validated(registration({ websiteUrl: url(2048) })).websiteUrl, url(2048))
      refusedFor(registration({ websiteUrl: url(2049) }), "websiteUrl", "at most 2048")
    })
    it("must be an http or https address when present", () => {
      accepted(registration({ websiteUrl: "http://acme.example.com:8080/menu?lang=en#top" }))
      for (const url of ["ftp://acme.com", "acme.com", "https://", "https://localhost", "https://acme .com"]) {
        refusedFor(registration({ websiteUrl: url }), "websiteUrl", "http")
      }
    })
  })

  describe("companyType", () => {
    it("accepts ForProfit and the other listed types", () => {
      for (const companyType of Company.companyTypes) accepted(registration({ companyType }))
      assert.include(Company.companyTypes, "ForProfit")
    })
    it("refuses an unknown type, listing the accepted ones", () =>
      refusedFor(registration({ companyType: "LLC" }), "companyType", "ForProfit, NonProfit"))
  })

  describe("taxIdType and taxId", () => {
    it("refuses an unknown taxIdType", () =>
      refusedFor(registration({ taxIdType: "VAT" }), "taxIdType", "EIN, SSN, ITIN"))
    it("checks the taxId against its type and keeps the digits", () => {
      assert.strictEqual(validated(registration({ taxIdType: "EIN", taxId: "123456789" })).taxId, "123456789")
      assert.strictEqual(validated(registration({ taxIdType: "SSN", taxId: "123-45-6789" })).taxId, "123456789")
      assert.strictEqual(validated(registration({ taxIdType: "ITIN", taxId: "912-34-5678" })).taxId, "912345678")
      refusedFor(registration({ taxIdType: "EIN", taxId: "123-45-6789" }), "taxId", "EIN")
      refusedFor(registration({ taxIdType: "ITIN", taxId: "812-34-5678" }), "taxId", "ITIN")
      refusedFor(registration({ taxIdType: "SSN", taxId: "12345678" }), "taxId", "SSN")
    })
    it("still checks a taxId when its type is unknown: 9 digits, dashes allowed", () => {
      assert.deepStrictEqual(issuesOf(registration({ taxIdType: "VAT", taxId: "GB123" })), [
        { field: "taxIdType", message: "must be one of EIN, SSN, ITIN" },
        { field: "taxId", message: "must be 9 digits, dashes allowed" },
      ])
      refusedFor(registration({ taxIdType: "VAT", taxId: "12-3456789" }), "taxIdType")
    })
    it("refuses a missing taxId, naming it", () =>
      refusedFor(registration({ taxId: undefined }), "taxId", "is required"))
  })

  describe("the owner", () => {
    it("is required and must be an object", () => {
      refusedFor(registration({ owner: undefined }), "owner", "is required")
      refusedFor(registration({ owner: null }), "owner", "is required")
      refusedFor(registration({ owner: "Ada" }), "owner", "must be an object")
    })
    it("documentType must be a listed document", () =>
      refusedFor(
        withOwner({ documentType: "DriverLicense" }),
        "owner.documentType",
        "DriversLicense, Passport, StateId",
      ))
    it("ssn is 9 digits, with or without dashes, kept as digits", () => {
      assert.strictEqual(validated(withOwner({ ssn: "123456789" })).owner.ssn, "123456789")
      for (const ssn of ["12345678", "123-456-789", "123-45-678a", "1234-5-6789"]) {
        refusedFor(withOwner({ ssn }), "owner.ssn", "9 digits")
      }
    })
    it("dateOfBirth must be a real calendar date", () => {
      for (const dateOfBirth of ["1990-02-30", "1990/01/01", "01-02-1990", "1899-12-31"]) {
        refusedFor(withOwner({ dateOfBirth }), "owner.dateOfBirth", "real date")
      }
    })
    it("must be at least 18 on the day of registration (UTC)", () => {
      const registeredAt = DateTime.makeUnsafe("2026-03-10T23:59:00.000Z")
      accepted(withOwner({ dateOfBirth: "2008-03-10" }), registeredAt)
      refusedFor(withOwner({ dateOfBirth: "2008-03-11" }), "owner.dateOfBirth", "at least 18", registeredAt)
      refusedFor(withOwner({ dateOfBirth: "2030-01-01" }), "owner.dateOfBirth", "at least 18", registeredAt)
    })
    it("born on February 29 comes of age on February 28 of a common year", () => {
      accepted(withOwner({ dateOfBirth: "2008-02-29" }), DateTime.makeUnsafe("2026-02-28T00:00:00.000Z"))
      refusedFor(
        withOwner({ dateOfBirth: "2008-02-29" }),
        "owner.dateOfBirth",
        "",
        DateTime.makeUnsafe("2026-02-27T00:00:00.000Z"),
      )
    })
  })

  describe("employees and locations", () => {
    it("may be empty, null or absent", () => {
      accepted(registration({ employees: [], locations: [] }))
      const none = validated(registration({ employees: null, locations: null }))
      assert.deepStrictEqual([none.employees.length, none.locations.length], [0, 0])
      const { employees: _e, locations: _l, ...rest } = registration()
      const valid = validated(rest)
      assert.deepStrictEqual([valid.employees.length, valid.locations.length], [0, 0])
    })
    it("must be arrays of objects", () => {
      refusedFor(registration({ employees: "none" }), "employees", "must be an array")
      refusedFor(registration({ employees: [employee(1), 7] }), "employees[1]", "must be an object")
      refusedFor(registration({ locations: [null] }), "locations[0]", "must be an object")
    })
    it("are limited to 500 employees per registration: 500 are accepted, 501 refused", () => {
      const employees = (n: number) => Array.from({ length: n }, (_, i) => employee(i))
      assert.strictEqual(validated(registration({ employees: employees(500) })).employees.length, 500)
      refusedFor(registration({ employees: employees(501) }), "employees", "at most 500")
    })
    it("are limited to 500 locations per registration: 500 are accepted, 501 refused", () => {
      const locations = (n: number) => Array.from({ length: n }, (_, i) => location(`Store ${i}`))
      assert.strictEqual(validated(registration({ locations: locations(500) })).locations.length, 500)
      refusedFor(registration({ locations: locations(501) }), "locations", "at most 500")
    })
  })

  it("refuses a body that is not an object", () => refusedFor("hello", "body", "must be an object"))

  it("reports every bad field at once", () => {
    const input = registration({
      companyReferenceId: "",
      emailAddress: "bad",
      zipCode: "1",
      state: "Calif",
      contactNumber: "x",
      websiteUrl: "acme",
      companyType: "Corp",
      owner: { ...owner, emailAddress: "nope", dateOfBirth: "2020-01-01", documentType: "Card", ssn: "1" },
      employees: [employee(1), { ...employee(2), emailAddress: "EMPLOYEE1@acme.example.com", contactNumber: "0" }],
      locations: [location(), { ...location(), zipCode: "ABCDE", state: "ca", city: "" }],
    })
    assert.sameMembers(
      issuesOf(input).map((issue) => issue.field),
      [
        "companyReferenceId",
        "emailAddress",
        "zipCode",
        "state",
        "contactNumber",
        "websiteUrl",
        "companyType",
        "owner.emailAddress",
        "owner.documentType",
        "owner.ssn",
        "owner.dateOfBirth",
        "employees[1].emailAddress",
        "employees[1].contactNumber",
        "locations[1].zipCode",
        "locations[1].city",
        "locations[1].state",
      ],
    )
  })
})

describe("location validation (add-location body)", () => {
  it("names fields without a prefix", () => {
    const result = Company.validateLocation({ ...location(), zipCode: "9410", state: "Cal", name: "" })
    assert.strictEqual(result._tag, "Failure")
    assert.sameMembers(
      (result as { failure: ValidationFailed }).failure.issues.map((i) => i.field),
      ["name", "zipCode", "state"],
    )
  })
})

// ---------------------------------------------------------------------------
// The aggregate

const register = (input: Company.RegistrationInput = registration()): Company.RegisterCompany => ({
  _tag: "RegisterCompany",
  partnerId,
  companyId,
  locationIds: [firstLocationId, secondLocationId],
  registration: input,
  at,
})

const registered = (): Company.CompanyRegistered => {
  const { locations, owner: fullOwner, ...profile } = validated(registration())
  return Company.CompanyRegistered.make({
    companyId,
    partnerId,
    ...profile,
    owner: Company.toOwnerRecord(fullOwner),
    locations: [
      { locationId: firstLocationId, ...locations[0]! },
      { locationId: secondLocationId, ...locations[1]! },
    ],
    registeredAt: at,
  })
}

const addLocation = (
  fields: Json = {},
  locationId = newLocationId,
  by: PartnerId = partnerId,
): Company.AddLocation => ({
  _tag: "AddLocation",
  partnerId: by,
  companyId,
  locationId,
  location: { ...location("Airport Cart"), ...fields } as Company.LocationInput,
  at: later,
})

const locationAdded = Company.LocationAdded.make({
  companyId,
  partnerId,
  location: {
    locationId: newLocationId,
    name: "Airport Cart",
    streetNumberAndName: "100 Main St",
    zipCode: "94105",
    city: "San Francisco",
    state: "CA",
  },
  at: later,
})

const completeKyb = (outcome: "Verified" | "Rejected", reason?: string): Company.CompleteKyb => ({
  _tag: "CompleteKyb",
  companyId,
  outcome,
  ...(reason === undefined ? {} : { reason }),
  at: later,
})

const requireKybAction = (requirement: Company.KybRequirement): Company.RequireKybAction => ({
  _tag: "RequireKybAction",
  companyId,
  requirement,
  at: later,
})

const actionRequired = (requirement: Company.KybRequirement) =>
  Company.CompanyKybActionRequired.make({ companyId, partnerId, requirement, at: later })

const submitted = (submissionId: string): Company.RecordKybSubmission => ({
  _tag: "RecordKybSubmission",
  companyId,
  submissionId,
  at: later,
})

const verified = Company.CompanyVerified.make({ companyId, partnerId, at: later })
const rejected = Company.CompanyRejected.make({
  companyId,
  partnerId,
  reason: "tax id does not match the company name",
  at: later,
})

describe("a company not yet registered", () => {
  it("RegisterCompany records CompanyRegistered with the locations' ids; the company is Unverified", () => {
    spec.given([]).when(register()).then([registered()])
    spec
      .given([])
      .when(register())
      .thenState((state) => {
        assert.strictEqual(Company.statusOf(state), "Unverified")
        assert.deepStrictEqual(state._tag === "Initial" ? [] : state.locations.map((l) => l.locationId), [
          firstLocationId,
          secondLocationId,
        ])
      })
  })
  it("RegisterCompany with invalid fields is refused, naming every bad field", () => {
    spec
      .given([])
      .when(register(withLocation({ zipCode: "1" })))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "locations[0].zipCode", message: "must be a US ZIP code such as 12345 or 12345-6789" }],
      })
  })
  it("RegisterCompany needs exactly one distinct new location id per location", () => {
    const issue = (n: number) => [
      { field: "locationIds", message: `must hold ${n} distinct location ids, one per location` },
    ]
    spec
      .given([])
      .when({ ...register(), locationIds: [firstLocationId] })
      .thenFails({ _tag: "ValidationFailed", issues: issue(2) })
    spec
      .given([])
      .when({ ...register(), locationIds: [firstLocationId, firstLocationId] })
      .thenFails({ _tag: "ValidationFailed", issues: issue(2) })
  })
  it("RecordKybSubmission is refused as NotFound", () =>
    spec.given([]).when(submitted("kyb-1")).thenFails({ _tag: "NotFound", entity: "Company" }))
  it("AddLocation and CompleteKyb are refused as NotFound", () => {
    spec.given([]).when(addLocation()).thenFails({ _tag: "NotFound", entity: "Company" })
    spec.given([]).when(completeKyb("Verified")).thenFails({ _tag: "NotFound", entity: "Company" })
  })
  it("has no status", () => assert.isUndefined(Company.statusOf(Company.initialState)))
  it("CompanyRegistered keeps the owner's full SSN and ID document number for the KYB submission, with the SSN's last four", () => {
    // Sealed at rest under their own key (`company-kyb:<companyId>`, CompanyPersonalData.ts), shredded once submitted.
    const events = Company.aggregate.decide(
      register(withOwner({ ssn: "987-65-4321", documentNumber: "X7777777" })),
      Company.initialState,
    )
    if (events._tag !== "Success") return assert.fail("registration refused")
    const owner = JSON.parse(JSON.stringify(Schema.encodeSync(Company.CompanyEvent)(events.success[0]!))).owner
    assert.deepInclude(owner, { ssn: "987654321", documentNumber: "X7777777", ssnLastFour: "4321" })
  })
})

describe("an Unverified company", () => {
  const history = () => [registered()]
  it("RegisterCompany again is refused as AlreadyExists", () =>
    spec.given(history()).when(register()).thenFails({ _tag: "AlreadyExists", entity: "Company" }))
  it("AddLocation records LocationAdded and the location joins the company", () => {
    spec.given(history()).when(addLocation()).then([locationAdded])
    spec
      .given(history())
      .when(addLocation())
      .thenState((state) => {
        assert.strictEqual(state._tag, "Unverified")
        assert.include(state._tag === "Initial" ? [] : state.locations.map((l) => l.locationId), newLocationId)
      })
  })
  it("AddLocation with invalid fields is refused, naming each field", () => {
    const failure = spec
      .given(history())
      .when(addLocation({ zipCode: "ABC", state: "ca", city: "" }))
      .thenFails({ _tag: "ValidationFailed" }) as ValidationFailed
    assert.sameMembers(
      failure.issues.map((issue) => issue.field),
      ["zipCode", "state", "city"],
    )
  })
  it("AddLocation repeated with the same id and the same data does nothing (spacing aside)", () => {
    spec
      .given([...history(), locationAdded])
      .when(addLocation())
      .thenNothingHappens()
    spec
      .given([...history(), locationAdded])
      .when(addLocation({ name: "  Airport Cart " }))
      .thenNothingHappens()
    spec
      .given(history())
      .when(addLocation({ name: "Main Street Store" }, firstLocationId))
      .thenNothingHappens()
  })
  it("AddLocation reusing a location id for other data is refused as AlreadyExists", () =>
    spec
      .given([...history(), locationAdded])
      .when(addLocation({ city: "Oakland" }))
      .thenFails({ _tag: "AlreadyExists", entity: "Location" }))
  it("AddLocation reusing a location id with any other field is refused as AlreadyExists", () => {
    for (const fields of [
      { name: "Harbor Cart" },
      { streetNumberAndName: "200 Main St" },
      { apartmentNumber: "Suite 4" },
      { zipCode: "94107" },
      { state: "NV" },
    ])
      spec
        .given([...history(), locationAdded])
        .when(addLocation(fields))
        .thenFails({ _tag: "AlreadyExists", entity: "Location" })
  })
  it("RecordKybSubmission records the provider's submission once; the same one again changes nothing", () => {
    spec
      .given(history())
      .when(submitted("kyb-1"))
      .then([Company.CompanyKybSubmitted.make({ companyId, partnerId, submissionId: "kyb-1", at: later })])
    spec
      .given([
        ...history(),
        Company.CompanyKybSubmitted.make({ companyId, partnerId, submissionId: "kyb-1", at: later }),
      ])
      .when(submitted("kyb-1"))
      .thenNothingHappens()
  })
  it("RecordKybSubmission of another submission is refused: a company is submitted once", () =>
    spec
      .given([
        ...history(),
        Company.CompanyKybSubmitted.make({ companyId, partnerId, submissionId: "kyb-1", at: later }),
      ])
      .when(submitted("kyb-2"))
      .thenFails({
        _tag: "IllegalTransition",
        state: "Unverified",
        reason: "the company was already submitted for business verification",
      }))
  it("AddLocation by another partner is refused as NotFound", () =>
    spec
      .given(history())
      .when(addLocation({}, newLocationId, otherPartnerId))
      .thenFails({ _tag: "NotFound", entity: "Company" }))
  it("CompleteKyb Verified records CompanyVerified; the company is Verified", () => {
    spec.given(history()).when(completeKyb("Verified")).then([verified])
    spec
      .given(history())
      .when(completeKyb("Verified"))
      .thenState((state) => assert.strictEqual(Company.statusOf(state), "Verified"))
  })
  it("CompleteKyb Rejected records CompanyRejected with the reason; the company is Rejected", () => {
    spec.given(history()).when(completeKyb("Rejected", "tax id does not match the company name")).then([rejected])
    spec
      .given(history())
      .when(completeKyb("Rejected"))
      .then([Company.CompanyRejected.make({ companyId, partnerId, at: later })])
  })
})

describe("a Verified company", () => {
  const history = () => [registered(), verified]
  it("AddLocation is allowed", () => spec.given(history()).when(addLocation()).then([locationAdded]))
  it("CompleteKyb Verified again does nothing", () =>
    spec.given(history()).when(completeKyb("Verified", "second notice")).thenNothingHappens())
  it("CompleteKyb Rejected is refused: verification is decided once", () =>
    spec.given(history()).when(completeKyb("Rejected")).thenFails({
      _tag: "IllegalTransition",
      entity: "Company",
      state: "Verified",
      command: "CompleteKyb",
      reason: "KYB already completed with outcome Verified; a company's verification is decided once",
    }))
  it("RecordKybSubmission is refused: KYB already completed", () =>
    spec.given(history()).when(submitted("kyb-1")).thenFails({
      _tag: "IllegalTransition",
      state: "Verified",
      reason: "KYB already completed with outcome Verified",
    }))
  it("RegisterCompany is refused as AlreadyExists", () =>
    spec.given(history()).when(register()).thenFails({ _tag: "AlreadyExists", entity: "Company" }))
})

describe("a Rejected company", () => {
  const history = () => [registered(), rejected]
  it("keeps the rejection reason", () =>
    spec
      .given(history())
      .when(completeKyb("Rejected"))
      .thenState((state) =>
        assert.strictEqual(
          state._tag === "Rejected" ? state.reason : undefined,
          "tax id does not match the company name",
        ),
      ))
  it("AddLocation is refused", () =>
    spec.given(history()).when(addLocation()).thenFails({
      _tag: "IllegalTransition",
      entity: "Company",
      state: "Rejected",
      command: "AddLocation",
      reason: "locations cannot be added to a Rejected company",
    }))
  it("RecordKybSubmission is refused: KYB already completed", () =>
    spec.given(history()).when(submitted("kyb-1")).thenFails({
      _tag: "IllegalTransition",
      state: "Rejected",
      reason: "KYB already completed with outcome Rejected",
    }))
  it("CompleteKyb Rejected again does nothing", () =>
    spec.given(history()).when(completeKyb("Rejected", "another reason")).thenNothingHappens())
  it("CompleteKyb Verified is refused: verification is decided once", () =>
    spec
      .given(history())
      .when(completeKyb("Verified"))
      .thenFails({ _tag: "IllegalTransition", entity: "Company", state: "Rejected", command: "CompleteKyb" }))
})

describe("an event that does not fit the state leaves it unchanged", () => {
  it("a second registration, even with other data", () => {
    spec.given([registered()]).ignores(registered())
    spec.given([registered()]).ignores(Company.CompanyRegistered.make({ ...registered(), registeredAt: later }))
  })
  it("a KYB submission of a company already Verified", () => {
    spec
      .given([registered(), verified])
      .ignores(Company.CompanyKybSubmitted.make({ companyId, partnerId, submissionId: "kyb-1", at: later }))
  })
  it("a KYB requirement for a company already Verified or Rejected", () => {
    spec.given([registered(), verified]).ignores(actionRequired("DocumentRequired"))
    spec.given([registered(), rejected]).ignores(actionRequired("DocumentRequired"))
  })
  it("a location, a verification or a rejection of a company never registered", () => {
    spec.given([]).ignores(locationAdded)
    spec.given([]).ignores(verified)
    spec.given([]).ignores(rejected)
  })
  it("a verification or a rejection of a company already Verified or Rejected", () => {
    spec.given([registered(), verified]).ignores(rejected)
    spec.given([registered(), rejected]).ignores(verified)
    spec.given([registered(), verified]).ignores(verified)
  })
})

describe("stored events", () => {
  it("every event survives its JSON encoding", () => {
    const codec = Schema.toCodecJson(Company.CompanyEvent)
    for (const event of [registered(), locationAdded, verified, rejected]) {
      const json = JSON.parse(JSON.stringify(Schema.encodeSync(codec)(event)))
      assert.deepStrictEqual(Schema.encodeSync(codec)(Schema.decodeUnknownSync(codec)(json)), json)
    }
  })
})

// ---------------------------------------------------------------------------
// Properties over generated command sequences after registration

const locationIdPool = [firstLocationId, newLocationId, "3b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a66" as LocationId]
const arbitraryCommand: fc.Arbitrary<Company.Command> = fc.oneof(
  fc
    .record({
      outcome: fc.constantFrom("Verified" as const, "Rejected" as const),
      reason: fc.option(fc.constantFrom("documents unreadable", "ok"), { nil: undefined }),
    })
    .map(({ outcome, reason }) => completeKyb(outcome, reason)),
  fc
    .record({
      id: fc.constantFrom(...locationIdPool),
      fields: fc.constantFrom<Json>({}, { name: "Main Street Store" }, { city: "Oakland" }, { zipCode: "bad" }),
      by: fc.constantFrom(partnerId, partnerId, otherPartnerId),
    })
    .map(({ id, fields, by }) => addLocation(fields, id, by)),
  fc.constant(register()),
)

interface Run {
  readonly events: ReadonlyArray<Company.CompanyEvent>
  readonly states: ReadonlyArray<Company.State>
}

/** Decides each command in turn, recording the events and the state after each step. */
const runAll = (history: ReadonlyArray<Company.CompanyEvent>, commands: ReadonlyArray<Company.Command>): Run => {
  let state = fold(Company.aggregate, history)
  const events: Array<Company.CompanyEvent> = []
  const states: Array<Company.State> = [state]
  for (const command of commands) {
    const decision = Company.decide(command, state)
    if (decision._tag === "Success") {
      events.push(...decision.success)
      state = fold(Company.aggregate, decision.success, state)
    }
    states.push(state)
  }
  return { events, states }
}

const isDecision = (event: Company.CompanyEvent) => event._tag === "CompanyVerified" || event._tag === "CompanyRejected"

const stable = (value: unknown): string =>
  JSON.stringify(value, (_key, v) =>
    v !== null && typeof v === "object" && !Array.isArray(v) && typeof (v as { toJSON?: unknown }).toJSON !== "function"
      ? Object.fromEntries(Object.entries(v as Json).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  )

describe("properties", () => {
  it("company verification is decided at most once, by the first KYB outcome", () => {
    fc.assert(
      fc.property(fc.array(arbitraryCommand, { maxLength: 12 }), (commands) => {
        const { events } = runAll([registered()], commands)
        const decisions = events.filter(isDecision)
        const firstKyb = commands.find((c): c is Company.CompleteKyb => c._tag === "CompleteKyb")
        assert.isAtMost(decisions.length, 1)
        assert.strictEqual(decisions[0] && CompanyEvents.statusOf(decisions[0]), firstKyb?.outcome)
        assert.strictEqual(decisions[0]?.reason, firstKyb?.reason)
      }),
      seeded({ numRuns: 200 }),
    )
  })

  it("replaying the stored events reproduces the state", () => {
    const codec = Schema.toCodecJson(Company.CompanyEvent)
    fc.assert(
      fc.property(fc.array(arbitraryCommand, { maxLength: 12 }), (commands) => {
        const { events, states } = runAll([], [register(), ...commands])
        const stored = JSON.parse(JSON.stringify(events.map((e) => Schema.encodeSync(codec)(e))))
        const replayed = fold(
          Company.aggregate,
          (stored as Array<unknown>).map((e) => Schema.decodeUnknownSync(codec)(e)),
        )
        assert.strictEqual(stable(replayed), stable(states[states.length - 1]))
        // and the locations are exactly the registered ones plus each id added by the owning partner with valid data
        const added = commands.flatMap((c) =>
          c._tag === "AddLocation" && c.partnerId === partnerId && c.location.zipCode !== "bad" ? [c.locationId] : [],
        )
        const rejectedAt = events.findIndex((e) => e._tag === "CompanyRejected")
        if (rejectedAt === -1 && replayed._tag !== "Initial") {
          assert.sameMembers(
            replayed.locations.map((l) => l.locationId),
            [...new Set([firstLocationId, secondLocationId, ...added])],
          )
        }
      }),
      seeded({ numRuns: 200 }),
    )
  })

  it("a Rejected company never becomes Verified", () => {
    fc.assert(
      fc.property(fc.array(arbitraryCommand, { maxLength: 12 }), (commands) => {
        const { events, states } = runAll([registered(), rejected], commands)
        assert.isFalse(events.some(isDecision))
        for (const state of states) assert.strictEqual(Company.statusOf(state), "Rejected")
        assert.isFalse(events.some((e) => e._tag === "LocationAdded"))
      }),
      seeded({ numRuns: 200 }),
    )
  })
})

describe("an Unverified company whose KYB provider asks for something before deciding", () => {
  it("RequireKybAction records CompanyKybActionRequired; the company stays Unverified", () => {
    spec
      .given([registered()])
      .when(requireKybAction("DocumentRequired"))
      .then([actionRequired("DocumentRequired")])
    spec
      .given([registered()])
      .when(requireKybAction("DocumentRequired"))
      .thenState((state) => {
        assert.strictEqual(Company.statusOf(state), "Unverified")
        assert.strictEqual(state._tag === "Unverified" ? state.kybRequirement : undefined, "DocumentRequired")
      })
  })
  it("the same requirement again does nothing (one webhook per requirement)", () =>
    spec
      .given([registered(), actionRequired("DocumentRequired")])
      .when(requireKybAction("DocumentRequired"))
      .thenNothingHappens())
  it("another requirement is recorded", () =>
    spec
      .given([registered(), actionRequired("DocumentRequired")])
      .when(requireKybAction("RetryRequired"))
      .then([actionRequired("RetryRequired")]))
  it("the verdict still comes: CompleteKyb Verified records CompanyVerified", () =>
    spec
      .given([registered(), actionRequired("RetryRequired")])
      .when(completeKyb("Verified"))
      .then([verified]))
})

describe("a decided company told of a requirement late", () => {
  it("RequireKybAction after Verified or Rejected does nothing", () => {
    spec.given([registered(), verified]).when(requireKybAction("DocumentRequired")).thenNothingHappens()
    spec.given([registered(), rejected]).when(requireKybAction("RetryRequired")).thenNothingHappens()
  })
  it("RequireKybAction for a company never registered is refused as NotFound", () =>
    spec.given([]).when(requireKybAction("DocumentRequired")).thenFails({ _tag: "NotFound", entity: "Company" }))
})
