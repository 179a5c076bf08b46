/**
 * The account autopay debits (PUT and GET /Account/Default, customer token)
 * and the customer-only in-app card payment, over HTTP (in-process server,
 * sandbox providers).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { bearer, type Handler, makeServer, partnerToken, send } from "./fixtures.ts"

const { handler, dispose } = makeServer()
const server = handler as Handler
afterAll(async () => {
  await dispose()
})

const json = (method: string, body: unknown, token: string): RequestInit => ({
  method,
  headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
  body: JSON.stringify(body),
})

let phoneCounter = 0
const freshPhone = () => `+1415556${(1000 + ++phoneCounter).toString()}`

/** A new customer with two linked accounts: their token and account ids. */
const customerWithAccounts = Effect.gen(function* () {
  const partner = yield* partnerToken(server)
  const phoneNumber = freshPhone()
  yield* send(server, "/Login/SendOtp", json("POST", { phoneNumber }, partner))
  const checked = yield* send(server, "/Login/CheckOtp", json("PUT", { phoneNumber, code: "123456" }, partner))
  const customer = (checked.json as { accessToken: string }).accessToken
  const session = yield* send(server, "/Verification/StartKyc", json("POST", { deviceId: "device-1" }, customer))
  const tokenId = (session.json as { tokenId: string }).tokenId
  const linked = yield* send(
    server,
    "/Account/Link",
    json(
      "PUT",
      {
        tokenId,
        publicToken: "public-sandbox-ok",
        linkAccountsMetadata: { linkSessionId: "s-1", institutionId: "ins_1", accountIds: ["acc-1", "acc-2"] },
      },
      customer,
    ),
  )
  assert.strictEqual(linked.status, 200, linked.text)
  const list = yield* send(server, "/Account/List", bearer(customer))
  const accounts = (list.json as { accounts: Array<{ accountId: string }> }).accounts.map((a) => a.accountId)
  return { partner, customer, accounts }
})

const defaultOf = (customer: string) =>
  Effect.map(send(server, "/Account/Default", bearer(customer)), (answer) => {
    assert.strictEqual(answer.status, 200, answer.text)
    return (answer.json as { account: { accountId: string; mask: string } | null }).account
  })

describe("a customer without a designated account", () => {
  it.effect("reads null, then designates one of their linked accounts (200, empty body) and reads it back", () =>
    Effect.gen(function* () {
      const { customer, accounts } = yield* customerWithAccounts
      assert.isNull(yield* defaultOf(customer))
      const set = yield* send(server, "/Account/Default", json("PUT", { bankAccountId: accounts[1] }, customer))
      assert.strictEqual(set.status, 200, set.text)
      assert.strictEqual(set.text, "")
      assert.strictEqual((yield* defaultOf(customer))?.accountId, accounts[1])
      const again = yield* send(server, "/Account/Default", json("PUT", { bankAccountId: accounts[1] }, customer))
      assert.strictEqual(again.status, 200)
    }),
  )

  it.effect("another customer's or an unknown account is 404; a malformed id 400; a partner token 403", () =>
    Effect.gen(function* () {
      const owner = yield* customerWithAccounts
      const intruder = yield* customerWithAccounts
      const stolen = yield* send(
        server,
        "/Account/Default",
        json("PUT", { bankAccountId: owner.accounts[0] }, intruder.customer),
      )
      assert.strictEqual(stolen.status, 404)
      const unknown = yield* send(
        server,
        "/Account/Default",
        json("PUT", { bankAccountId: "9e57ab1e-0000-4000-8000-000000000002" }, owner.customer),
      )
      assert.strictEqual(unknown.status, 404)
      const malformed = yield* send(server, "/Account/Default", json("PUT", { bankAccountId: "nope" }, owner.customer))
      assert.strictEqual(malformed.status, 400)
      const partner = yield* send(
        server,
        "/Account/Default",
        json("PUT", { bankAccountId: owner.accounts[0] }, owner.partner),
      )
      assert.strictEqual(partner.status, 403)
      assert.isNull(yield* defaultOf(intruder.customer))
    }),
  )
})

describe("a customer with a designated account", () => {
  it.effect("unlinking that account clears the choice", () =>
    Effect.gen(function* () {
      const { customer, accounts } = yield* customerWithAccounts
      yield* send(server, "/Account/Default", json("PUT", { bankAccountId: accounts[0] }, customer))
      const deleted = yield* send(server, "/Account/Delete", json("DELETE", { accountId: accounts[0] }, customer))
      assert.strictEqual(deleted.status, 200)
      assert.isNull(yield* defaultOf(customer))
    }),
  )
})

describe("paying a payment request with a card", () => {
  it.effect("is for customers (a partner token: 403); an unknown request is 404", () =>
    Effect.gen(function* () {
      const { customer, partner } = yield* customerWithAccounts
      const path = "/Transaction/PaymentRequest/9e57ab1e-0000-4000-8000-000000000003/PayWithCard"
      const asPartner = yield* send(server, path, json("POST", { paymentMethodId: "card_1" }, partner))
      assert.strictEqual(asPartner.status, 403)
      const unknown = yield* send(server, path, json("POST", { paymentMethodId: "card_1" }, customer))
      assert.strictEqual(unknown.status, 404)
    }),
  )
})
