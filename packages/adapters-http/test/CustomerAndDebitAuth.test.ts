/**
 * Through HTTP: customer notification settings and push tokens, saved card
 * payment methods, debit authorizations, external card payments and anonymous
 * charity donations (spec 2.10-2.13, section 4, changelog v0.2, v0.4.8, v0.4.10).
 */
import { assert, describe, it } from "@effect/vitest"
import { Customer, CustomerPreferences, Ids } from "@partnerpay/domain"
import { Fixtures } from "@partnerpay/domain/testing"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { bearer, otherPartnerId, partnerId, send } from "./fixtures.ts"
import {
  customerToken,
  makeSharedServer,
  partnerTokenFor,
  registerCompany,
  registerCustomer,
  registerVerifiedCompany,
} from "./partyFixtures.ts"

const server = await makeSharedServer()
afterAll(server.dispose)
const { freshId } = server

/** A customer of `partnerId`, two companies of the partner and one of the other partner. */
const world = Effect.gen(function* () {
  const registrationId = Ids.RegistrationId.make(freshId("7e57ab1e"))
  const acme = Ids.CompanyId.make(freshId("c0000000"))
  const globex = Ids.CompanyId.make(freshId("c0000000"))
  const foreign = Ids.CompanyId.make(freshId("c0000000"))
  yield* server.run(
    Effect.gen(function* () {
      yield* registerCustomer(partnerId, registrationId)
      yield* registerCompany(partnerId, acme, "Acme Coffee")
      yield* registerCompany(partnerId, globex, "Globex Water")
      yield* registerCompany(otherPartnerId, foreign, "Initech")
    }),
  )
  return {
    registrationId,
    acme,
    globex,
    foreign,
    customer: yield* customerToken(partnerId, registrationId),
    partner: yield* partnerTokenFor(partnerId),
    otherPartner: yield* partnerTokenFor(otherPartnerId),
  }
})

const json = (method: string, token: string | undefined, body: unknown): RequestInit => ({
  method,
  headers: {
    "content-type": "application/json",
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
  },
  body: JSON.stringify(body),
})

const call = (path: string, init?: RequestInit) => send(server.handler, path, init)
const fieldsOf = (body: unknown) => ((body as { errors?: Array<{ field: string }> }).errors ?? []).map((e) => e.field)

const usdResponse = (value: number) => ({
  value,
  currencyCode: { value: "USD", displayName: "US Dollar", cultureName: "en-US" },
})

describe("GET and PUT /Customer/Notifications", () => {
  it.effect("a customer reads the eight switches of spec 2.13 and changes some of them", () =>
    Effect.gen(function* () {
      const w = yield* world
      const read = yield* call("/Customer/Notifications", bearer(w.customer))
      assert.strictEqual(read.status, 200)
      assert.deepStrictEqual(read.json, Customer.defaultNotificationPreferences)
      assert.deepStrictEqual(Object.keys(read.json as object).sort(), [
        "newsEmail",
        "newsPush",
        "overdraftWarningsEmail",
        "overdraftWarningsPush",
        "paymentDueEmail",
        "paymentDuePush",
        "paymentStatusEmail",
        "paymentStatusPush",
      ])
      const put = yield* call("/Customer/Notifications", json("PUT", w.customer, { newsPush: true }))
      assert.strictEqual(put.status, 200)
      assert.deepStrictEqual(put.json, { ...Customer.defaultNotificationPreferences, newsPush: true })
      const again = yield* call("/Customer/Notifications", bearer(w.customer))
      assert.deepStrictEqual(again.json, put.json)
    }),
  )

  it.effect("no token is 401; a partner token is 403; a switch that is not a boolean is 400", () =>
    Effect.gen(function* () {
      const w = yield* world
      assert.strictEqual((yield* call("/Customer/Notifications")).status, 401)
      assert.strictEqual((yield* call("/Customer/Notifications", bearer(w.partner))).status, 403)
      const bad = yield* call("/Customer/Notifications", json("PUT", w.customer, { newsPush: "yes" }))
      assert.strictEqual(bad.status, 400)
      assert.deepStrictEqual(fieldsOf(bad.json), ["newsPush"])
    }),
  )

  it.effect("a customer token of an unregistered customer is 404", () =>
    Effect.gen(function* () {
      const token = yield* customerToken(partnerId, Ids.RegistrationId.make(freshId("7e57ab1e")))
      const r = yield* call("/Customer/Notifications", bearer(token))
      assert.strictEqual(r.status, 404)
    }),
  )
})

describe("POST and DELETE /Customer/NotificationToken", () => {
  it.effect("registering answers 200 with no body; deleting is idempotent (200 twice, and for an unknown token)", () =>
    Effect.gen(function* () {
      const w = yield* world
      const body = { token: "device-token-1", expireAt: { value: "2099-01-01T00:00:00.000Z" } }
      const posted = yield* call("/Customer/NotificationToken", json("POST", w.customer, body))
      assert.strictEqual(posted.status, 200)
      assert.strictEqual(posted.text, "")
      const state = yield* server.run(CustomerPreferences.loadCustomer(partnerId, w.registrationId))
      assert.deepStrictEqual(
        state.pushTokens.map((t) => t.token),
        ["device-token-1"],
      )
      for (const token of ["device-token-1", "device-token-1", "never-registered"]) {
        const deleted = yield* call("/Customer/NotificationToken", json("DELETE", w.customer, { token }))
        assert.strictEqual(deleted.status, 200)
        assert.strictEqual(deleted.text, "")
      }
      const after = yield* server.run(CustomerPreferences.loadCustomer(partnerId, w.registrationId))
      assert.lengthOf(after.pushTokens, 0)
    }),
  )

  it.effect("an expiry in the past is 422 on expireAt; a malformed instant is 400 on expireAt.value", () =>
    Effect.gen(function* () {
      const w = yield* world
      const past = yield* call(
        "/Customer/NotificationToken",
        json("POST", w.customer, { token: "t", expireAt: { value: "2001-01-01T00:00:00Z" } }),
      )
      assert.strictEqual(past.status, 422)
      assert.deepStrictEqual(fieldsOf(past.json), ["expireAt"])
      const malformed = yield* call(
        "/Customer/NotificationToken",
        json("POST", w.customer, { token: "t", expireAt: { value: "tomorrow" } }),
      )
      assert.strictEqual(malformed.status, 400)
      assert.deepStrictEqual(fieldsOf(malformed.json), ["expireAt.value"])
    }),
  )

  it.effect("a partner token is 403 and no token is 401", () =>
    Effect.gen(function* () {
      const w = yield* world
      const body = { token: "t", expireAt: { value: "2099-01-01T00:00:00Z" } }
      assert.strictEqual((yield* call("/Customer/NotificationToken", json("POST", w.partner, body))).status, 403)
      assert.strictEqual(
        (yield* call("/Customer/NotificationToken", json("DELETE", undefined, { token: "t" }))).status,
        401,
      )
    }),
  )
})

describe("GET /Payment/CardPaymentMethods/{registrationId}", () => {
  it.effect("the partner and the customer read the saved cards with the fields of spec 2.12; type filters", () =>
    Effect.gen(function* () {
      const w = yield* world
      const card = { id: "pm_1", type: "card", brand: "visa", last4: "4242", expMonth: 12, expYear: 2030 }
      yield* server.run(CustomerPreferences.saveCardPaymentMethod(partnerId, w.registrationId, card))
      const path = `/Payment/CardPaymentMethods/${w.registrationId}`
      for (const token of [w.partner, w.customer]) {
        const r = yield* call(path, bearer(token))
        assert.strictEqual(r.status, 200)
        assert.deepStrictEqual(r.json, { registrationId: w.registrationId, paymentMethods: [card] })
      }
      const filtered = yield* call(`${path}?type=wallet`, bearer(w.partner))
      assert.deepStrictEqual((filtered.json as { paymentMethods: unknown[] }).paymentMethods, [])
    }),
  )

  it.effect("another partner, or another customer, gets 404; a malformed id is 400; no token 401", () =>
    Effect.gen(function* () {
      const w = yield* world
      const other = yield* world
      const path = `/Payment/CardPaymentMethods/${w.registrationId}`
      assert.strictEqual((yield* call(path, bearer(w.otherPartner))).status, 404)
      assert.strictEqual((yield* call(path, bearer(other.customer))).status, 404)
      assert.strictEqual((yield* call("/Payment/CardPaymentMethods/not-a-uuid", bearer(w.partner))).status, 400)
      assert.strictEqual((yield* call(path)).status, 401)
    }),
  )
})

/** A response without its `authorization` evidence (asserted on its own). */
const withoutEvidence = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (key, field) => (key === "authorization" ? undefined : field)))

describe("debit authorizations", () => {
  it.effect("Set, Update, List and the partner's read answer the exact field names", () =>
    Effect.gen(function* () {
      const w = yield* world
      const set = yield* call(
        "/DebitAuth/Set",
        json("POST", w.customer, { companyId: w.acme, limit: { value: 250.5, currencyCode: "USD" } }),
      )
      assert.strictEqual(set.status, 200)
      const created = set.json as { debitAuthId: string }
      // The POST answer (stored for Idempotency-Key retries) leaves the evidence out; the list answers it.
      assert.deepStrictEqual(set.json, {
        debitAuthId: created.debitAuthId,
        companyId: w.acme,
        enabled: true,
        status: "Active",
        limit: usdResponse(250.5),
      })

      const list = yield* call("/DebitAuth/List", bearer(w.customer))
      assert.strictEqual(list.status, 200)
      const listed = (list.json as { debitAuths: ReadonlyArray<{ authorization: { textVersion: string } }> }).debitAuths
      assert.strictEqual(listed[0]?.authorization.textVersion, "debit-authorization/2026-11-28")
      assert.deepStrictEqual(withoutEvidence(list.json), {
        debitAuths: [
          {
            debitAuthId: { value: created.debitAuthId },
            companyId: { value: w.acme },
            enabled: true,
            preAuthLimit: 250.5,
            companyName: "Acme Coffee",
            status: "Active",
          },
        ],
      })

      const user = yield* call(`/User/${w.registrationId}/DebitAuth`, bearer(w.partner))
      assert.strictEqual(user.status, 200)
      assert.deepStrictEqual(withoutEvidence(user.json), { enabled: true, limit: 250.5, status: "Active" })

      const updated = yield* call(
        `/DebitAuth/${created.debitAuthId}/Update`,
        json("PUT", w.customer, { enabled: false, limit: { value: 99, currencyCode: "USD" } }),
      )
      assert.strictEqual(updated.status, 200)
      assert.deepStrictEqual(withoutEvidence(updated.json), {
        debitAuthId: created.debitAuthId,
        companyId: w.acme,
        enabled: false,
        status: "Disabled",
        limit: usdResponse(99),
      })
      const after = yield* call(`/User/${w.registrationId}/DebitAuth?companyId=${w.acme}`, bearer(w.partner))
      assert.deepStrictEqual(withoutEvidence(after.json), { enabled: false, limit: 99, status: "Disabled" })
    }),
  )

  it.effect("a misspelt field (preAuthLimit for limit) is 400 naming it, and the authorization is unchanged", () =>
    Effect.gen(function* () {
      const w = yield* world
      const set = yield* call(
        "/DebitAuth/Set",
        json("POST", w.customer, { companyId: w.acme, limit: { value: 250.5, currencyCode: "USD" } }),
      )
      const { debitAuthId } = set.json as { debitAuthId: string }
      const misspelt = yield* call(`/DebitAuth/${debitAuthId}/Update`, json("PUT", w.customer, { preAuthLimit: 750 }))
      assert.strictEqual(misspelt.status, 400)
      assert.deepStrictEqual((misspelt.json as { errors: unknown }).errors, [
        { field: "preAuthLimit", message: "is not a field of this operation" },
      ])
      const after = yield* call(`/User/${w.registrationId}/DebitAuth?companyId=${w.acme}`, bearer(w.partner))
      assert.deepStrictEqual(withoutEvidence(after.json), { enabled: true, limit: 250.5, status: "Active" })
    }),
  )

  it.effect("limit rules: zero and negative limits are 422 naming the field; an unknown currency is 400", () =>
    Effect.gen(function* () {
      const w = yield* world
      const zero = yield* call(
        "/DebitAuth/Set",
        json("POST", w.customer, { companyId: w.acme, limit: { value: 0, currencyCode: "USD" } }),
      )
      assert.strictEqual(zero.status, 422)
      assert.deepStrictEqual(fieldsOf(zero.json), ["limit"])
      const negative = yield* call(
        "/DebitAuth/Set",
        json("POST", w.customer, { companyId: w.acme, limit: { value: -1, currencyCode: "USD" } }),
      )
      assert.strictEqual(negative.status, 422)
      assert.deepStrictEqual(fieldsOf(negative.json), ["limit.value"])
      const currency = yield* call(
        "/DebitAuth/Set",
        json("POST", w.customer, { companyId: w.acme, limit: { value: 1, currencyCode: "XXX" } }),
      )
      assert.strictEqual(currency.status, 400)
      assert.deepStrictEqual(fieldsOf(currency.json), ["limit.currencyCode"])
    }),
  )

  it.effect("another partner's company is 404; a partner token on Set is 403; no token is 401", () =>
    Effect.gen(function* () {
      const w = yield* world
      const body = { companyId: w.foreign, limit: { value: 10, currencyCode: "USD" } }
      assert.strictEqual((yield* call("/DebitAuth/Set", json("POST", w.customer, body))).status, 404)
      assert.strictEqual(
        (yield* call("/DebitAuth/Set", json("POST", w.partner, { ...body, companyId: w.acme }))).status,
        403,
      )
      assert.strictEqual((yield* call("/DebitAuth/Set", json("POST", undefined, body))).status, 401)
      assert.strictEqual((yield* call("/DebitAuth/List", bearer(w.partner))).status, 403)
    }),
  )

  it.effect("another customer's authorization cannot be updated (404); an empty update is 422", () =>
    Effect.gen(function* () {
      const w = yield* world
      const other = yield* world
      const set = yield* call(
        "/DebitAuth/Set",
        json("POST", w.customer, { companyId: w.acme, limit: { value: 10, currencyCode: "USD" } }),
      )
      const { debitAuthId } = set.json as { debitAuthId: string }
      const foreign = yield* call(`/DebitAuth/${debitAuthId}/Update`, json("PUT", other.customer, { enabled: false }))
      assert.strictEqual(foreign.status, 404)
      const empty = yield* call(`/DebitAuth/${debitAuthId}/Update`, json("PUT", w.customer, {}))
      assert.strictEqual(empty.status, 422)
      assert.deepStrictEqual(fieldsOf(empty.json), ["limit", "enabled"])
    }),
  )

  it.effect(
    "GET /User/{registrationId}/DebitAuth: 404 without any, 422 on companyId with several, 404 for another partner",
    () =>
      Effect.gen(function* () {
        const w = yield* world
        const path = `/User/${w.registrationId}/DebitAuth`
        assert.strictEqual((yield* call(path, bearer(w.partner))).status, 404)
        for (const companyId of [w.acme, w.globex]) {
          yield* call(
            "/DebitAuth/Set",
            json("POST", w.customer, { companyId, limit: { value: 10, currencyCode: "USD" } }),
          )
        }
        const ambiguous = yield* call(path, bearer(w.partner))
        assert.strictEqual(ambiguous.status, 422)
        assert.deepStrictEqual(fieldsOf(ambiguous.json), ["companyId"])
        assert.strictEqual((yield* call(`${path}?companyId=${w.globex}`, bearer(w.partner))).status, 200)
        assert.strictEqual((yield* call(path, bearer(w.otherPartner))).status, 404)
        assert.strictEqual((yield* call(`${path}?companyId=${w.foreign}`, bearer(w.partner))).status, 404)
        assert.strictEqual((yield* call(path)).status, 401)
      }),
  )
})

describe("POST /cardpayment", () => {
  const payment = (overrides: Record<string, unknown> = {}) => ({
    merchantId: "a0000000-0000-4000-8000-000000000001",
    amount: { value: 12.34, currencyCode: "USD" },
    last4: "4242",
    brand: "visa",
    externalReference: freshId("terminal"),
    ...overrides,
  })

  it.effect("registers the payment: { cardPaymentId, status }; a retry answers the same id", () =>
    Effect.gen(function* () {
      const w = yield* world
      const body = payment()
      const r = yield* call("/cardpayment", json("POST", w.partner, body))
      assert.strictEqual(r.status, 200)
      const { cardPaymentId } = r.json as { cardPaymentId: string }
      assert.deepStrictEqual(r.json, { cardPaymentId, status: "Registered" })
      const retry = yield* call("/cardpayment", json("POST", w.partner, body))
      assert.deepStrictEqual(retry.json, r.json)
      const conflicting = yield* call(
        "/cardpayment",
        json("POST", w.partner, { ...body, amount: { value: 1, currencyCode: "USD" } }),
      )
      assert.strictEqual(conflicting.status, 409)
    }),
  )

  it.effect(
    "a merchantId that is one of the partner's Verified companies credits its balance at once; not Verified is 422",
    () =>
      Effect.gen(function* () {
        const w = yield* world
        const company = Ids.CompanyId.make(freshId("c0000000"))
        yield* server.run(registerVerifiedCompany(partnerId, company, "Corner Cafe"))
        const r = yield* call("/cardpayment", json("POST", w.partner, payment({ merchantId: company })))
        assert.strictEqual(r.status, 200, r.text)
        const balance = yield* call(`/Company/${company}/Balance`, bearer(w.partner))
        assert.deepInclude((balance.json as { available: object }).available, { value: 12.34 })
        const unverified = yield* call("/cardpayment", json("POST", w.partner, payment({ merchantId: w.acme })))
        assert.strictEqual(unverified.status, 422, unverified.text)
        assert.strictEqual((unverified.json as { code: string }).code, "COMPANY_NOT_VERIFIED")
      }),
  )

  it.effect("a card the processor declines (sandbox: last4 0002) is a 422 CARD_DECLINED problem; nothing is kept", () =>
    Effect.gen(function* () {
      const w = yield* world
      const body = payment({ last4: "0002" })
      const declined = yield* call("/cardpayment", json("POST", w.partner, body))
      assert.strictEqual(declined.status, 422, declined.text)
      assert.strictEqual(declined.headers.get("content-type"), "application/problem+json")
      assert.strictEqual((declined.json as { code: string }).code, "CARD_DECLINED")
      // Declined again on a retry: nothing was recorded under its reference.
      assert.strictEqual((yield* call("/cardpayment", json("POST", w.partner, body))).status, 422)
    }),
  )

  it.effect("companyId and companyReferenceId (removed in v0.4.10) are refused with 422 naming them", () =>
    Effect.gen(function* () {
      const w = yield* world
      const r = yield* call(
        "/cardpayment",
        json("POST", w.partner, payment({ companyId: w.acme, CompanyReferenceId: "acme-1" })),
      )
      assert.strictEqual(r.status, 422)
      assert.deepStrictEqual(fieldsOf(r.json), ["companyId", "CompanyReferenceId"])
    }),
  )

  it.effect("bad values are 422 with every field; a missing merchantId is 400; a customer token 403; none 401", () =>
    Effect.gen(function* () {
      const w = yield* world
      const bad = yield* call("/cardpayment", json("POST", w.partner, payment({ last4: "12", brand: "" })))
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(fieldsOf(bad.json), ["last4", "brand"])
      const { merchantId: _, ...noMerchant } = payment()
      const missing = yield* call("/cardpayment", json("POST", w.partner, noMerchant))
      assert.strictEqual(missing.status, 400)
      assert.deepStrictEqual(fieldsOf(missing.json), ["merchantId"])
      assert.strictEqual((yield* call("/cardpayment", json("POST", w.customer, payment()))).status, 403)
      assert.strictEqual((yield* call("/cardpayment", json("POST", undefined, payment()))).status, 401)
    }),
  )
})

describe("POST /Transaction/Charity/CreateAnonymous", () => {
  const donation = (companyId: string, overrides: Record<string, unknown> = {}) => ({
    // The donor: a verified customer of the partner, named by their identity verification's reference.
    verificationId: Fixtures.kycReferenceId,
    amount: { value: 100, currencyCode: "USD" },
    companyId,
    isRecurring: false,
    payerCoversFee: true,
    ...overrides,
  })

  /** A Verified charity and a verified donor with a linked account (only verified parties move money). */
  const givers = Effect.gen(function* () {
    const charity = Ids.CompanyId.make(freshId("c0000000"))
    const donor = Ids.RegistrationId.make(freshId("7e57ab1e"))
    yield* server.run(
      Effect.gen(function* () {
        yield* registerVerifiedCompany(partnerId, charity, "Helping Hands")
        yield* Fixtures.registerVerifiedCustomer(partnerId, donor, Ids.BankAccountId.make(freshId("ba000000")))
      }),
    )
    return { charity, donor, donorToken: yield* customerToken(partnerId, donor) }
  })

  it.effect("a partner or a customer donates: the fee, the charge, what the charity receives and the transfer", () =>
    Effect.gen(function* () {
      const w = yield* world
      const g = yield* givers
      for (const token of [w.partner, g.donorToken]) {
        const r = yield* call("/Transaction/Charity/CreateAnonymous", json("POST", token, donation(g.charity)))
        assert.strictEqual(r.status, 200, r.text)
        const body = r.json as { charityTransactionId: string; transferId: string }
        assert.deepStrictEqual(r.json, {
          charityTransactionId: body.charityTransactionId,
          amount: usdResponse(100),
          fee: usdResponse(1),
          payerCharged: usdResponse(101),
          charityReceives: usdResponse(100),
          transferId: body.transferId,
        })
        // The gift moves money: a Pending transfer of the charge, from the donor's account.
        const transfer = yield* call(`/Transaction/${body.transferId}`, bearer(w.partner))
        assert.deepInclude(transfer.json as object, { status: "Pending", recipientName: "Helping Hands" })
      }
    }),
  )

  it.effect("a charity whose KYB is not Verified is 422 COMPANY_NOT_VERIFIED; an unknown donor 404", () =>
    Effect.gen(function* () {
      const w = yield* world
      const g = yield* givers
      const path = "/Transaction/Charity/CreateAnonymous"
      const unverified = yield* call(path, json("POST", g.donorToken, donation(w.acme)))
      assert.strictEqual(unverified.status, 422, unverified.text)
      assert.strictEqual((unverified.json as { code: string }).code, "COMPANY_NOT_VERIFIED")
      const unknown = yield* call(
        path,
        json("POST", w.partner, donation(g.charity, { verificationId: "e0000000-0000-4000-8000-000000000009" })),
      )
      assert.strictEqual(unknown.status, 404, unknown.text)
    }),
  )

  it.effect(
    "a recurring gift reads its monthly schedule; the donor or the partner cancels it; a one-time gift is 409",
    () =>
      Effect.gen(function* () {
        const w = yield* world
        const g = yield* givers
        const path = "/Transaction/Charity/CreateAnonymous"
        const created = yield* call(path, json("POST", w.partner, donation(g.charity, { isRecurring: true })))
        const id = (created.json as { charityTransactionId: string }).charityTransactionId
        const read = yield* call(`/Charity/Gifts/${id}`, bearer(w.partner))
        assert.strictEqual(read.status, 200, read.text)
        const recurrence = (read.json as { recurrence: Record<string, unknown> }).recurrence
        assert.deepInclude(recurrence, { status: "Active", frequency: "Monthly", collections: 1 })
        assert.isString(recurrence.nextCollectionDate)
        // The donor reads it too; another partner does not find it.
        assert.strictEqual((yield* call(`/Charity/Gifts/${id}`, bearer(g.donorToken))).status, 200)
        assert.strictEqual((yield* call(`/Charity/Gifts/${id}`, bearer(w.otherPartner))).status, 404)
        const cancelled = yield* call(`/Charity/Gifts/${id}/Cancel`, json("POST", g.donorToken, {}))
        assert.strictEqual(cancelled.status, 200, cancelled.text)
        assert.deepInclude((cancelled.json as { recurrence: object }).recurrence, {
          status: "Stopped",
          stopReason: "CancelledByDonor",
        })
        const again = yield* call(`/Charity/Gifts/${id}/Cancel`, json("POST", w.partner, {}))
        assert.strictEqual(again.status, 200, again.text)
        const once = yield* call(path, json("POST", w.partner, donation(g.charity)))
        const onceId = (once.json as { charityTransactionId: string }).charityTransactionId
        const refused = yield* call(`/Charity/Gifts/${onceId}/Cancel`, json("POST", w.partner, {}))
        assert.strictEqual(refused.status, 409, refused.text)
      }),
  )

  it.effect(
    "another partner's charity is 404; a zero amount is 422; a malformed verificationId is 400; no token 401",
    () =>
      Effect.gen(function* () {
        const w = yield* world
        const g = yield* givers
        const path = "/Transaction/Charity/CreateAnonymous"
        assert.strictEqual((yield* call(path, json("POST", w.partner, donation(w.foreign)))).status, 404)
        const zero = yield* call(
          path,
          json("POST", w.partner, donation(g.charity, { amount: { value: 0, currencyCode: "USD" } })),
        )
        assert.strictEqual(zero.status, 422)
        assert.deepStrictEqual(fieldsOf(zero.json), ["amount"])
        const malformed = yield* call(path, json("POST", w.partner, donation(g.charity, { verificationId: "x" })))
        assert.strictEqual(malformed.status, 400)
        assert.deepStrictEqual(fieldsOf(malformed.json), ["verificationId"])
        assert.strictEqual((yield* call(path, json("POST", undefined, donation(g.charity)))).status, 401)
      }),
  )
})
