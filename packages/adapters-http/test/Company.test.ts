/**
 * Companies through the HTTP interface: POST /Company/Create,
 * POST /Company/{companyReferenceId}/Locations, GET /company/status. Exact
 * field names, auth (401/403), validation (422 with every field), duplicate
 * reference (409), tenancy (404), status query rules, and the
 * COMPANY_VERIFICATION_STATUS_CHANGED notification after KYB.
 */

import SwaggerParser from "@apidevtools/swagger-parser"
import { assert, describe, it } from "@effect/vitest"
import { Companies, type Ids, Outbox } from "@partnerpay/domain"
import { Fixtures } from "@partnerpay/domain/testing"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { otherPartnerId, partnerId, send } from "./fixtures.ts"
import { customerToken, makeSharedServer, partnerTokenFor } from "./partyFixtures.ts"

const { handler, run, dispose } = await makeSharedServer()
afterAll(dispose)

const partner = await Effect.runPromise(partnerTokenFor(partnerId))
const otherPartner = await Effect.runPromise(partnerTokenFor(otherPartnerId))
const customer = await Effect.runPromise(
  customerToken(partnerId, "7e57ab1e-0000-4000-8000-0000000000b1" as Ids.RegistrationId),
)

/** `token` null sends no Authorization header. */
const request = (method: string, token: string | null, body?: unknown): RequestInit => ({
  method,
  headers: {
    "content-type": "application/json",
    ...(token === null ? {} : { authorization: `Bearer ${token}` }),
  },
  ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
})

let counter = 0
const uniqueReference = () => `ref-${Date.now()}-${++counter}`

/** A valid create request body (spec 2.2). */
const createBody = (overrides: Record<string, unknown> = {}) =>
  Fixtures.companyRegistrationBody({
    companyReferenceId: uniqueReference(),
    locations: [{ ...Fixtures.mainStreetStore, apartmentNumber: "" }],
    ...overrides,
  })

const locationBody = {
  name: "Airport Cart",
  streetNumberAndName: "SFO Terminal 2",
  apartmentNumber: "Gate 50",
  zipCode: "94128",
  city: "San Francisco",
  state: "CA",
}

const create = (body: unknown, token: string | null = partner) =>
  send(handler, "/Company/Create", request("POST", token, body))

/** Registers a company through the API; returns its ids and reference. */
const registered = (token = partner) =>
  Effect.gen(function* () {
    const body = createBody()
    const r = yield* create(body, token)
    assert.strictEqual(r.status, 200, r.text)
    const json = r.json as { companyId: Ids.CompanyId; locationIds: ReadonlyArray<string> }
    return { ...json, reference: body.companyReferenceId }
  })

const fieldsOf = (json: unknown): ReadonlyArray<string> =>
  ((json as { errors?: ReadonlyArray<{ field: string }> }).errors ?? []).map((e) => e.field)

const expectProblem = (r: { status: number; headers: Headers; json: unknown }, status: number, code: string) => {
  assert.strictEqual(r.status, status, JSON.stringify(r.json))
  assert.strictEqual(r.headers.get("content-type"), "application/problem+json")
  assert.strictEqual((r.json as { code: string }).code, code)
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe("POST /Company/Create", () => {
  it.effect("a field the operation does not define, at any depth, is 400 naming it, and no company is created", () =>
    Effect.gen(function* () {
      const body = createBody({ colour: "blue", owner: { ...Fixtures.owner, nickname: "Ada" } })
      const r = yield* create(body)
      expectProblem(r, 400, "BAD_REQUEST")
      assert.sameMembers([...fieldsOf(r.json)], ["colour", "owner.nickname"])
      // The same reference is still free: the refused request changed nothing.
      const retried = yield* create({ ...createBody(), companyReferenceId: body.companyReferenceId })
      assert.strictEqual(retried.status, 200, retried.text)
    }),
  )

  it.effect("answers 200 with exactly companyId, one locationId per location and the metadata", () =>
    Effect.gen(function* () {
      const r = yield* create(createBody())
      assert.strictEqual(r.status, 200, r.text)
      const body = r.json as Record<string, unknown>
      assert.deepStrictEqual(Object.keys(body).sort(), ["companyId", "locationIds", "metadata"])
      assert.deepStrictEqual(body.metadata, {})
      assert.match(body.companyId as string, uuidPattern)
      assert.strictEqual((body.locationIds as Array<string>).length, 1)
      assert.match((body.locationIds as Array<string>)[0]!, uuidPattern)
    }),
  )

  it.effect("accepts a minimal body: no websiteUrl, apartmentNumber, employees or locations", () =>
    Effect.gen(function* () {
      const { websiteUrl: _w, apartmentNumber: _a, employees: _e, locations: _l, ...minimal } = createBody()
      const r = yield* create(minimal)
      assert.strictEqual(r.status, 200, r.text)
      assert.deepStrictEqual((r.json as { locationIds: Array<string> }).locationIds, [])
    }),
  )

  it.effect(
    "refuses bad email, phone, ZIP, state and duplicate owner/employee emails in one 422 listing every field",
    () =>
      Effect.gen(function* () {
        const r = yield* create(
          createBody({
            emailAddress: "not-an-email",
            contactNumber: "12",
            zipCode: "ABCDE",
            state: "California",
            employees: [
              { name: "Bob", emailAddress: "ADA@acme.example.com", contactNumber: "415-555-0101", title: "Cashier" },
            ],
          }),
        )
        expectProblem(r, 422, "VALIDATION_FAILED")
        assert.sameMembers(
          [...fieldsOf(r.json)],
          ["emailAddress", "contactNumber", "zipCode", "state", "employees[0].emailAddress"],
        )
        const duplicate = (r.json as { errors: Array<{ field: string; message: string }> }).errors.find(
          (e) => e.field === "employees[0].emailAddress",
        )
        assert.include(duplicate?.message, "duplicates owner.emailAddress")
      }),
  )

  it.effect("reports missing and mistyped fields in the same 422, with dotted paths into the owner and locations", () =>
    Effect.gen(function* () {
      const { name: _name, ...body } = createBody({
        taxIdType: 42,
        owner: { ...createBody().owner, ssn: undefined, zipCode: "1" },
        locations: [{ ...locationBody, state: "ca" }],
      })
      const r = yield* create(body)
      expectProblem(r, 422, "VALIDATION_FAILED")
      assert.sameMembers(
        [...fieldsOf(r.json)],
        ["name", "taxIdType", "owner.ssn", "owner.zipCode", "locations[0].state"],
      )
    }),
  )

  it.effect("a body that is not a JSON object is a 400", () =>
    Effect.gen(function* () {
      expectProblem(yield* create("[1,2]"), 400, "BAD_REQUEST")
      expectProblem(yield* create("{not json"), 400, "BAD_REQUEST")
    }),
  )

  it.effect(
    "a companyReferenceId the partner already used is 409 DUPLICATE_COMPANY_REFERENCE; another partner may use it",
    () =>
      Effect.gen(function* () {
        const body = createBody()
        assert.strictEqual((yield* create(body)).status, 200)
        expectProblem(yield* create({ ...body, name: "Second Try" }), 409, "DUPLICATE_COMPANY_REFERENCE")
        assert.strictEqual((yield* create(body, otherPartner)).status, 200)
      }),
  )

  it.effect("needs a partner token: none is 401, a customer token is 403", () =>
    Effect.gen(function* () {
      expectProblem(yield* create(createBody(), null), 401, "UNAUTHORIZED")
      expectProblem(yield* create(createBody(), customer), 403, "FORBIDDEN")
    }),
  )

  it.effect("paths are case-sensitive: /Company/create is 404", () =>
    Effect.gen(function* () {
      const r = yield* send(handler, "/Company/create", request("POST", partner, createBody()))
      expectProblem(r, 404, "ROUTE_NOT_FOUND")
    }),
  )
})

describe("a company's metadata", () => {
  it.effect("set on create is answered by the create and by GET /company/status", () =>
    Effect.gen(function* () {
      const metadata = { merchantRef: "M-2041", region: "west" }
      const r = yield* create(createBody({ metadata }))
      assert.strictEqual(r.status, 200, r.text)
      const created = r.json as { companyId: string; metadata: unknown }
      assert.deepStrictEqual(created.metadata, metadata)
      const status = yield* send(handler, `/company/status?companyId=${created.companyId}`, request("GET", partner))
      assert.deepStrictEqual((status.json as { Metadata: unknown }).Metadata, metadata)
    }),
  )

  it.effect("PUT /Company/{companyId}/Metadata replaces it; another partner's company is 404", () =>
    Effect.gen(function* () {
      const company = yield* registered()
      const put = (metadata: unknown, token = partner) =>
        send(handler, `/Company/${company.companyId}/Metadata`, request("PUT", token, { metadata }))
      const replaced = yield* put({ merchantRef: "M-9" })
      assert.strictEqual(replaced.status, 200, replaced.text)
      assert.deepStrictEqual(replaced.json, { metadata: { merchantRef: "M-9" } })
      const status = yield* send(handler, `/company/status?companyId=${company.companyId}`, request("GET", partner))
      assert.deepStrictEqual((status.json as { Metadata: unknown }).Metadata, { merchantRef: "M-9" })
      const bad = yield* put({ ["k".repeat(41)]: "v" })
      expectProblem(bad, 400, "BAD_REQUEST")
      assert.deepStrictEqual([...fieldsOf(bad.json)], [`metadata.${"k".repeat(41)}`])
      const other = yield* registered(otherPartner)
      expectProblem(
        yield* send(handler, `/Company/${other.companyId}/Metadata`, request("PUT", partner, { metadata: {} })),
        404,
        "NOT_FOUND",
      )
    }),
  )

  it.effect("a bad key or value is 400 naming it, and no company is created", () =>
    Effect.gen(function* () {
      const body = createBody({ metadata: { note: "v".repeat(501), ok: "fine" } })
      const r = yield* create(body)
      expectProblem(r, 400, "BAD_REQUEST")
      assert.deepStrictEqual([...fieldsOf(r.json)], ["metadata.note"])
      const wrongType = yield* create(createBody({ metadata: { count: 3 } }))
      expectProblem(wrongType, 400, "BAD_REQUEST")
      assert.deepStrictEqual([...fieldsOf(wrongType.json)], ["metadata.count"])
      const retried = yield* create({ ...createBody(), companyReferenceId: body.companyReferenceId })
      assert.strictEqual(retried.status, 200, retried.text)
    }),
  )
})

describe("POST /Company/{companyReferenceId}/Locations", () => {
  const addLocation = (reference: string, body: unknown, token: string | null = partner) =>
    send(handler, `/Company/${encodeURIComponent(reference)}/Locations`, request("POST", token, body))

  it.effect("answers 200 with exactly locationId", () =>
    Effect.gen(function* () {
      const company = yield* registered()
      const r = yield* addLocation(company.reference, locationBody)
      assert.strictEqual(r.status, 200, r.text)
      assert.deepStrictEqual(Object.keys(r.json as object), ["locationId"])
      assert.match((r.json as { locationId: string }).locationId, uuidPattern)
      const document = yield* run(Companies.get(partnerId, company.companyId))
      assert.strictEqual(document.locations.length, 2)
    }),
  )

  it.effect("a bad ZIP and state are one 422 naming both fields", () =>
    Effect.gen(function* () {
      const company = yield* registered()
      const r = yield* addLocation(company.reference, { ...locationBody, zipCode: "9412", state: "XX" })
      expectProblem(r, 422, "VALIDATION_FAILED")
      assert.sameMembers([...fieldsOf(r.json)], ["zipCode", "state"])
    }),
  )

  it.effect("another partner's reference, or an unknown one, is 404", () =>
    Effect.gen(function* () {
      const company = yield* registered()
      expectProblem(yield* addLocation(company.reference, locationBody, otherPartner), 404, "NOT_FOUND")
      expectProblem(yield* addLocation("no-such-reference", locationBody), 404, "NOT_FOUND")
    }),
  )

  it.effect("a Rejected company refuses new locations with 409", () =>
    Effect.gen(function* () {
      const company = yield* registered()
      yield* run(Companies.completeKyb(company.companyId, "Rejected", "documents do not match"))
      expectProblem(yield* addLocation(company.reference, locationBody), 409, "ILLEGAL_TRANSITION")
    }),
  )

  it.effect("needs a partner token", () =>
    Effect.gen(function* () {
      const company = yield* registered()
      expectProblem(yield* addLocation(company.reference, locationBody, null), 401, "UNAUTHORIZED")
      expectProblem(yield* addLocation(company.reference, locationBody, customer), 403, "FORBIDDEN")
    }),
  )
})

describe("GET /company/status", () => {
  const status = (query: string, token: string | null = partner) =>
    send(handler, `/company/status${query}`, request("GET", token))

  it.effect("by companyId or by companyReferenceId answers exactly CompanyId, Status and Metadata (PascalCase)", () =>
    Effect.gen(function* () {
      const company = yield* registered()
      const byId = yield* status(`?companyId=${company.companyId}`)
      assert.strictEqual(byId.status, 200, byId.text)
      assert.deepStrictEqual(byId.json, { CompanyId: company.companyId, Status: "Unverified", Metadata: {} })
      const byReference = yield* status(`?companyReferenceId=${encodeURIComponent(company.reference)}`)
      assert.deepStrictEqual(byReference.json, { CompanyId: company.companyId, Status: "Unverified", Metadata: {} })
    }),
  )

  it.effect("neither or both query parameters are a 422 naming the parameters", () =>
    Effect.gen(function* () {
      const company = yield* registered()
      const neither = yield* status("")
      expectProblem(neither, 422, "VALIDATION_FAILED")
      assert.deepStrictEqual(fieldsOf(neither.json), ["query"])
      const both = yield* status(`?companyId=${company.companyId}&companyReferenceId=${company.reference}`)
      expectProblem(both, 422, "VALIDATION_FAILED")
      assert.sameMembers([...fieldsOf(both.json)], ["query.companyId", "query.companyReferenceId"])
    }),
  )

  it.effect("a companyId in upper case names the same company, answered in lower case", () =>
    Effect.gen(function* () {
      const company = yield* registered()
      const r = yield* status(`?companyId=${company.companyId.toUpperCase()}`)
      assert.strictEqual(r.status, 200, r.text)
      assert.deepStrictEqual(r.json, { CompanyId: company.companyId, Status: "Unverified", Metadata: {} })
    }),
  )

  it.effect("a companyId that is not a UUID is a 400", () =>
    Effect.gen(function* () {
      expectProblem(yield* status("?companyId=42"), 400, "BAD_REQUEST")
    }),
  )

  it.effect("another partner's company is 404 by id and by reference", () =>
    Effect.gen(function* () {
      const company = yield* registered()
      expectProblem(yield* status(`?companyId=${company.companyId}`, otherPartner), 404, "NOT_FOUND")
      expectProblem(yield* status(`?companyReferenceId=${company.reference}`, otherPartner), 404, "NOT_FOUND")
    }),
  )

  it.effect("needs a partner token", () =>
    Effect.gen(function* () {
      expectProblem(yield* status("?companyReferenceId=x", null), 401, "UNAUTHORIZED")
      expectProblem(yield* status("?companyReferenceId=x", customer), 403, "FORBIDDEN")
    }),
  )
})

describe("KYB completion", () => {
  it.effect("shows the new status and puts exactly one COMPANY_VERIFICATION_STATUS_CHANGED in the outbox", () =>
    Effect.gen(function* () {
      const company = yield* registered()
      yield* run(Companies.completeKyb(company.companyId, "Verified"))
      yield* run(Companies.completeKyb(company.companyId, "Verified"))
      const r = yield* send(handler, `/company/status?companyId=${company.companyId}`, request("GET", partner))
      assert.deepStrictEqual(r.json, { CompanyId: company.companyId, Status: "Verified", Metadata: {} })
      const recorded = yield* run(Effect.map(Effect.service(Outbox.MemoryOutbox), (o) => o.recorded))
      const mine = recorded.filter((n) => n.data.CompanyId === company.companyId)
      assert.strictEqual(mine.length, 1)
      const notification = mine[0]!
      assert.strictEqual(notification.eventType, "COMPANY_VERIFICATION_STATUS_CHANGED")
      assert.strictEqual(notification.partnerId, partnerId)
      assert.deepStrictEqual(Object.keys(notification.data).sort(), ["CompanyId", "Metadata", "Status", "Timestamp"])
      assert.strictEqual(notification.data.Status, "Verified")
      assert.isFalse(Number.isNaN(Date.parse(notification.data.Timestamp as string)))
    }),
  )
})

describe("PUT and GET /Company/{companyId}/PayoutAccount", () => {
  const account = {
    accountHolderName: "Acme Coffee LLC",
    routingNumber: "011000015",
    accountNumber: "000123456789",
    accountType: "Checking",
  }
  const put = (companyId: string, body: unknown, token: string | null = partner) =>
    send(handler, `/Company/${companyId}/PayoutAccount`, request("PUT", token, body))
  const get = (companyId: string, token: string | null = partner) =>
    send(handler, `/Company/${companyId}/PayoutAccount`, request("GET", token))

  it.effect("a company has no payout account until the partner sets one (404)", () =>
    Effect.gen(function* () {
      const company = yield* registered()
      expectProblem(yield* get(company.companyId), 404, "NOT_FOUND")
    }),
  )

  it.effect("answers the account with its number masked only, and reads it back the same", () =>
    Effect.gen(function* () {
      const company = yield* registered()
      const r = yield* put(company.companyId, account)
      assert.strictEqual(r.status, 200, r.text)
      const json = r.json as Record<string, unknown>
      assert.deepStrictEqual(Object.keys(json).sort(), [
        "accountHolderName",
        "accountNumberMasked",
        "accountType",
        "payoutAccountId",
        "routingNumber",
        "status",
      ])
      assert.match(json.payoutAccountId as string, uuidPattern)
      assert.strictEqual(json.accountNumberMasked, "****6789")
      assert.strictEqual(json.status, "Active")
      assert.notInclude(r.text, "000123456789")
      const read = yield* get(company.companyId)
      assert.deepStrictEqual(read.json, json)
    }),
  )

  it.effect("the same account again changes nothing; other details replace it with a new id", () =>
    Effect.gen(function* () {
      const company = yield* registered()
      const first = (yield* put(company.companyId, account)).json as { payoutAccountId: string }
      const again = (yield* put(company.companyId, account)).json as { payoutAccountId: string }
      assert.strictEqual(again.payoutAccountId, first.payoutAccountId)
      const replaced = yield* put(company.companyId, { ...account, accountNumber: "98765", accountType: "Savings" })
      const json = replaced.json as { payoutAccountId: string; accountNumberMasked: string; accountType: string }
      assert.notStrictEqual(json.payoutAccountId, first.payoutAccountId)
      assert.strictEqual(json.accountNumberMasked, "****8765")
      assert.strictEqual(json.accountType, "Savings")
      assert.deepStrictEqual((yield* get(company.companyId)).json, replaced.json)
    }),
  )

  it.effect("a routing number failing the ABA check and a short account number are one 422 naming both", () =>
    Effect.gen(function* () {
      const company = yield* registered()
      const r = yield* put(company.companyId, { ...account, routingNumber: "011000016", accountNumber: "123" })
      expectProblem(r, 422, "VALIDATION_FAILED")
      assert.sameMembers([...fieldsOf(r.json)], ["routingNumber", "accountNumber"])
      expectProblem(yield* get(company.companyId), 404, "NOT_FOUND")
    }),
  )

  it.effect("an unknown field or an unknown account type is a 400 naming it, and nothing is set", () =>
    Effect.gen(function* () {
      const company = yield* registered()
      const unknown = yield* put(company.companyId, { ...account, iban: "DE00" })
      expectProblem(unknown, 400, "BAD_REQUEST")
      assert.include(JSON.stringify(unknown.json), "iban")
      const badType = yield* put(company.companyId, { ...account, accountType: "Brokerage" })
      expectProblem(badType, 400, "BAD_REQUEST")
      assert.include(JSON.stringify(badType.json), "accountType")
      expectProblem(yield* get(company.companyId), 404, "NOT_FOUND")
    }),
  )

  it.effect("another partner's company is 404 exactly like a missing one; a customer token is 403", () =>
    Effect.gen(function* () {
      const company = yield* registered()
      yield* put(company.companyId, account)
      expectProblem(yield* put(company.companyId, account, otherPartner), 404, "NOT_FOUND")
      expectProblem(yield* get(company.companyId, otherPartner), 404, "NOT_FOUND")
      expectProblem(yield* get("0b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a99"), 404, "NOT_FOUND")
      expectProblem(yield* get(company.companyId, customer), 403, "FORBIDDEN")
    }),
  )

  it.effect("a Rejected company takes no payout account (409)", () =>
    Effect.gen(function* () {
      const company = yield* registered()
      yield* run(Companies.completeKyb(company.companyId, "Rejected"))
      expectProblem(yield* put(company.companyId, account), 409, "ILLEGAL_TRANSITION")
    }),
  )
})

describe("the OpenAPI document", () => {
  it.effect("describes the precise create request (required fields, owner object) and the three operations", () =>
    Effect.gen(function* () {
      const r = yield* send(handler, "/openapi.json")
      interface JsonSchemaObject {
        readonly required: ReadonlyArray<string>
        readonly properties: Record<string, JsonSchemaObject>
      }
      const doc = r.json as {
        paths: Record<
          string,
          Record<string, { requestBody?: { content: Record<string, { schema: JsonSchemaObject }> } }>
        >
      }
      assert.containsAllKeys(doc.paths, [
        "/Company/Create",
        "/Company/{companyReferenceId}/Locations",
        "/company/status",
      ])
      const schema = doc.paths["/Company/Create"]!.post!.requestBody!.content["application/json"]!.schema
      assert.includeMembers(
        [...schema.required],
        ["companyReferenceId", "name", "emailAddress", "owner", "companyType"],
      )
      assert.notInclude(schema.required, "websiteUrl")
      assert.includeMembers([...schema.properties.owner!.required], ["ssn", "dateOfBirth", "documentNumber"])
      const location =
        doc.paths["/Company/{companyReferenceId}/Locations"]!.post!.requestBody!.content["application/json"]!.schema
      assert.includeMembers([...location.required], ["name", "streetNumberAndName", "zipCode", "city", "state"])
      // the company operations form a valid OpenAPI 3.1 document
      const companyPaths = Object.fromEntries(
        Object.entries(doc.paths).filter(([path]) => path.toLowerCase().startsWith("/company/")),
      )
      yield* Effect.promise(() =>
        SwaggerParser.validate(JSON.parse(JSON.stringify({ ...(r.json as object), paths: companyPaths }))),
      )
    }),
  )
})
