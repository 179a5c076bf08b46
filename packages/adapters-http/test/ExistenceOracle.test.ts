/**
 * A partner never learns that another partner's customer or company exists:
 * every operation that names a payer, customer or company id (in the body,
 * the path or the query) answers another partner's id exactly like an id
 * that exists nowhere (same status, same problem, same body shape), and
 * changes nothing for either.
 */
import { assert, describe, it } from "@effect/vitest"
import { Ids } from "@partnerpay/domain"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { otherPartnerId, partnerId, send } from "./fixtures.ts"
import { customerToken, makeSharedServer, partnerTokenFor, registerCompany, registerCustomer } from "./partyFixtures.ts"

const { handler, run, dispose } = await makeSharedServer()
afterAll(dispose)

const ours = {
  company: Ids.CompanyId.make("c0c0c0c0-0000-4000-8000-0000000000f1"),
  customer: Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-0000000000f1"),
}
const foreign = {
  company: Ids.CompanyId.make("c0c0c0c0-0000-4000-8000-0000000000f2"),
  customer: Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-0000000000f2"),
  reference: "ref-0000f2",
}
const unknown = {
  company: Ids.CompanyId.make("c0c0c0c0-0000-4000-8000-0000000000f3"),
  customer: Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-0000000000f3"),
  reference: "ref-0000f3",
}
await Effect.runPromise(
  run(
    Effect.gen(function* () {
      yield* registerCompany(partnerId, ours.company, "Acme Coffee")
      yield* registerCustomer(partnerId, ours.customer)
      yield* registerCompany(otherPartnerId, foreign.company, "Other Co")
      yield* registerCustomer(otherPartnerId, foreign.customer)
    }),
  ),
)
const partner = await Effect.runPromise(partnerTokenFor(partnerId))
const otherPartner = await Effect.runPromise(partnerTokenFor(otherPartnerId))
const customer = await Effect.runPromise(customerToken(partnerId, ours.customer))

// The other partner's company also has a reference (registered through the API, as partners do).
const foreignReference = await Effect.runPromise(
  send(handler, "/Company/Create", {
    method: "POST",
    headers: { authorization: `Bearer ${otherPartner}`, "content-type": "application/json" },
    body: JSON.stringify({
      companyReferenceId: foreign.reference,
      name: "Other Co",
      emailAddress: "billing@other.example.com",
      taxIdType: "EIN",
      taxId: "12-3456789",
      streetNumberAndName: "1 Main St",
      zipCode: "94103",
      city: "San Francisco",
      state: "CA",
      contactNumber: "415-555-0100",
      companyType: "ForProfit",
      owner: {
        name: "Ada Lovelace",
        emailAddress: "ada@other.example.com",
        contactNumber: "415-555-0101",
        title: "CEO",
        documentNumber: "D1234567",
        documentType: "DriversLicense",
        ssn: "123-45-6789",
        dateOfBirth: "1990-12-10",
        streetNumberAndName: "1 Main St",
        zipCode: "94103",
        city: "San Francisco",
        state: "CA",
      },
    }),
  }),
)

interface Probe {
  readonly name: string
  readonly method: string
  readonly token: string
  /** The request naming `id` (another partner's, then an unknown one). */
  readonly path: (id: string) => string
  readonly body?: (id: string) => unknown
  readonly ids: readonly [foreign: string, unknown: string]
}

const amount = { value: 12.5, currencyCode: "USD" }
const paymentBody = (overrides: Record<string, unknown>) => ({
  companyId: ours.company,
  payerRegistrationId: ours.customer,
  amount,
  description: "Invoice 7",
  dueDate: "2099-01-01",
  ...overrides,
})
const planBody = (overrides: Record<string, unknown>) => ({
  companyId: ours.company,
  payerRegistrationId: ours.customer,
  amount,
  frequency: "Monthly",
  recurrenceInterval: 1,
  startDate: "2099-01-01",
  numberOfPayments: 3,
  ...overrides,
})
const customers = [foreign.customer, unknown.customer] as const
const companies = [foreign.company, unknown.company] as const
const references = [foreign.reference, unknown.reference] as const
const fixed = (path: string) => () => path

const probes: ReadonlyArray<Probe> = [
  {
    name: "Payment/Create payer",
    method: "POST",
    token: partner,
    path: fixed("/Payment/Create"),
    body: (id) => paymentBody({ payerRegistrationId: id }),
    ids: customers,
  },
  {
    name: "Payment/Create company",
    method: "POST",
    token: partner,
    path: fixed("/Payment/Create"),
    body: (id) => paymentBody({ companyId: id }),
    ids: companies,
  },
  {
    name: "Payment/Create company reference",
    method: "POST",
    token: partner,
    path: fixed("/Payment/Create"),
    body: (id) => paymentBody({ companyId: undefined, companyReferenceId: id }),
    ids: references,
  },
  {
    name: "PaymentPlan/Create payer",
    method: "POST",
    token: partner,
    path: fixed("/PaymentPlan/Create"),
    body: (id) => planBody({ payerRegistrationId: id }),
    ids: customers,
  },
  {
    name: "PaymentPlan/Create company",
    method: "POST",
    token: partner,
    path: fixed("/PaymentPlan/Create"),
    body: (id) => planBody({ companyId: id }),
    ids: companies,
  },
  {
    name: "PaymentPlan/Create company reference",
    method: "POST",
    token: partner,
    path: fixed("/PaymentPlan/Create"),
    body: (id) => planBody({ companyId: undefined, companyReferenceId: id }),
    ids: references,
  },
  {
    name: "DebitAuth/Set company",
    method: "POST",
    token: customer,
    path: fixed("/DebitAuth/Set"),
    body: (id) => ({ companyId: id, limit: amount }),
    ids: companies,
  },
  {
    name: "User/{registrationId}/DebitAuth",
    method: "GET",
    token: partner,
    path: (id) => `/User/${id}/DebitAuth`,
    ids: customers,
  },
  {
    name: "User/{registrationId}/DebitAuth?companyId",
    method: "GET",
    token: partner,
    path: (id) => `/User/${ours.customer}/DebitAuth?companyId=${id}`,
    ids: companies,
  },
  {
    name: "Payment/CardPaymentMethods/{registrationId}",
    method: "GET",
    token: partner,
    path: (id) => `/Payment/CardPaymentMethods/${id}`,
    ids: customers,
  },
  {
    name: "Charity/CreateAnonymous company",
    method: "POST",
    token: partner,
    path: fixed("/Transaction/Charity/CreateAnonymous"),
    body: (id) => ({
      verificationId: "6b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a61",
      amount,
      companyId: id,
      isRecurring: false,
      payerCoversFee: false,
    }),
    ids: companies,
  },
  {
    name: "cardpayment merchant",
    method: "POST",
    token: partner,
    path: fixed("/cardpayment"),
    body: (id) => ({ merchantId: id, amount, last4: "4242", brand: "visa", externalReference: "terminal-1" }),
    ids: companies,
  },
  {
    name: "Company/{companyReferenceId}/Locations",
    method: "POST",
    token: partner,
    path: (id) => `/Company/${id}/Locations`,
    body: () => ({ name: "Cart", streetNumberAndName: "1 Pier", zipCode: "94105", city: "San Francisco", state: "CA" }),
    ids: references,
  },
  {
    name: "company/status by id",
    method: "GET",
    token: partner,
    path: (id) => `/company/status?companyId=${id}`,
    ids: companies,
  },
  {
    name: "company/status by reference",
    method: "GET",
    token: partner,
    path: (id) => `/company/status?companyReferenceId=${id}`,
    ids: references,
  },
  {
    name: "Payment/History by company",
    method: "GET",
    token: partner,
    path: (id) => `/Payment/History?companyId=${id}`,
    ids: companies,
  },
  {
    name: "Payment/History by payer",
    method: "GET",
    token: partner,
    path: (id) => `/Payment/History?payerRegistrationId=${id}`,
    ids: customers,
  },
  {
    name: "Transaction/Report by company",
    method: "GET",
    token: partner,
    path: (id) => `/Transaction/Report?from=2026-01-01&to=2026-12-31&companyId=${id}`,
    ids: companies,
  },
]

/** An answer without what differs between any two requests (the correlation id, generated ids). */
const comparable = (r: { status: number; headers: Headers; json: unknown }) => {
  const json = r.json as Record<string, unknown> | undefined
  const { instance: _instance, ...rest } = json ?? {}
  const shape = Object.fromEntries(
    Object.entries(rest).map(([key, value]) => [key, /Id$/.test(key) ? typeof value : value]),
  )
  return { status: r.status, contentType: r.headers.get("content-type"), body: shape }
}

describe("an operation naming another partner's customer or company", () => {
  it("has the other partner's company registered with its reference (fixture)", () => {
    assert.strictEqual(foreignReference.status, 200, foreignReference.text)
  })

  for (const probe of probes) {
    it.effect(`${probe.name}: answered exactly like an id that exists nowhere`, () =>
      Effect.gen(function* () {
        const answers = []
        for (const id of probe.ids) {
          const r = yield* send(handler, probe.path(id), {
            method: probe.method,
            headers: { authorization: `Bearer ${probe.token}`, "content-type": "application/json" },
            ...(probe.body === undefined ? {} : { body: JSON.stringify(probe.body(id)) }),
          })
          answers.push(comparable(r))
        }
        assert.deepStrictEqual(answers[0], answers[1])
      }),
    )
  }
})
