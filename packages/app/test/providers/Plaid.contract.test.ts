/**
 * The Plaid bank linker driven through the official `plaid` SDK against a
 * local fake of Plaid: every request is checked against Plaid's published
 * document (API 2020-09-14), and so is every answer of the fake (the
 * document's own examples).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import type { Ids } from "@partnerpay/domain"
import { DateTime, Effect, Redacted } from "effect"
import * as PlaidBankLinker from "../../src/providers/PlaidBankLinker.ts"
import { Contract, type Fake, startFake } from "./OpenApiContract.ts"

const registrationId = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f" as Ids.RegistrationId

describe("Plaid, on its published contract", () => {
  const plaid = new Contract("Plaid", "plaid-2020-09-14.yml")
  const fakes: Array<Fake> = []
  afterAll(() => Promise.all(fakes.map((fake) => fake.close())))

  const example = (path: string) => (plaid as Contract).example("POST", path, 200)

  const start = Effect.fn(function* () {
    const fake = yield* Effect.promise(() =>
      startFake(() => plaid as Contract, {
        "/link/token/create": { status: 200, body: example("/link/token/create") },
        "/item/public_token/exchange": { status: 200, body: example("/item/public_token/exchange") },
        "/accounts/get": { status: 200, body: example("/accounts/get") },
        "/processor/token/create": { status: 200, body: example("/processor/token/create") },
      }),
    )
    fakes.push(fake)
    const config: PlaidBankLinker.PlaidConfig = {
      clientId: "a-client-id",
      secret: Redacted.make("a-plaid-secret"),
      environment: "sandbox",
      baseUrl: fake.url,
      webhookUrl: "https://partnerpay.example.com/BankLinkWebhook/UpdateItem",
      clientName: "partnerpay",
      timeoutMillis: 5000,
    }
    return { fake, config }
  })

  const plaidError = (status: number, type: string, code: string) => ({
    status,
    body: {
      error_type: type,
      error_code: code,
      error_message: "the public token has expired",
      display_message: null,
      request_id: "req",
    },
  })

  it("the contract itself refuses a request or an answer the document does not allow (the check is not vacuous)", () => {
    const request = (body: unknown) => ({
      method: "POST",
      path: "/link/token/create",
      query: new URLSearchParams(),
      headers: {},
      contentType: "application/json",
      body: JSON.stringify(body),
    })
    const contract = plaid as Contract
    assert.isNotEmpty(contract.checkRequest(request({ client_name: "x" })))
    assert.isNotEmpty(contract.checkAnswer("POST", "/link/token/create", 200, { link_token: "x" }))
  })

  it.live("a link token for the customer's bank-link session: Auth, US, the item webhook, the customer's id", () =>
    Effect.gen(function* () {
      const { fake, config } = yield* start()
      const { linkToken, expiration } = yield* PlaidBankLinker.make(config).createLinkToken({
        registrationId,
        tokenId: "a-token-id",
      })
      assert.strictEqual(linkToken, "link-sandbox-af1a0311-da53-4636-b754-dd15cc058176")
      assert.strictEqual(DateTime.formatIso(expiration), "2020-03-27T12:56:34.000Z")
      const body = JSON.parse(fake.requests[0]?.body ?? "{}")
      assert.deepStrictEqual(body.user, { client_user_id: registrationId })
      assert.deepStrictEqual(body.products, ["auth"])
      assert.strictEqual(body.webhook, config.webhookUrl)
      assert.strictEqual(fake.requests[0]?.headers["plaid-client-id"], "a-client-id")
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("the SDK's request, misspelled or without Plaid's credential headers, would be a violation", () =>
    Effect.gen(function* () {
      const { fake, config } = yield* start()
      yield* PlaidBankLinker.make(config).createLinkToken({ registrationId, tokenId: "a-token-id" })
      const sent = fake.requests[0]!
      assert.deepStrictEqual(plaid.checkRequest(sent), [])
      const { webhook, ...body } = JSON.parse(sent.body)
      const misspelled = { ...sent, body: JSON.stringify({ ...body, webhook_url: webhook }) }
      assert.deepStrictEqual(plaid.checkRequest(misspelled), [
        "POST /link/token/create: body/webhook_url is not in the document",
      ])
      const nested = { ...sent, body: JSON.stringify({ ...body, webhook, user: { clientUserId: registrationId } }) }
      assert.include(plaid.checkRequest(nested).join("\n"), "body/user/clientUserId is not in the document")
      for (const header of ["plaid-client-id", "plaid-secret", "plaid-version"]) {
        const { [header]: _dropped, ...headers } = sent.headers
        assert.match(plaid.checkRequest({ ...sent, headers }).join("\n"), /not authenticated as the document asks/)
      }
    }),
  )

  it.live("a public token becomes the chosen accounts with their masks; the access token stays inside", () =>
    Effect.gen(function* () {
      const { fake, config } = yield* start()
      const accounts = (example("/accounts/get") as { accounts: Array<{ account_id: string; mask: string }> }).accounts
      const chosen = accounts[0]?.account_id ?? ""
      const linked = yield* PlaidBankLinker.make(config).exchangePublicToken({
        registrationId,
        tokenId: "a-token-id",
        publicToken: "public-sandbox-token",
        linkSessionId: "a-session",
        institutionId: "ins_109508",
        accountIds: [chosen],
      })
      assert.deepStrictEqual(
        linked.accounts.map((account) => [account.providerAccountId, account.mask]),
        [[chosen, accounts[0]?.mask]],
      )
      assert.notInclude(JSON.stringify(linked), "access-sandbox")
      assert.deepStrictEqual(
        fake.requests.map((request) => request.path),
        ["/item/public_token/exchange", "/accounts/get"],
      )
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("a public token Plaid refuses is the spec's linkError; Plaid's outage is ProviderUnavailable", () =>
    Effect.gen(function* () {
      const { fake, config } = yield* start()
      fake.answer(
        "/item/public_token/exchange",
        plaidError(400, "INVALID_INPUT", "INVALID_PUBLIC_TOKEN"),
        plaidError(500, "API_ERROR", "INTERNAL_SERVER_ERROR"),
      )
      const linker = PlaidBankLinker.make(config)
      const request = {
        registrationId,
        tokenId: "a-token-id",
        publicToken: "public-sandbox-token",
        linkSessionId: "a-session",
        institutionId: "ins_109508",
        accountIds: [],
      }
      const refused = yield* Effect.flip(linker.exchangePublicToken(request))
      assert.deepInclude(refused, { _tag: "BankLinkFailed", errorCode: "INVALID_PUBLIC_TOKEN" })
      const outage = yield* Effect.flip(linker.exchangePublicToken(request))
      assert.strictEqual(outage._tag, "ProviderUnavailable")
      assert.notInclude(outage.message, "a-plaid-secret")
      assert.deepStrictEqual(fake.violations, [])
    }),
  )

  it.live("a processor token for the money-movement provider (Dwolla) of one linked account", () =>
    Effect.gen(function* () {
      const { fake, config } = yield* start()
      const token = yield* PlaidBankLinker.processorToken(config, "access-sandbox-x", "an-account-id")
      assert.strictEqual(token, "processor-sandbox-0asd1-a92nc")
      assert.strictEqual(JSON.parse(fake.requests[0]?.body ?? "{}").processor, "dwolla")
      assert.deepStrictEqual(fake.violations, [])
    }),
  )
})
