/**
 * Money movement on Dwolla driven through the official `dwolla` SDK against a
 * local fake of Dwolla: debits, refunds and payouts as transfers with an
 * Idempotency-Key, the payout account's funding source made once, statuses
 * and return codes; every request and answer checked against Dwolla's document.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { CompanyPayoutAccount, type Ids, MoneyMovement } from "@partnerpay/domain"
import { Effect } from "effect"
import * as DwollaMoneyMovement from "../../src/providers/DwollaMoneyMovement.ts"
import * as DwollaStore from "../../src/providers/DwollaStore.ts"
import * as DwollaFake from "./DwollaFake.ts"

const companyId = "8c6b3a57-3c6d-4c55-9b1f-2f0f0e2f3a11" as Ids.CompanyId
const payer = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f" as Ids.RegistrationId
const masterFundingSource = "b268f6b9-db3b-4ecc-83a2-8823a53ec8b7"

/** A payout of the company to its payout account (a new funding source at Dwolla). */
const payout = {
  idempotencyKey: "payout-1",
  companyId,
  payoutAccount: "payout-account-1",
  destination: {
    accountHolderName: "Jane's Plumbing LLC",
    routingNumber: "222222226",
    accountNumber: "123456789",
    accountType: "Checking" as const,
  },
  amount: { minorUnits: 10_000, currency: "USD" as const },
}
const payerFundingSource = "5b29f9e8-dc2a-4b51-9f6a-8e8e8e8e8e8e"
const linkedFundingSource = "7d3b1f5e-9a2c-4e6b-8f1a-3c5e7a9b1d3f"

/**
 * A store in memory: the payer's bank account 1 has a funding source kept for it; account 2 one made at
 * link time (kept by the account's identity); the company a customer.
 */
const memoryStore = () => {
  const linked: DwollaStore.LinkedAccount = { institutionId: "ins_109508", mask: "0000", type: "checking" }
  const kept = new Map<string, string>([
    ["bank-account-1", payerFundingSource],
    [DwollaStore.payerAccountKey(payer, linked), linkedFundingSource],
  ])
  const store: DwollaStore.Store = {
    find: (ownerId) => Effect.succeed(kept.get(ownerId)),
    keep: (ownerId, fundingSource) =>
      Effect.sync(() => {
        if (!kept.has(ownerId)) kept.set(ownerId, fundingSource)
        return kept.get(ownerId) as string
      }),
    customerOf: (id) => Effect.succeed(id === companyId ? DwollaFake.customerId : undefined),
    accountOf: (registrationId, bankAccountId) =>
      Effect.succeed(registrationId === payer && bankAccountId === "bank-account-2" ? linked : undefined),
  }
  return { kept, store }
}

describe("Dwolla amounts and statuses", () => {
  it("minor units are Dwolla's decimal strings", () => {
    assert.deepStrictEqual([1234, 5, 100, 0].map(DwollaMoneyMovement.decimalOf), ["12.34", "0.05", "1.00", "0.00"])
  })
  it("pending waits, processed is Settled, failed carries its return code, cancelled is R06", () => {
    assert.deepStrictEqual(
      [
        DwollaMoneyMovement.outcomeOf("pending", undefined),
        DwollaMoneyMovement.outcomeOf("processed", undefined),
        DwollaMoneyMovement.outcomeOf("failed", "R01"),
        DwollaMoneyMovement.outcomeOf("cancelled", undefined),
      ],
      [
        { status: "Pending" },
        { status: "Settled" },
        { status: "Failed", returnCode: "R01" },
        { status: "Failed", returnCode: "R06" },
      ],
    )
  })
})

describe("money movement on Dwolla, on its published contract", () => {
  const fakes: Array<DwollaFake.DwollaFake> = []
  afterAll(() => Promise.all(fakes.map((fake) => fake.close())))

  const start = Effect.fn(function* (timeoutMillis = 5000) {
    const { fake, config } = yield* DwollaFake.startConfigured(fakes, { masterFundingSource, timeoutMillis })
    const { kept, store } = memoryStore()
    return { fake, kept, movement: DwollaMoneyMovement.make(config, store) }
  })

  const bodyOf = (fake: DwollaFake.DwollaFake, path: string) =>
    JSON.parse(fake.requests.find((request) => request.path === path)?.body ?? "{}")

  it.live("a payer's debit is a transfer to the master funding source, keyed by the transfer id", () =>
    Effect.gen(function* () {
      const { fake, movement } = yield* start()
      const reference = yield* movement.originateDebit({
        idempotencyKey: "transfer-1",
        companyId,
        payerRegistrationId: payer,
        fundingSource: "bank-account-1",
        amount: { minorUnits: 1234, currency: "USD" },
        description: "Invoice 42",
        sameDay: true,
      })
      assert.deepStrictEqual(reference, { kind: "Debit", id: "transfer-1", providerReference: DwollaFake.transferId })
      const request = fake.requests.find((candidate) => candidate.path === "/transfers")
      assert.strictEqual(request?.headers["idempotency-key"], "transfer-1")
      const body = bodyOf(fake, "/transfers")
      assert.deepStrictEqual(body._links, {
        source: { href: `${fake.url}/funding-sources/${payerFundingSource}` },
        destination: { href: `${fake.url}/funding-sources/${masterFundingSource}` },
      })
      assert.deepStrictEqual(body.amount, { value: "12.34", currency: "USD" })
      assert.deepStrictEqual(body.clearing, { source: "next-available" })
      // Our movement id as Dwolla's correlation id: a webhook that comes before the reference names it.
      assert.strictEqual(body.correlationId, "transfer-1")
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("the SDK's transfer, misspelled or without Dwolla's headers, would be a violation", () =>
    Effect.gen(function* () {
      const { fake, movement } = yield* start()
      yield* movement.originateDebit({
        idempotencyKey: "transfer-1",
        companyId,
        payerRegistrationId: payer,
        fundingSource: "bank-account-1",
        amount: { minorUnits: 1234, currency: "USD" },
        description: "Invoice 42",
      })
      const sent = fake.requests.find((request) => request.path === "/transfers")!
      assert.deepStrictEqual(fake.contract.checkRequest(sent), [])
      const { correlationId, ...body } = JSON.parse(sent.body)
      assert.strictEqual(correlationId, "transfer-1")
      assert.deepStrictEqual(
        fake.contract.checkRequest({ ...sent, body: JSON.stringify({ ...body, correlationID: correlationId }) }),
        ["POST /transfers: body/correlationID is not in the document"],
      )
      const without = (name: string) => {
        const { [name]: _dropped, ...headers } = sent.headers
        return fake.contract.checkRequest({ ...sent, headers })
      }
      assert.deepStrictEqual(without("idempotency-key"), ["POST /transfers: header Idempotency-Key is required"])
      assert.deepStrictEqual(without("accept"), ["POST /transfers: header Accept is required"])
      assert.match(without("authorization").join(), /not authenticated as the document asks: Authorization: Bearer/)
      assert.match(
        fake.contract.checkRequest({ ...sent, headers: { ...sent.headers, accept: "application/json" } }).join(),
        /header Accept must be equal to one of the allowed values/,
      )
      const token = fake.requests.find((request) => request.path === "/token")!
      assert.deepStrictEqual(fake.contract.checkRequest(token), [])
      const { authorization: _basic, ...unauthenticated } = token.headers
      assert.match(fake.contract.checkRequest({ ...token, headers: unauthenticated }).join(), /Authorization: Basic/)
    }),
  )

  it.live("the funding source made when the payer linked the account is found from our bank account id", () =>
    Effect.gen(function* () {
      const { fake, movement } = yield* start()
      yield* movement.originateDebit({
        idempotencyKey: "transfer-3",
        companyId,
        payerRegistrationId: payer,
        fundingSource: "bank-account-2",
        amount: { minorUnits: 100, currency: "USD" },
        description: "Invoice 43",
      })
      assert.strictEqual(
        bodyOf(fake, "/transfers")._links.source.href,
        `${fake.url}/funding-sources/${linkedFundingSource}`,
      )
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("a refund is a transfer back to the payer, keyed by the refund id", () =>
    Effect.gen(function* () {
      const { fake, movement } = yield* start()
      yield* movement.originateCredit({
        idempotencyKey: "refund-1",
        transferId: "transfer-1",
        companyId,
        payerRegistrationId: payer,
        fundingSource: "bank-account-1",
        amount: { minorUnits: 500, currency: "USD" },
        description: "Refund of Invoice 42",
      })
      const body = bodyOf(fake, "/transfers")
      assert.strictEqual(body._links.destination.href, `${fake.url}/funding-sources/${payerFundingSource}`)
      assert.strictEqual(fake.requests.find((r) => r.path === "/transfers")?.headers["idempotency-key"], "refund-1")
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("a payout makes the payout account's funding source once, on the company's customer, then transfers", () =>
    Effect.gen(function* () {
      const { fake, kept, movement } = yield* start()
      yield* movement.originatePayout(payout)
      yield* movement.originatePayout({ ...payout, idempotencyKey: "payout-2" })
      assert.deepStrictEqual(
        fake.requests.map((request) => `${request.method} ${request.path}`),
        [
          "POST /token",
          `POST /customers/${DwollaFake.customerId}/funding-sources`,
          "POST /transfers",
          "POST /transfers",
        ],
      )
      const source = bodyOf(fake, `/customers/${DwollaFake.customerId}/funding-sources`)
      assert.strictEqual(source.bankAccountType, "checking")
      assert.strictEqual(kept.get("payout-account-1"), DwollaFake.fundingSourceId)
      const body = bodyOf(fake, "/transfers")
      assert.strictEqual(body._links.destination.href, `${fake.url}/funding-sources/${DwollaFake.fundingSourceId}`)
      assert.deepStrictEqual(fake.violations, [])
      const refused = yield* Effect.flip(
        movement.originatePayout({ ...payout, companyId: "other" as Ids.CompanyId, payoutAccount: "other" }),
      )
      assert.instanceOf(refused, MoneyMovement.MovementRefused)
    }),
  )

  it.live("a payer without a funding source is refused (the movement fails); Dwolla's refusal is a refusal", () =>
    Effect.gen(function* () {
      const { fake, movement } = yield* start()
      const debit = {
        idempotencyKey: "transfer-2",
        companyId,
        payerRegistrationId: payer,
        fundingSource: "bank-account-unknown",
        amount: { minorUnits: 100, currency: "USD" as const },
        description: "x",
      }
      const none = yield* Effect.flip(movement.originateDebit(debit))
      assert.strictEqual((none as MoneyMovement.MovementRefused).code, "NO_FUNDING_SOURCE")
      fake.answer("/transfers", {
        status: 400,
        contentType: DwollaFake.hal,
        body: { code: "ValidationError", message: "Validation error(s) present.", _embedded: { errors: [] } },
      })
      const refused = yield* Effect.flip(movement.originateDebit({ ...debit, fundingSource: "bank-account-1" }))
      assert.strictEqual((refused as MoneyMovement.MovementRefused).code, "ValidationError")
    }),
  )

  it.live(
    "Dwolla's 400 ValidationError is a refusal in Dwolla's words; on a payout's destination it errors the account",
    () =>
      Effect.gen(function* () {
        const { fake, movement } = yield* start()
        fake.answer("/transfers", {
          status: 400,
          contentType: DwollaFake.hal,
          body: {
            code: "ValidationError",
            message: "Validation error(s) present. See embedded errors list for more details.",
            _embedded: {
              errors: [{ code: "Invalid", message: "Receiver exceeds weekly limit.", path: "/amount/value" }],
            },
          },
        })
        const refused = yield* Effect.flip(
          movement.originateDebit({
            idempotencyKey: "transfer-limit",
            companyId,
            payerRegistrationId: payer,
            fundingSource: "bank-account-1",
            amount: { minorUnits: 600_000, currency: "USD" as const },
            description: "x",
          }),
        )
        assert.instanceOf(refused, MoneyMovement.MovementRefused)
        const refusal = refused as MoneyMovement.MovementRefused
        assert.strictEqual(refusal.code, "ValidationError")
        assert.include(refusal.reason, "Receiver exceeds weekly limit.")
        assert.include(refusal.reason, "/amount/value")
        fake.answer("/transfers", {
          status: 400,
          contentType: DwollaFake.hal,
          body: {
            code: "ValidationError",
            message: "Validation error(s) present.",
            _embedded: {
              errors: [
                { code: "Invalid", message: "Invalid destination funding source.", path: "/_links/destination/href" },
              ],
            },
          },
        })
        const destination = yield* Effect.flip(
          movement.originatePayout({
            idempotencyKey: "payout-refused",
            companyId,
            payoutAccount: "payout-account-1",
            destination: {
              accountHolderName: "Jane's Plumbing LLC",
              routingNumber: "222222226",
              accountNumber: "123456789",
              accountType: "Checking" as const,
            },
            amount: { minorUnits: 10_000, currency: "USD" as const },
          }),
        )
        assert.strictEqual(
          (destination as MoneyMovement.MovementRefused).code,
          CompanyPayoutAccount.destinationRefusedCode,
        )
        assert.include((destination as MoneyMovement.MovementRefused).reason, "Invalid destination funding source.")
        // Too many requests is an outage (retried with backoff), not a refusal.
        fake.answer("/transfers", {
          status: 429,
          contentType: DwollaFake.hal,
          body: { code: "TooManyRequests", message: "Too many requests." },
        })
        const throttled = yield* Effect.flip(
          movement.originateDebit({
            idempotencyKey: "transfer-throttled",
            companyId,
            payerRegistrationId: payer,
            fundingSource: "bank-account-1",
            amount: { minorUnits: 100, currency: "USD" as const },
            description: "x",
          }),
        )
        assert.strictEqual(throttled._tag, "ProviderUnavailable")
        // Dwolla moves USD only: declared, so another currency is refused when it is asked for.
        assert.deepStrictEqual(movement.capabilities?.currencies, ["USD"])
      }),
  )

  it.live(
    "Dwolla out of service (503) or not answering (timeout) is ProviderUnavailable: asked again later, never the secret",
    () =>
      Effect.gen(function* () {
        const { fake, movement } = yield* start(300)
        const debit = {
          idempotencyKey: "transfer-3",
          companyId,
          payerRegistrationId: payer,
          fundingSource: "bank-account-1",
          amount: { minorUnits: 100, currency: "USD" as const },
          description: "x",
        }
        fake.answer(
          "/transfers",
          { status: 503, contentType: DwollaFake.hal, body: { code: "ServerError", message: "down" } },
          { hang: true },
        )
        const outage = yield* Effect.flip(movement.originateDebit(debit))
        assert.strictEqual(outage._tag, "ProviderUnavailable")
        const silent = yield* Effect.flip(movement.originateDebit(debit))
        assert.strictEqual(silent._tag, "ProviderUnavailable")
        assert.notInclude(`${outage.message} ${silent.message}`, "a-dwolla-secret")
        const attempts = fake.requests.filter((request) => request.path === "/transfers")
        assert.deepStrictEqual(
          attempts.map((request) => request.headers["idempotency-key"]),
          ["transfer-3", "transfer-3"],
        )
        assert.deepStrictEqual(fake.violations, [])
      }),
  )

  it.live("statuses: pending, processed, failed with Dwolla's return code (R01)", () =>
    Effect.gen(function* () {
      const { fake, movement } = yield* start()
      const reference = { kind: "Debit" as const, id: "transfer-1", providerReference: DwollaFake.transferId }
      const outcomes: Array<MoneyMovement.MovementOutcome> = []
      for (const status of ["pending", "processed", "failed"]) {
        fake.transferStatus(status, "R01")
        outcomes.push(yield* movement.status(reference))
      }
      assert.deepStrictEqual(outcomes, [
        { status: "Pending" },
        { status: "Settled" },
        { status: "Failed", returnCode: "R01" },
      ])
      assert.deepStrictEqual(fake.violations, [])
    }),
  )
})

describe("money movement against Dwolla's common errors (the stateful fake)", () => {
  const fakes: Array<DwollaFake.DwollaFake> = []
  afterAll(() => Promise.all(fakes.map((fake) => fake.close())))

  const start = Effect.fn(function* () {
    const { fake, config } = yield* DwollaFake.startConfigured(fakes, { masterFundingSource })
    // The payer: an unverified Dwolla customer owning the funding source of its bank account 1.
    const payerCustomer = crypto.randomUUID()
    fake.state.customers.set(payerCustomer, {
      id: payerCustomer,
      type: "unverified",
      email: "ada@example.com",
      status: "unverified",
    })
    fake.state.fundingSources.set(payerFundingSource, {
      id: payerFundingSource,
      customerId: payerCustomer,
      account: "plaid:processor-token",
      removed: false,
    })
    return { fake, payerCustomer, movement: DwollaMoneyMovement.make(config, memoryStore().store) }
  })

  const debit = (idempotencyKey: string, minorUnits: number, currency = "USD") => ({
    idempotencyKey,
    companyId,
    payerRegistrationId: payer,
    fundingSource: "bank-account-1",
    amount: { minorUnits, currency: currency as "USD" },
    description: "Invoice",
  })

  const refusalOf = (error: unknown) => {
    assert.instanceOf(error, MoneyMovement.MovementRefused)
    return error as MoneyMovement.MovementRefused
  }

  it.live("a transfer in a currency Dwolla does not move is refused, naming the amount's currency", () =>
    Effect.gen(function* () {
      const { fake, movement } = yield* start()
      const refused = refusalOf(yield* Effect.flip(movement.originateDebit(debit("eur-1", 1234, "EUR"))))
      assert.strictEqual(refused.code, "ValidationError")
      assert.include(refused.reason, "/amount/currency")
      assert.strictEqual(fake.state.transfers.size, 0)
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("an unverified payer's transfers past 5,000.00 USD in 7 days are refused (Dwolla's weekly limit)", () =>
    Effect.gen(function* () {
      const { fake, movement } = yield* start()
      yield* movement.originateDebit(debit("week-1", 400_000))
      const over = refusalOf(yield* Effect.flip(movement.originateDebit(debit("week-2", 100_001))))
      assert.strictEqual(over.code, "ValidationError")
      assert.include(over.reason, "/amount/value")
      yield* movement.originateDebit(debit("week-3", 100_000))
      assert.deepStrictEqual(
        [...fake.state.transfers.values()].map((transfer) => transfer.amount.value),
        ["4000.00", "1000.00"],
      )
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("a failed transfer does not count towards the weekly limit", () =>
    Effect.gen(function* () {
      const { fake, movement } = yield* start()
      const first = yield* movement.originateDebit(debit("week-1", 500_000))
      fake.transferStatus("failed", "R01", first.providerReference)
      yield* movement.originateDebit(debit("week-2", 500_000))
      assert.strictEqual(fake.state.transfers.size, 2)
    }),
  )

  it.live("a suspended payer's transfer is refused (Sender restricted)", () =>
    Effect.gen(function* () {
      const { fake, payerCustomer, movement } = yield* start()
      fake.setCustomerStatus(payerCustomer, "suspended")
      const refused = refusalOf(yield* Effect.flip(movement.originateDebit(debit("suspended-1", 100))))
      assert.include(refused.reason, "/_links/source/href")
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("a transfer from a removed funding source is refused", () =>
    Effect.gen(function* () {
      const { fake, movement } = yield* start()
      fake.removeFundingSource(payerFundingSource)
      const refused = refusalOf(yield* Effect.flip(movement.originateDebit(debit("removed-1", 100))))
      assert.include(refused.reason, "/_links/source/href")
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("each refusal can be asked of the fake for the next transfer, then it moves money again", () =>
    Effect.gen(function* () {
      const { fake, movement } = yield* start()
      const asked = ["weeklyLimit", "unsupportedCurrency", "suspendedCustomer", "removedFundingSource"] as const
      for (const error of asked) fake.failNext(error)
      const paths: Array<string> = []
      for (const error of asked) {
        paths.push(refusalOf(yield* Effect.flip(movement.originateDebit(debit(`asked-${error}`, 100)))).reason)
      }
      // The rail's words: the field Dwolla names and its embedded message.
      const expected = [
        ["/amount/value", "greater than your transaction limit"],
        ["/amount/currency", "Only USD is supported"],
        ["/_links/source/href", "Sender restricted."],
        ["/_links/source/href", "Invalid funding source."],
      ]
      expected.forEach(([path, words], index) => {
        assert.include(paths[index], path)
        assert.include(paths[index], words)
      })
      yield* movement.originateDebit(debit("asked-after", 100))
      assert.strictEqual(fake.state.transfers.size, 1)
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("429 and 5xx are unavailability: asked again with the same key, one transfer is made", () =>
    Effect.gen(function* () {
      const { fake, movement } = yield* start()
      fake.failNext("tooManyRequests")
      fake.failNext("serverError")
      const throttled = yield* Effect.flip(movement.originateDebit(debit("outage-1", 100)))
      assert.strictEqual(throttled._tag, "ProviderUnavailable")
      const down = yield* Effect.flip(movement.originateDebit(debit("outage-1", 100)))
      assert.strictEqual(down._tag, "ProviderUnavailable")
      const made = yield* movement.originateDebit(debit("outage-1", 100))
      const again = yield* movement.originateDebit(debit("outage-1", 100))
      assert.strictEqual(again.providerReference, made.providerReference)
      assert.strictEqual(fake.state.transfers.size, 1)
      assert.strictEqual(fake.state.idempotencyKeys.get("outage-1"), made.providerReference)
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("a transfer's lifecycle: pending, then processed; another failed with its return code", () =>
    Effect.gen(function* () {
      const { fake, movement } = yield* start()
      const settled = yield* movement.originateDebit(debit("life-1", 100))
      const returned = yield* movement.originateDebit(debit("life-2", 200))
      assert.deepStrictEqual(yield* movement.status(settled), { status: "Pending" })
      fake.transferStatus("processed", undefined, settled.providerReference)
      fake.transferStatus("failed", "R03", returned.providerReference)
      assert.deepStrictEqual(yield* movement.status(settled), { status: "Settled" })
      assert.deepStrictEqual(yield* movement.status(returned), { status: "Failed", returnCode: "R03" })
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("a payout to a removed or suspended destination is refused at the destination", () =>
    Effect.gen(function* () {
      const { fake, movement } = yield* start()
      fake.failNext("removedFundingSource")
      const removed = refusalOf(yield* Effect.flip(movement.originatePayout(payout)))
      assert.include(removed.reason, "(/_links/destination/href)")
      assert.include(removed.reason, "Invalid destination funding source.")
      fake.setCustomerStatus(DwollaFake.customerId, "suspended")
      const suspended = refusalOf(
        yield* Effect.flip(movement.originatePayout({ ...payout, idempotencyKey: "payout-2" })),
      )
      assert.include(suspended.reason, "(/_links/destination/href)")
      assert.include(suspended.reason, "Receiver restricted.")
      assert.strictEqual(fake.state.transfers.size, 0)
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("a payout account Dwolla already has (DuplicateResource) is the existing funding source", () =>
    Effect.gen(function* () {
      const { fake, movement } = yield* start()
      fake.failNext("duplicateResource")
      yield* movement.originatePayout(payout)
      const [existing] = [...fake.state.fundingSources.values()].filter((source) =>
        source.account.includes("222222226"),
      )
      const [transfer] = [...fake.state.transfers.values()]
      assert.strictEqual(transfer?.destination, existing?.id)
      assert.deepStrictEqual(fake.violations, [])
    }),
  )
})
