/**
 * A local fake of Dwolla for the tests (contract tests and the production
 * walk): a `startFake` on Dwolla's published document that keeps state, in
 * Dwolla's HAL media type, every request and answer checked against the
 * document.
 *
 * State: customers (created with 201 and `Location`, found by `search`, their
 * status set by the test: `suspended`, `deactivated`...), beneficial owners,
 * funding sources (made once per customer and account: a second one is
 * Dwolla's `DuplicateResource` naming the first; removable), transfers and
 * their lifecycle (`pending`, then `processed`, `failed` with a return code,
 * or `cancelled`, as the test settles them), and idempotency keys (a transfer
 * asked again with the same `Idempotency-Key` is the same transfer). The
 * first customer and funding source made get the fixed ids below, and so does
 * the transfer made by the first transfer request.
 *
 * Refusals as Dwolla answers them (400 `ValidationError` with the embedded
 * error Dwolla's document gives): a transfer in a currency other than USD;
 * from or to a removed funding source; from or to a suspended or deactivated
 * customer; taking an unverified customer past Dwolla's 5,000.00 USD rolling
 * weekly limit. And on demand (`failNext`): the next transfer refused so, or
 * answered 429 `TooManyRequests`; the next funding source a `DuplicateResource`
 * (as if an earlier creation's answer had been lost); the next POST a 500.
 */
import { Effect, Redacted } from "effect"
import type * as DwollaClient from "../../src/providers/DwollaClient.ts"
import { Contract, type Fake, type RecordedRequest, startFake } from "./OpenApiContract.ts"

export const hal = "application/vnd.dwolla.v1.hal+json"

/** The id of the first customer the fake makes. */
export const customerId = "fc451a7a-ae30-4404-aB95-e3553fcd733f"
export const beneficialOwnerId = "07d59716-ef22-4fe6-98e8-f3190233dfb8"
/** The id of the first transfer the fake makes, and of the first funding source. */
export const transferId = "15c6bcce-46f7-e811-8112-e8dd3bececa8"
export const fundingSourceId = "49dbaa24-1580-4b1c-8b58-24e26656fa31"

/** Dwolla's rolling weekly limit of an unverified customer's transfers, in cents. */
export const unverifiedWeeklyLimitCents = 500_000

export interface FakeCustomer {
  readonly id: string
  readonly type: string
  readonly email: string
  readonly correlationId?: string | undefined
  status: string
}

export interface FakeFundingSource {
  readonly id: string
  readonly customerId: string
  /** What makes it the same bank account: routing and account number, or the Plaid token. */
  readonly account: string
  removed: boolean
}

export interface FakeTransfer {
  readonly id: string
  readonly source: string
  readonly destination: string
  readonly amount: { readonly value: string; readonly currency: string }
  readonly correlationId?: string | undefined
  readonly idempotencyKey?: string | undefined
  readonly created: Date
  status: string
  failureCode?: string | undefined
}

/** What the fake can be told to answer next. */
export type DwollaError =
  | "weeklyLimit"
  | "unsupportedCurrency"
  | "suspendedCustomer"
  | "removedFundingSource"
  | "duplicateResource"
  | "tooManyRequests"
  | "serverError"

export interface DwollaState {
  readonly customers: Map<string, FakeCustomer>
  readonly fundingSources: Map<string, FakeFundingSource>
  readonly transfers: Map<string, FakeTransfer>
  /** Transfers by the `Idempotency-Key` that made them. */
  readonly idempotencyKeys: Map<string, string>
}

export interface DwollaFake extends Fake {
  readonly contract: Contract
  readonly state: DwollaState
  /** The status of the first customer (`customerId`) from now on. */
  readonly customerStatus: (status: string) => void
  /** A customer's status from now on (`suspended`, `deactivated`, `verified`...). */
  readonly setCustomerStatus: (id: string, status: string) => void
  /** The transfer's status from now on (and its failure's return code); `transferId` by default. */
  readonly transferStatus: (status: string, failureCode?: string, id?: string) => void
  /** The funding source is removed (Dwolla refuses transfers from or to it). */
  readonly removeFundingSource: (id: string) => void
  /** The next `count` requests the error applies to (transfers; funding sources for a duplicate) fail so. */
  readonly failNext: (error: DwollaError, count?: number) => void
}

/** Dwolla's document, and what Dwolla's guides require besides: a transfer carries an `Idempotency-Key`. */
export const contract = (): Contract =>
  new Contract("Dwolla", "dwolla-openapi.yaml", { requiredHeaders: { "post /transfers": ["Idempotency-Key"] } })

/** A verified business customer as `GET /customers/{id}` answers it, with `status`. */
export const customer = (base: string, status: string, id = customerId) => ({
  _links: { self: { href: `${base}/customers/${id}`, type: hal, "resource-type": "customer" } },
  id,
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

/** Dwolla's `ValidationError` with one embedded error (the document's wording). */
const validation = (code: string, message: string, path: string) => ({
  status: 400,
  contentType: hal,
  body: {
    code: "ValidationError",
    message: "Validation error(s) present. See embedded errors list for more details.",
    _embedded: { errors: [{ code, message, path, _links: {} }] },
  },
})

const refusals = {
  weeklyLimit: validation(
    "Invalid",
    "Invalid amount. The supplied amount is greater than your transaction limit.",
    "/amount/value",
  ),
  // Dwolla moves USD only; the embedded error's wording is the fake's.
  unsupportedCurrency: validation("Invalid", "Invalid amount currency. Only USD is supported.", "/amount/currency"),
  suspendedSender: validation("Restricted", "Sender restricted.", "/_links/source/href"),
  suspendedReceiver: validation("Restricted", "Receiver restricted.", "/_links/destination/href"),
  removedSource: validation("Invalid", "Invalid funding source.", "/_links/source/href"),
  removedDestination: validation("Invalid", "Invalid destination funding source.", "/_links/destination/href"),
  tooManyRequests: {
    status: 429,
    contentType: hal,
    body: {
      code: "TooManyRequests",
      message:
        "Concurrent transfers with the given funding source are not supported. Please wait a short period of time before re-attempting the request.",
    },
  },
  serverError: {
    status: 500,
    contentType: hal,
    body: { code: "ServerError", message: "A server error occurred. Error ID: 0fd9b4a4-1f9b-4e5a-bb2b-8d2c3c2c0f11." },
  },
}

const idOf = (href: unknown) =>
  String(href ?? "")
    .replace(/\/+$/, "")
    .split("/")
    .pop() ?? ""

const cents = (value: string) => Math.round(Number(value) * 100)

const restricted = new Set(["suspended", "deactivated"])

/** The ACH return reasons the tests use, as Dwolla describes them. */
const returnReasons: Record<string, string> = {
  R01: "Insufficient Funds",
  R02: "Account Closed",
  R03: "No Account/Unable to Locate Account",
  R10: "Customer Advises Not Authorized",
}

export const start = async (): Promise<DwollaFake> => {
  const dwolla = contract()
  let url = ""
  let received: ReadonlyArray<RecordedRequest> = []
  const state: DwollaState = {
    customers: new Map(),
    fundingSources: new Map(),
    transfers: new Map(),
    idempotencyKeys: new Map(),
  }
  const pending: Array<DwollaError> = []
  const nextError = (applies: (error: DwollaError) => boolean): DwollaError | undefined => {
    const index = pending.findIndex(applies)
    return index < 0 ? undefined : pending.splice(index, 1)[0]
  }
  const fixedOrNew = (fixed: string, taken: Map<string, unknown>) => (taken.has(fixed) ? crypto.randomUUID() : fixed)
  const created = (path: string) => ({ status: 201, contentType: hal, headers: { location: `${url}${path}` } })
  const json = (request: RecordedRequest) => (request.body === "" ? {} : JSON.parse(request.body))
  const customerBody = (found: FakeCustomer) =>
    found.type === "business"
      ? customer(url, found.status, found.id)
      : {
          _links: { self: { href: `${url}/customers/${found.id}`, type: hal, "resource-type": "customer" } },
          id: found.id,
          firstName: "Ada",
          lastName: "Lovelace",
          email: found.email,
          type: found.type,
          status: found.status,
          created: "2026-11-26T10:00:00.000Z",
          ...(found.correlationId === undefined ? {} : { correlationId: found.correlationId }),
        }
  // Only the first customer existed before this fake kept state: tests poll it without making it.
  const customerOf = (id: string): FakeCustomer | undefined =>
    state.customers.get(id) ??
    (id === customerId ? { id, type: "business", email: "jane@plumbing.example.com", status: "document" } : undefined)
  const transferBody = (found: FakeTransfer) => ({
    _links: {
      self: { href: `${url}/transfers/${found.id}` },
      source: { href: `${url}/funding-sources/${found.source}` },
      destination: { href: `${url}/funding-sources/${found.destination}` },
      ...(found.status === "failed" ? { failure: { href: `${url}/transfers/${found.id}/failure` } } : {}),
    },
    id: found.id,
    status: found.status,
    amount: found.amount,
    created: found.created.toISOString(),
    ...(found.correlationId === undefined ? {} : { correlationId: found.correlationId }),
  })
  // The transfer tests poll without making it first (`transferId`): a pending 12.34 USD.
  const transferOf = (id: string): FakeTransfer | undefined => {
    const found = state.transfers.get(id)
    if (found !== undefined || id !== transferId) return found
    const made: FakeTransfer = {
      id,
      source: "unknown",
      destination: "unknown",
      amount: { value: "12.34", currency: "USD" },
      created: new Date("2026-11-26T10:00:00.000Z"),
      status: "pending",
    }
    state.transfers.set(id, made)
    return made
  }
  const ownerStatus = (fundingSource: string) => {
    const owner = state.fundingSources.get(fundingSource)?.customerId
    return owner === undefined ? undefined : customerOf(owner)
  }
  /** The unverified customer's transfers of the last 7 days, in cents (failed and cancelled ones not counted). */
  const weeklyCents = (owner: string, now: Date) =>
    [...state.transfers.values()]
      .filter(
        (transfer) =>
          state.fundingSources.get(transfer.source)?.customerId === owner &&
          !["failed", "cancelled"].includes(transfer.status) &&
          now.getTime() - transfer.created.getTime() < 7 * 24 * 3600 * 1000,
      )
      .reduce((sum, transfer) => sum + cents(transfer.amount.value), 0)

  const createTransfer = (request: RecordedRequest) => {
    const key = request.headers["idempotency-key"]
    const idempotencyKey = typeof key === "string" ? key : undefined
    const again = idempotencyKey === undefined ? undefined : state.idempotencyKeys.get(idempotencyKey)
    if (again !== undefined) return created(`/transfers/${again}`)
    const body = json(request)
    const source = idOf(body._links?.source?.href)
    const destination = idOf(body._links?.destination?.href)
    const amount = { value: String(body.amount?.value), currency: String(body.amount?.currency) }
    const asked = nextError((error) => error !== "duplicateResource")
    if (asked !== undefined) {
      // A payout (from a funding source no customer of the fake owns: the master's) is refused at its
      // destination; a debit at its source.
      const atDestination = !state.fundingSources.has(source) && state.fundingSources.has(destination)
      const answers: Record<Exclude<DwollaError, "duplicateResource">, (typeof refusals)[keyof typeof refusals]> = {
        weeklyLimit: refusals.weeklyLimit,
        unsupportedCurrency: refusals.unsupportedCurrency,
        suspendedCustomer: atDestination ? refusals.suspendedReceiver : refusals.suspendedSender,
        removedFundingSource: atDestination ? refusals.removedDestination : refusals.removedSource,
        tooManyRequests: refusals.tooManyRequests,
        serverError: refusals.serverError,
      }
      return answers[asked as Exclude<DwollaError, "duplicateResource">]
    }
    if (amount.currency !== "USD") return refusals.unsupportedCurrency
    if (state.fundingSources.get(source)?.removed) return refusals.removedSource
    if (state.fundingSources.get(destination)?.removed) return refusals.removedDestination
    if (restricted.has(ownerStatus(source)?.status ?? "")) return refusals.suspendedSender
    if (restricted.has(ownerStatus(destination)?.status ?? "")) return refusals.suspendedReceiver
    const now = new Date()
    const payer = ownerStatus(source)
    if (payer?.type === "unverified" && weeklyCents(payer.id, now) + cents(amount.value) > unverifiedWeeklyLimitCents) {
      return refusals.weeklyLimit
    }
    // The fixed id for the transfer of the first request only: a test that scripted earlier transfers
    // (their answers not made here) may already have used it.
    const first = received.filter((made) => made.method === "POST" && made.path === "/transfers").length === 1
    const id = first ? fixedOrNew(transferId, state.transfers) : crypto.randomUUID()
    state.transfers.set(id, {
      id,
      source,
      destination,
      amount,
      correlationId: typeof body.correlationId === "string" ? body.correlationId : undefined,
      idempotencyKey,
      created: now,
      status: "pending",
    })
    if (idempotencyKey !== undefined) state.idempotencyKeys.set(idempotencyKey, id)
    return created(`/transfers/${id}`)
  }

  const createFundingSource = (owner: string, request: RecordedRequest) => {
    const body = json(request)
    const account =
      typeof body.plaidToken === "string" ? `plaid:${body.plaidToken}` : `${body.routingNumber}:${body.accountNumber}`
    const existing = [...state.fundingSources.values()].find(
      (source) => source.customerId === owner && source.account === account && !source.removed,
    )
    let duplicate = existing
    if (duplicate === undefined && nextError((error) => error === "duplicateResource") !== undefined) {
      // As if an earlier creation's answer had been lost: Dwolla has the account already.
      duplicate = { id: fixedOrNew(fundingSourceId, state.fundingSources), customerId: owner, account, removed: false }
      state.fundingSources.set(duplicate.id, duplicate)
    }
    if (duplicate !== undefined) {
      return {
        status: 400,
        contentType: hal,
        body: {
          code: "DuplicateResource",
          message: `Bank already exists: id=${duplicate.id}`,
          _links: { about: { href: `${url}/funding-sources/${duplicate.id}`, type: hal } },
        },
      }
    }
    const id = fixedOrNew(fundingSourceId, state.fundingSources)
    state.fundingSources.set(id, { id, customerId: owner, account, removed: false })
    return created(`/funding-sources/${id}`)
  }

  const route = (request: RecordedRequest) => {
    const { method, path } = request
    const at = `${method} ${path}`
    if (at === "POST /token") {
      return { status: 200, body: { access_token: "a-dwolla-access-token", token_type: "Bearer", expires_in: 3600 } }
    }
    if (method === "POST" && path !== "/token" && nextError((error) => error === "serverError") !== undefined) {
      return refusals.serverError
    }
    if (at === "GET /customers") {
      const search = (request.query.get("search") ?? "").toLowerCase()
      const found = [...state.customers.values()].filter((known) => known.email.toLowerCase().includes(search))
      return {
        status: 200,
        contentType: hal,
        body: { _links: {}, _embedded: { customers: found.map(customerBody) }, total: found.length },
      }
    }
    if (at === "POST /customers") {
      const body = json(request)
      const email = String(body.email ?? "")
      const taken = [...state.customers.values()].find((known) => known.email.toLowerCase() === email.toLowerCase())
      if (taken !== undefined) {
        return {
          status: 400,
          contentType: hal,
          body: {
            code: "ValidationError",
            message: "Validation error(s) present. See embedded errors list for more details.",
            _embedded: {
              errors: [
                {
                  code: "Duplicate",
                  message: "A customer with the specified email already exists.",
                  path: "/email",
                  _links: { about: { href: `${url}/customers/${taken.id}`, type: hal, "resource-type": "customer" } },
                },
              ],
            },
          },
        }
      }
      const id = fixedOrNew(customerId, state.customers)
      state.customers.set(id, {
        id,
        type: String(body.type ?? "unverified"),
        email,
        correlationId: typeof body.correlationId === "string" ? body.correlationId : undefined,
        status: body.type === "business" ? "document" : "unverified",
      })
      return created(`/customers/${id}`)
    }
    const customerPath = /^\/customers\/([^/]+)(\/.*)?$/.exec(path)
    if (customerPath !== null) {
      const [, id = "", rest = ""] = customerPath
      if (customerOf(id) === undefined)
        return { status: 404, contentType: hal, body: { code: "NotFound", message: "Customer not found." } }
      if (method === "GET" && rest === "") return { status: 200, contentType: hal, body: customerBody(customerOf(id)!) }
      if (method === "GET" && rest === "/beneficial-owners") {
        return { status: 200, contentType: hal, body: { _links: {}, _embedded: { "beneficial-owners": [] } } }
      }
      if (method === "POST" && rest === "/beneficial-owners") return created(`/beneficial-owners/${beneficialOwnerId}`)
      if (method === "POST" && rest === "/beneficial-ownership") {
        return {
          status: 200,
          contentType: hal,
          body: { _links: { self: { href: `${url}/customers/${id}/beneficial-ownership` } }, status: "certified" },
        }
      }
      if (method === "POST" && rest === "/funding-sources") return createFundingSource(id, request)
    }
    if (at === "POST /transfers") return createTransfer(request)
    const transferPath = /^\/transfers\/([^/]+)(\/failure)?$/.exec(path)
    if (method === "GET" && transferPath !== null) {
      const found = transferOf(transferPath[1] ?? "")
      if (found === undefined) {
        return {
          status: 404,
          contentType: hal,
          body: { code: "NotFound", message: "The requested resource was not found." },
        }
      }
      if (transferPath[2] === undefined) return { status: 200, contentType: hal, body: transferBody(found) }
      return {
        status: 200,
        contentType: hal,
        body: {
          code: found.failureCode ?? "R01",
          description: returnReasons[found.failureCode ?? "R01"] ?? "Returned",
        },
      }
    }
    return {
      status: 404,
      contentType: hal,
      body: { code: "NotFound", message: "The requested resource was not found." },
    }
  }

  const fake = await startFake(() => dwolla, { "": route })
  url = fake.url
  received = fake.requests
  const setCustomerStatus = (id: string, status: string) => {
    const found = customerOf(id)
    if (found === undefined) throw new Error(`the fake has no customer ${id}`)
    state.customers.set(id, { ...found, status })
  }
  return {
    ...fake,
    contract: dwolla,
    state,
    customerStatus: (status) => setCustomerStatus(customerId, status),
    setCustomerStatus,
    transferStatus: (status, failureCode = "R01", id = transferId) => {
      const found = transferOf(id)
      if (found === undefined) throw new Error(`the fake has no transfer ${id}`)
      found.status = status
      found.failureCode = status === "failed" ? failureCode : undefined
    },
    removeFundingSource: (id) => {
      const found = state.fundingSources.get(id)
      if (found === undefined) throw new Error(`the fake has no funding source ${id}`)
      found.removed = true
    },
    failNext: (error, count = 1) => {
      for (let i = 0; i < count; i++) pending.push(error)
    },
  }
}

/**
 * A fake started for a test (kept in `fakes`, which the test file closes after all) and a Dwolla
 * configuration pointing at it; `config` adds to or overrides the usual test values.
 */
export const startConfigured = (fakes: Array<DwollaFake>, config: Partial<DwollaClient.DwollaConfig> = {}) =>
  Effect.gen(function* () {
    const fake = yield* Effect.promise(() => start())
    fakes.push(fake)
    const configured: DwollaClient.DwollaConfig = {
      key: "a-dwolla-key",
      secret: Redacted.make("a-dwolla-secret"),
      environment: "sandbox",
      baseUrl: fake.url,
      webhookSecret: Redacted.make("a-webhook-secret"),
      timeoutMillis: 5000,
      ...config,
    }
    return { fake, config: configured }
  })
