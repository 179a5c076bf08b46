/**
 * A local fake of Dwolla for the tests (contract tests and the production
 * walk): a `startFake` on Dwolla's published document, answering the
 * client-credentials token, customer creation (201 with `Location`) and
 * search (none found), beneficial owners (none yet; created), certification,
 * customers (a status the test sets),
 * funding sources, transfers and webhook subscriptions, in Dwolla's HAL media
 * type. Every request and answer is checked against the document.
 */
import { Contract, type Fake, startFake } from "./OpenApiContract.ts"

export const hal = "application/vnd.dwolla.v1.hal+json"

/** The customer id the fake gives every created customer. */
export const customerId = "fc451a7a-ae30-4404-aB95-e3553fcd733f"
export const beneficialOwnerId = "07d59716-ef22-4fe6-98e8-f3190233dfb8"
/** The transfer id the fake gives every created transfer, and the funding source it makes. */
export const transferId = "15c6bcce-46f7-e811-8112-e8dd3bececa8"
export const fundingSourceId = "49dbaa24-1580-4b1c-8b58-24e26656fa31"

export interface DwollaFake extends Fake {
  readonly contract: Contract
  /** The customer's status answered by `GET /customers/{id}` from now on. */
  readonly customerStatus: (status: string) => void
  /** The transfer's status answered by `GET /transfers/{id}` from now on (and its failure's code). */
  readonly transferStatus: (status: string, failureCode?: string) => void
}

/** Dwolla's document, and what Dwolla's guides require besides: a transfer carries an `Idempotency-Key`. */
export const contract = (): Contract =>
  new Contract("Dwolla", "dwolla-openapi.yaml", { requiredHeaders: { "post /transfers": ["Idempotency-Key"] } })

const created = (base: () => string, path: string) => ({
  status: 201,
  contentType: hal,
  headers: { location: `${base()}${path}` },
})

/** A verified business customer as `GET /customers/{id}` answers it, with `status`. */
export const customer = (base: string, status: string) => ({
  _links: { self: { href: `${base}/customers/${customerId}`, type: hal, "resource-type": "customer" } },
  id: customerId,
  firstName: "Jane Q",
  lastName: "Public",
  email: "jane@plumbing.example.com",
  created: "2026-11-26T10:00:00.000Z",
  type: "business",
  status,
  address1: "462 Main Street",
  city: "Des Moines",
  state: "IA",
  postalCode: "50309",
  businessName: "Jane's Plumbing LLC",
  businessType: "corporation",
  businessClassification: "9ed3f670-7d6f-11e3-b1ce-5404a6144203",
  controller: {
    firstName: "Jane Q",
    lastName: "Public",
    title: "Owner",
    address: { address1: "462 Main Street", city: "Des Moines", country: "US", stateProvinceRegion: "IA" },
  },
})

/** A transfer as `GET /transfers/{id}` answers it, with `status`. */
const transfer = (base: string, status: string) => ({
  _links: { self: { href: `${base}/transfers/${transferId}` } },
  id: transferId,
  status,
  amount: { value: "12.34", currency: "USD" },
  created: "2026-11-26T10:00:00.000Z",
})

export const start = async (): Promise<DwollaFake> => {
  const dwolla = contract()
  let url = ""
  const base = () => url
  const defaults = {
    "/token": {
      status: 200,
      body: { access_token: "a-dwolla-access-token", token_type: "Bearer", expires_in: 3600 },
    },
    "GET /beneficial-owners": {
      status: 200,
      contentType: hal,
      body: { _links: {}, _embedded: { "beneficial-owners": [] } },
    },
    "/beneficial-owners": created(base, `/beneficial-owners/${beneficialOwnerId}`),
    "/beneficial-ownership": {
      status: 200,
      contentType: hal,
      body: {
        _links: { self: { href: `${base()}/customers/${customerId}/beneficial-ownership` } },
        status: "certified",
      },
    },
    "/funding-sources": created(base, `/funding-sources/${fundingSourceId}`),
    "GET /customers": { status: 200, contentType: hal, body: { _links: {}, _embedded: { customers: [] }, total: 0 } },
    "/customers": created(base, `/customers/${customerId}`),
    "/transfers": created(base, `/transfers/${transferId}`),
    [`/transfers/${transferId}`]: { status: 200, contentType: hal, body: transfer(base(), "pending") },
    [`/customers/${customerId}`]: { status: 200, contentType: hal, body: customer(base(), "document") },
  }
  const fake = await startFake(() => dwolla, defaults)
  url = fake.url
  return {
    ...fake,
    contract: dwolla,
    customerStatus: (status) =>
      fake.answer(`/customers/${customerId}`, { status: 200, contentType: hal, body: customer(url, status) }),
    transferStatus: (status, failureCode = "R01") => {
      fake.answer(`/transfers/${transferId}`, { status: 200, contentType: hal, body: transfer(url, status) })
      fake.answer("/failure", {
        status: 200,
        contentType: hal,
        body: { code: failureCode, description: "Insufficient Funds" },
      })
    },
  }
}
