/**
 * A payer's Dwolla funding source made at link time: the Plaid bank linker
 * (official `plaid` SDK) asks a processor token for each linked account and
 * the Dwolla maker (official `dwolla` SDK) makes the payer's unverified
 * customer once and the funding source from the token; both fakes check every
 * request and answer against the providers' documents.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import type { Ids } from "@partnerpay/domain"
import { Effect, Redacted } from "effect"
import type * as DwollaClient from "../../src/providers/DwollaClient.ts"
import * as DwollaFundingSources from "../../src/providers/DwollaFundingSources.ts"
import * as DwollaStore from "../../src/providers/DwollaStore.ts"
import * as PlaidBankLinker from "../../src/providers/PlaidBankLinker.ts"
import * as DwollaFake from "./DwollaFake.ts"
import { Contract, type Fake, startFake } from "./OpenApiContract.ts"

const registrationId = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f" as Ids.RegistrationId
const holder = { firstName: "Ada", lastName: "Lovelace", emailAddress: "ada@example.com" }

const memoryStore = () => {
  const kept = new Map<string, string>()
  const store: DwollaStore.Store = {
    find: (ownerId) => Effect.succeed(kept.get(ownerId)),
    keep: (ownerId, fundingSource) =>
      Effect.sync(() => {
        if (!kept.has(ownerId)) kept.set(ownerId, fundingSource)
        return kept.get(ownerId) as string
      }),
    customerOf: () => Effect.succeed(undefined),
    accountOf: () => Effect.succeed(undefined),
  }
  return { kept, store }
}

describe("a payer's Dwolla funding source from a Plaid processor token", () => {
  const fakes: Array<Fake> = []
  afterAll(() => Promise.all(fakes.map((fake) => fake.close())))
  const plaidContract = new Contract("Plaid", "plaid-2020-09-14.yml")
  const processorToken = (plaidContract.example("POST", "/processor/token/create", 200) as { processor_token: string })
    .processor_token

  const start = Effect.fn(function* () {
    const example = (path: string) => plaidContract.example("POST", path, 200)
    const plaid = yield* Effect.promise(() =>
      startFake(() => plaidContract, {
        "/item/public_token/exchange": { status: 200, body: example("/item/public_token/exchange") },
        "/accounts/get": { status: 200, body: example("/accounts/get") },
        "/processor/token/create": { status: 200, body: example("/processor/token/create") },
      }),
    )
    const dwolla = yield* Effect.promise(() => DwollaFake.start())
    fakes.push(plaid, dwolla)
    const dwollaConfig: DwollaClient.DwollaConfig = {
      key: "a-dwolla-key",
      secret: Redacted.make("a-dwolla-secret"),
      environment: "sandbox",
      baseUrl: dwolla.url,
      webhookSecret: Redacted.make("a-webhook-secret"),
      timeoutMillis: 5000,
    }
    const { kept, store } = memoryStore()
    const linker = PlaidBankLinker.make(
      {
        clientId: "a-client-id",
        secret: Redacted.make("a-plaid-secret"),
        environment: "sandbox",
        baseUrl: plaid.url,
        clientName: "partnerpay",
        timeoutMillis: 5000,
      },
      DwollaFundingSources.make(dwollaConfig, store),
    )
    const accounts = (example("/accounts/get") as { accounts: Array<{ account_id: string }> }).accounts
    const link = (withHolder: boolean) =>
      linker.exchangePublicToken({
        registrationId,
        tokenId: "a-token-id",
        publicToken: "public-sandbox-token",
        linkSessionId: "a-session",
        institutionId: "ins_109508",
        accountIds: [accounts[0]?.account_id ?? ""],
        ...(withHolder ? { holder } : {}),
      })
    return { plaid, dwolla, kept, link }
  })

  it.live(
    "each linked account: a processor token for Dwolla, the payer's unverified customer once, a funding source",
    () =>
      Effect.gen(function* () {
        const { plaid, dwolla, kept, link } = yield* start()
        const linked = yield* link(true)
        const account = linked.accounts[0]
        assert.isDefined(account)
        const processor = plaid.requests.find((request) => request.path === "/processor/token/create")
        assert.strictEqual(JSON.parse(processor?.body ?? "{}").processor, "dwolla")
        assert.deepStrictEqual(
          dwolla.requests.map((request) => `${request.method} ${request.path}`),
          [
            "POST /token",
            "GET /customers",
            "POST /customers",
            `POST /customers/${DwollaFake.customerId}/funding-sources`,
          ],
        )
        const customer = JSON.parse(dwolla.requests[2]?.body ?? "{}")
        assert.deepStrictEqual(customer, {
          type: "unverified",
          firstName: "Ada",
          lastName: "Lovelace",
          email: "ada@example.com",
          correlationId: registrationId,
        })
        const source = JSON.parse(dwolla.requests[3]?.body ?? "{}")
        assert.strictEqual(source.plaidToken, processorToken)
        assert.strictEqual(source.bankAccountType, account?.type === "savings" ? "savings" : "checking")
        const key = DwollaStore.payerAccountKey(registrationId, {
          institutionId: account?.institutionId ?? "",
          mask: account?.mask ?? "",
          type: account?.type ?? "",
        })
        assert.strictEqual(kept.get(key), DwollaFake.fundingSourceId)
        assert.strictEqual(kept.get(DwollaStore.payerKey(registrationId)), DwollaFake.customerId)
        // Linked again: the customer and the funding source are not made twice.
        yield* link(true)
        assert.strictEqual(dwolla.requests.filter((request) => request.method === "POST").length, 3)
        assert.deepStrictEqual([...plaid.violations, ...dwolla.violations], [])
      }),
  )

  it.live("a customer without a verified identity links, and no funding source is made", () =>
    Effect.gen(function* () {
      const { plaid, dwolla, link } = yield* start()
      const linked = yield* link(false)
      assert.isNotEmpty(linked.accounts)
      assert.isUndefined(plaid.requests.find((request) => request.path === "/processor/token/create"))
      assert.deepStrictEqual(dwolla.requests, [])
    }),
  )

  it.live("Dwolla down: the link fails as unavailable (the customer links again)", () =>
    Effect.gen(function* () {
      const { dwolla, link } = yield* start()
      dwolla.answer("POST /customers", { status: 503, body: {} })
      const failed = yield* Effect.flip(link(true))
      assert.strictEqual(failed._tag, "ProviderUnavailable")
    }),
  )
})
