/**
 * KYB on Dwolla driven through the official `dwolla` SDK against a local fake
 * of Dwolla: every request is checked against Dwolla's published document, and
 * so is every answer of the fake.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { CompanyProviders, type Ids } from "@partnerpay/domain"
import { Effect } from "effect"
import * as DwollaKyb from "../../src/providers/DwollaKyb.ts"
import * as DwollaFake from "./DwollaFake.ts"

const address: CompanyProviders.PostalAddress = {
  streetNumberAndName: "462 Main Street",
  apartmentNumber: "Suite 100",
  zipCode: "50309",
  city: "Des Moines",
  state: "IA",
}

export const submission: CompanyProviders.KybSubmission = {
  companyId: "8c6b3a57-3c6d-4c55-9b1f-2f0f0e2f3a11" as Ids.CompanyId,
  partnerId: "2b0f8e8e-1c1c-4b4b-8a8a-0d0d0d0d0d0d" as Ids.PartnerId,
  name: "Jane's Plumbing LLC",
  taxId: "12-3456789",
  taxIdType: "EIN",
  companyType: "ForProfit",
  address,
  websiteUrl: "https://plumbing.example.com",
  owner: {
    name: "Jane Q Public",
    emailAddress: "jane@plumbing.example.com",
    dateOfBirth: "1980-01-31" as CompanyProviders.KybSubmission["owner"]["dateOfBirth"],
    documentNumber: "D1234567",
    documentType: "DriversLicense",
    ssn: "123-45-6789",
    address,
  },
}

describe("KYB on Dwolla, on its published contract", () => {
  const fakes: Array<DwollaFake.DwollaFake> = []
  afterAll(() => Promise.all(fakes.map((fake) => fake.close())))

  const start = () =>
    DwollaFake.startConfigured(fakes, { businessClassification: "9ed3f670-7d6f-11e3-b1ce-5404a6144203" })

  it("the contract itself refuses a customer Dwolla would refuse (the check is not vacuous)", () => {
    const dwolla = DwollaFake.contract()
    const problems = dwolla.checkRequest({
      method: "POST",
      path: "/customers",
      query: new URLSearchParams(),
      headers: {},
      contentType: DwollaFake.hal,
      body: JSON.stringify({ type: "business", businessName: "x" }),
    })
    assert.isNotEmpty(problems)
  })

  it.live("a company is a verified business customer with its owner as controller and beneficial owner", () =>
    Effect.gen(function* () {
      const { fake, config } = yield* start()
      const { submissionId } = yield* DwollaKyb.make(config).submit(submission)
      assert.strictEqual(submissionId, DwollaFake.customerId)
      assert.deepStrictEqual(
        fake.requests.map((request) => `${request.method} ${request.path}`),
        [
          "POST /token",
          "GET /customers",
          "POST /customers",
          `GET /customers/${DwollaFake.customerId}/beneficial-owners`,
          `POST /customers/${DwollaFake.customerId}/beneficial-owners`,
          `POST /customers/${DwollaFake.customerId}/beneficial-ownership`,
        ],
      )
      const token = fake.requests[0]
      assert.strictEqual(
        token?.headers.authorization,
        `Basic ${Buffer.from("a-dwolla-key:a-dwolla-secret").toString("base64")}`,
      )
      assert.strictEqual(fake.requests[1]?.query.get("search"), "jane@plumbing.example.com")
      const body = JSON.parse(fake.requests[2]?.body ?? "{}")
      assert.strictEqual(fake.requests[2]?.headers.authorization, "Bearer a-dwolla-access-token")
      assert.strictEqual(body.type, "business")
      assert.strictEqual(body.businessType, "corporation")
      assert.strictEqual(body.businessName, "Jane's Plumbing LLC")
      assert.strictEqual(body.ein, "12-3456789")
      assert.strictEqual(body.correlationId, submission.companyId)
      assert.deepStrictEqual(
        [body.controller.firstName, body.controller.lastName, body.controller.title, body.controller.ssn],
        ["Jane Q", "Public", "Owner", "123-45-6789"],
      )
      assert.strictEqual(body.controller.address.country, "US")
      assert.deepStrictEqual(JSON.parse(fake.requests[5]?.body ?? "{}"), { status: "certified" })
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("a sole proprietorship is a verified sole-proprietor customer (no beneficial owners)", () =>
    Effect.gen(function* () {
      const { fake, config } = yield* start()
      yield* DwollaKyb.make(config).submit({ ...submission, companyType: "SoleProprietorship" })
      assert.deepStrictEqual(
        fake.requests.map((request) => `${request.method} ${request.path}`),
        ["POST /token", "GET /customers", "POST /customers"],
      )
      const body = JSON.parse(fake.requests[2]?.body ?? "{}")
      assert.strictEqual(body.businessType, "soleProprietorship")
      assert.strictEqual(body.dateOfBirth, "1980-01-31")
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("submitted again (after a crash or a failure): the company's customer and its owner are not made twice", () =>
    Effect.gen(function* () {
      const { fake, config } = yield* start()
      fake.answer("GET /customers", {
        status: 200,
        contentType: DwollaFake.hal,
        body: {
          _links: {},
          _embedded: {
            customers: [
              { ...DwollaFake.customer(fake.url, "document"), id: "someone-else", correlationId: "another-company" },
              { ...DwollaFake.customer(fake.url, "document"), correlationId: submission.companyId },
            ],
          },
          total: 2,
        },
      })
      fake.answer("GET /beneficial-owners", {
        status: 200,
        contentType: DwollaFake.hal,
        body: {
          _links: {},
          _embedded: {
            "beneficial-owners": [
              {
                _links: {},
                id: DwollaFake.beneficialOwnerId,
                firstName: "Jane Q",
                lastName: "Public",
                address: { address1: "462 Main Street", city: "Des Moines", country: "US", stateProvinceRegion: "IA" },
                verificationStatus: "verified",
                created: "2026-11-26T10:00:00.000Z",
              },
            ],
          },
        },
      })
      const { submissionId } = yield* DwollaKyb.make(config).submit(submission)
      assert.strictEqual(submissionId, DwollaFake.customerId)
      assert.deepStrictEqual(
        fake.requests.map((request) => `${request.method} ${request.path}`),
        [
          "POST /token",
          "GET /customers",
          `GET /customers/${DwollaFake.customerId}/beneficial-owners`,
          `POST /customers/${DwollaFake.customerId}/beneficial-ownership`,
        ],
      )
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live(
    "Dwolla's verification statuses: verified, suspended or deactivated are final; retry, document are requirements",
    () =>
      Effect.gen(function* () {
        const { fake, config } = yield* start()
        const kyb = DwollaKyb.make(config)
        const outcomes: Array<string> = []
        for (const status of ["retry", "document", "verified", "suspended", "deactivated"]) {
          fake.customerStatus(status)
          outcomes.push(yield* kyb.status(DwollaFake.customerId))
        }
        assert.deepStrictEqual(outcomes, ["RetryRequired", "DocumentRequired", "Verified", "Rejected", "Rejected"])
        assert.strictEqual(DwollaKyb.verdictOf("unverified"), "Pending")
        assert.strictEqual(DwollaKyb.verdictOf("kba"), "Pending")
        assert.deepStrictEqual(fake.violations, [])
      }),
  )

  it.live("a validation error is a refusal naming the fields, never their values; an outage is unavailable", () =>
    Effect.gen(function* () {
      const { fake, config } = yield* start()
      fake.answer("POST /customers", {
        status: 400,
        contentType: DwollaFake.hal,
        body: {
          code: "ValidationError",
          message: "Validation error(s) present. See embedded errors list for more details.",
          _embedded: {
            errors: [{ code: "Invalid", message: "Invalid parameter.", path: "/controller/ssn", _links: {} }],
          },
        },
      })
      const refused = yield* Effect.flip(DwollaKyb.make(config).submit(submission))
      assert.instanceOf(refused, CompanyProviders.KybSubmissionRefused)
      assert.include((refused as CompanyProviders.KybSubmissionRefused).reason, "/controller/ssn")
      assert.notInclude(JSON.stringify(refused), "123-45-6789")
      fake.answer("POST /customers", { status: 503, body: {} })
      const unavailable = yield* Effect.flip(DwollaKyb.make(config).submit(submission))
      assert.strictEqual(unavailable._tag, "ProviderUnavailable")
      assert.notInclude(JSON.stringify(unavailable), "a-dwolla-secret")
    }),
  )
})
