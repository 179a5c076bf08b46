/**
 * Customer login by one-time code, bank accounts and identity verification
 * over HTTP (in-process server, sandbox providers: the code is always 123456).
 */
import { assert, describe, it } from "@effect/vitest"
import { Ids } from "@partnerpay/domain"
import { Hmac } from "@partnerpay/secrets"
import { Effect, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { afterAll } from "vitest"
import { Tokens } from "../src/cross-cutting/Tokens.ts"
import { testChatSecret } from "../src/customers/CustomerIdentityPorts.ts"
import {
  bearer,
  type Handler,
  makeServer,
  partnerToken,
  postJson,
  send,
  TokensTest,
  withTestClock,
} from "./fixtures.ts"

const { handler, dispose } = makeServer()
// the in-process handler provides every port itself
const server = handler as Handler
afterAll(async () => {
  await dispose()
})

const json = (method: string, body: unknown, token?: string): RequestInit => ({
  method,
  headers: {
    "content-type": "application/json",
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
  },
  body: JSON.stringify(body),
})
const withToken = (init: RequestInit, token: string): RequestInit => ({
  ...init,
  headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` },
})

let phoneCounter = 0
const freshPhone = () => `+1415555${(1000 + ++phoneCounter).toString()}`

/** Logs a new end user in through the partner; answers the customer token and registration id. */
const login = (phoneNumber = freshPhone()) =>
  Effect.gen(function* () {
    const partner = yield* partnerToken(server)
    const sent = yield* send(server, "/Login/SendOtp", withToken(postJson({ phoneNumber }), partner))
    assert.strictEqual(sent.status, 200, sent.text)
    const checked = yield* send(server, "/Login/CheckOtp", json("PUT", { phoneNumber, code: "123456" }, partner))
    assert.strictEqual(checked.status, 200, checked.text)
    const body = checked.json as { accessToken: string; registrationId: string }
    return { partner, customer: body.accessToken, registrationId: body.registrationId, phoneNumber }
  })

const codeOf = (r: { json: unknown }) => (r.json as { code?: string }).code

const linkBody = (tokenId: string, publicToken = "public-sandbox-ok") => ({
  tokenId,
  publicToken,
  linkAccountsMetadata: {
    linkSessionId: "link-session-1",
    institutionId: "ins_109508",
    accountIds: ["acc-1", "acc-2"],
  },
})

const startKyc = (customer: string, deviceId = "device-1") =>
  Effect.map(send(server, "/Verification/StartKyc", withToken(postJson({ deviceId }), customer)), (r) => {
    assert.strictEqual(r.status, 200, r.text)
    return r.json as { tokenId: string; linkToken: string; expiration: string }
  })

describe("login with a one-time code", () => {
  it.effect("the full flow gives a customer token that works on customer endpoints and gets 403 on partner ones", () =>
    Effect.gen(function* () {
      const partner = yield* partnerToken(server)
      const phoneNumber = freshPhone()
      const sent = yield* send(server, "/Login/SendOtp", withToken(postJson({ phoneNumber }), partner))
      assert.strictEqual(sent.status, 200)
      assert.deepStrictEqual(Object.keys(sent.json as object), ["expiresAt"])
      const checked = yield* send(server, "/Login/CheckOtp", json("PUT", { phoneNumber, code: "123456" }, partner))
      assert.strictEqual(checked.status, 200, checked.text)
      const body = checked.json as { accessToken: string; registrationId: string }
      assert.deepStrictEqual(Object.keys(body).sort(), ["accessToken", "registrationId"])
      const accounts = yield* send(server, "/Account/List", bearer(body.accessToken))
      assert.strictEqual(accounts.status, 200)
      assert.deepStrictEqual(accounts.json, { accounts: [] })
      const asPartner = yield* send(server, "/Login/SendOtp", withToken(postJson({ phoneNumber }), body.accessToken))
      assert.strictEqual(asPartner.status, 403)
      const partnerOnCustomer = yield* send(server, "/Account/List", bearer(partner))
      assert.strictEqual(partnerOnCustomer.status, 403)
    }),
  )

  it.effect(
    "logging in again gives the same registration id; the same phone at another partner is another customer",
    () =>
      Effect.gen(function* () {
        const first = yield* login()
        const again = yield* login(first.phoneNumber)
        assert.strictEqual(again.registrationId, first.registrationId)
        const other = yield* send(
          server,
          "/auth/token",
          postJson({ ClientId: "partner-client-2", ClientSecret: "another secret" }),
        )
        const otherPartner = (other.json as { AccessToken: string }).AccessToken
        yield* send(server, "/Login/SendOtp", withToken(postJson({ phoneNumber: first.phoneNumber }), otherPartner))
        const there = yield* send(
          server,
          "/Login/CheckOtp",
          json("PUT", { phoneNumber: first.phoneNumber, code: "123456" }, otherPartner),
        )
        assert.strictEqual(there.status, 200)
        assert.notStrictEqual((there.json as { registrationId: string }).registrationId, first.registrationId)
      }),
  )

  it.effect("without a token: 401", () =>
    Effect.gen(function* () {
      const sent = yield* send(server, "/Login/SendOtp", postJson({ phoneNumber: freshPhone() }))
      assert.strictEqual(sent.status, 401)
      const checked = yield* send(server, "/Login/CheckOtp", json("PUT", { phoneNumber: freshPhone(), code: "123456" }))
      assert.strictEqual(checked.status, 401)
    }),
  )

  it.effect("a malformed phone number and code: 422 naming both fields; a missing field: 400", () =>
    Effect.gen(function* () {
      const partner = yield* partnerToken(server)
      const bad = yield* send(server, "/Login/CheckOtp", json("PUT", { phoneNumber: "555", code: "12" }, partner))
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(
        (bad.json as { errors: Array<{ field: string }> }).errors.map((e) => e.field),
        ["phoneNumber", "code"],
      )
      const missing = yield* send(server, "/Login/SendOtp", withToken(postJson({}), partner))
      assert.strictEqual(missing.status, 400)
    }),
  )

  it.effect(
    "a wrong code is 422 OTP_INVALID; the fifth locks the phone: 429 with Retry-After, even for the right code",
    () =>
      Effect.gen(function* () {
        const partner = yield* partnerToken(server)
        const phoneNumber = freshPhone()
        yield* send(server, "/Login/SendOtp", withToken(postJson({ phoneNumber }), partner))
        for (let i = 0; i < 4; i++) {
          const wrong = yield* send(server, "/Login/CheckOtp", json("PUT", { phoneNumber, code: "000000" }, partner))
          assert.strictEqual(wrong.status, 422)
          assert.strictEqual(codeOf(wrong), "OTP_INVALID")
        }
        const fifth = yield* send(server, "/Login/CheckOtp", json("PUT", { phoneNumber, code: "000000" }, partner))
        assert.strictEqual(fifth.status, 429)
        assert.strictEqual(codeOf(fifth), "LOGIN_LOCKED")
        assert.strictEqual(fifth.headers.get("retry-after"), "900")
        const right = yield* send(server, "/Login/CheckOtp", json("PUT", { phoneNumber, code: "123456" }, partner))
        assert.strictEqual(right.status, 429)
        const resend = yield* send(server, "/Login/SendOtp", withToken(postJson({ phoneNumber }), partner))
        assert.strictEqual(resend.status, 429)
      }),
  )

  it.effect("locks escalate: after the 15-minute lock, five more wrong codes lock for 1 hour (TestClock)", () =>
    Effect.gen(function* () {
      const clock = yield* withTestClock
      const partner = yield* partnerToken(server, clock)
      const phoneNumber = freshPhone()
      const fiveWrong = Effect.gen(function* () {
        const sent = yield* send(server, "/Login/SendOtp", withToken(postJson({ phoneNumber }), partner), clock)
        assert.strictEqual(sent.status, 200, sent.text)
        let last = sent
        for (let i = 0; i < 5; i++) {
          last = yield* send(server, "/Login/CheckOtp", json("PUT", { phoneNumber, code: "000000" }, partner), clock)
        }
        return last
      })
      const first = yield* fiveWrong
      assert.strictEqual(first.status, 429)
      assert.strictEqual(first.headers.get("retry-after"), "900")
      yield* TestClock.adjust("16 minutes")
      const second = yield* fiveWrong
      assert.strictEqual(second.status, 429)
      assert.strictEqual(codeOf(second), "LOGIN_LOCKED")
      assert.strictEqual(second.headers.get("retry-after"), "3600")
      assert.match((second.json as { detail: string }).detail, /locked until 1970-01-01T01:16:00/)
      yield* TestClock.adjust("30 minutes")
      const stillLocked = yield* send(server, "/Login/SendOtp", withToken(postJson({ phoneNumber }), partner), clock)
      assert.strictEqual(stillLocked.status, 429)
      assert.strictEqual(stillLocked.headers.get("retry-after"), "1800")
    }),
  )

  it.effect("a code is single use", () =>
    Effect.gen(function* () {
      const { partner, phoneNumber } = yield* login()
      const again = yield* send(server, "/Login/CheckOtp", json("PUT", { phoneNumber, code: "123456" }, partner))
      assert.strictEqual(again.status, 422)
      assert.strictEqual(codeOf(again), "OTP_NOT_ISSUED")
    }),
  )

  it.live("GET /Auth/ExchangeToken turns a customer token into a customer token", () =>
    Effect.gen(function* () {
      const { customer } = yield* login()
      const exchanged = yield* send(server, "/Auth/ExchangeToken", bearer(customer))
      assert.strictEqual(exchanged.status, 200)
      const fresh = (exchanged.json as { accessToken: string }).accessToken
      const verified = yield* Effect.flatMap(
        Tokens.use((tokens) => Effect.succeed(tokens)),
        (tokens) => tokens.verify(fresh),
      ).pipe(Effect.provide(TokensTest))
      assert.strictEqual(verified._tag, "Customer")
      assert.strictEqual((yield* send(server, "/Account/List", bearer(fresh))).status, 200)
      assert.strictEqual(
        (yield* send(server, "/Login/SendOtp", withToken(postJson({ phoneNumber: freshPhone() }), fresh))).status,
        403,
      )
    }),
  )
})

describe("identity verification", () => {
  it.effect("StartKyc, CheckVerification (Verified), PersonalData with the SSN's last four digits only", () =>
    Effect.gen(function* () {
      const { customer, registrationId, phoneNumber } = yield* login()
      const before = yield* send(server, "/Verification/CheckVerification", bearer(customer))
      assert.deepStrictEqual(before.json, { status: "NotStarted", referenceId: null, redirectUrl: "" })
      const noData = yield* send(server, "/Verification/PersonalData", bearer(customer))
      assert.strictEqual(noData.status, 404)
      const session = yield* startKyc(customer)
      assert.deepStrictEqual(Object.keys(session).sort(), ["expiration", "linkToken", "tokenId"])
      const checked = yield* send(server, "/Verification/CheckVerification", bearer(customer))
      assert.deepStrictEqual(checked.json, { status: "Verified", referenceId: session.tokenId, redirectUrl: "" })
      const data = yield* send(server, "/Verification/PersonalData", bearer(customer))
      assert.strictEqual(data.status, 200)
      assert.deepStrictEqual(data.json, {
        profileName: "",
        firstName: "Sandbox",
        lastName: "Customer",
        birthDate: "1990-01-01T00:00:00.000Z",
        ssnLastFourDigits: "6789",
        emailAddress: "sandbox.customer@example.com",
        phoneNumber,
      })
      const signature = yield* send(server, "/Verification/ChatSignature", bearer(customer))
      assert.deepStrictEqual(signature.json, {
        userId: registrationId,
        signature: Hmac.sha256Hex(Redacted.value(testChatSecret), registrationId),
      })
    }),
  )

  it.effect("a device id containing 'reject' ends Rejected", () =>
    Effect.gen(function* () {
      const { customer } = yield* login()
      yield* startKyc(customer, "reject-this-device")
      const checked = yield* send(server, "/Verification/CheckVerification", bearer(customer))
      assert.strictEqual((checked.json as { status: string }).status, "Rejected")
    }),
  )

  it.effect("an empty device id: 422; a partner token: 403; no token: 401", () =>
    Effect.gen(function* () {
      const { customer, partner } = yield* login()
      const empty = yield* send(server, "/Verification/StartKyc", withToken(postJson({ deviceId: " " }), customer))
      assert.strictEqual(empty.status, 422)
      assert.strictEqual((empty.json as { errors: Array<{ field: string }> }).errors[0]?.field, "deviceId")
      assert.strictEqual((yield* send(server, "/Verification/CheckVerification", bearer(partner))).status, 403)
      assert.strictEqual((yield* send(server, "/Verification/PersonalData")).status, 401)
    }),
  )

  it.live("a customer token for a customer that never registered: 404", () =>
    Effect.gen(function* () {
      const token = yield* Effect.flatMap(
        Tokens.use((tokens) => Effect.succeed(tokens)),
        (tokens) =>
          tokens.issue({
            _tag: "Customer",
            partnerId: Ids.PartnerId.make("0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b"),
            registrationId: Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-0000000fffff"),
          }),
      ).pipe(Effect.provide(TokensTest))
      assert.strictEqual((yield* send(server, "/Account/List", bearer(token.accessToken))).status, 404)
      assert.strictEqual(
        (yield* send(server, "/Verification/CheckVerification", bearer(token.accessToken))).status,
        404,
      )
    }),
  )
})

describe("bank accounts", () => {
  it.effect("a link failure is inside a 200 body (isOk false, linkError)", () =>
    Effect.gen(function* () {
      const { customer } = yield* login()
      const { tokenId } = yield* startKyc(customer)
      const failed = yield* send(server, "/Account/Link", json("PUT", linkBody(tokenId, "please-fail"), customer))
      assert.strictEqual(failed.status, 200)
      assert.deepStrictEqual(failed.json, {
        refreshToken: "",
        isOk: false,
        errors: ["INVALID_CREDENTIALS: the provided credentials were not correct"],
        screenerErrors: [],
        linkError: {
          errorType: "ITEM_ERROR",
          errorCode: "INVALID_CREDENTIALS",
          errorMessage: "the provided credentials were not correct",
          displayMessage: "The username or password you entered is incorrect. Please try again.",
        },
      })
      const unknownSession = yield* send(
        server,
        "/Account/Link",
        json("PUT", linkBody("9e57ab1e-0000-4000-8000-000000000001"), customer),
      )
      assert.strictEqual(unknownSession.status, 200)
      assert.isFalse((unknownSession.json as { isOk: boolean }).isOk)
    }),
  )

  it.effect("links, lists (masked), deletes; another customer's account is 404", () =>
    Effect.gen(function* () {
      const { customer } = yield* login()
      const { tokenId } = yield* startKyc(customer)
      const linked = yield* send(server, "/Account/Link", json("PUT", linkBody(tokenId), customer))
      assert.strictEqual(linked.status, 200)
      const result = linked.json as { refreshToken: string; isOk: boolean; linkError: unknown; errors: unknown }
      assert.isTrue(result.isOk)
      assert.isNull(result.linkError)
      assert.deepStrictEqual(result.errors, [])
      assert.isAbove(result.refreshToken.length, 20)
      const list = yield* send(server, "/Account/List", bearer(customer))
      const accounts = (list.json as { accounts: Array<Record<string, string>> }).accounts
      assert.strictEqual(accounts.length, 2)
      assert.deepStrictEqual(Object.keys(accounts[0]!).sort(), [
        "accountId",
        "institutionId",
        "mask",
        "name",
        "status",
        "type",
      ])
      for (const a of accounts) assert.match(a.mask!, /^\d{4}$/)
      const accountId = accounts[0]!.accountId!

      const intruder = yield* login()
      const stolen = yield* send(server, "/Account/Delete", json("DELETE", { accountId }, intruder.customer))
      assert.strictEqual(stolen.status, 404)

      const deleted = yield* send(server, "/Account/Delete", json("DELETE", { accountId }, customer))
      assert.strictEqual(deleted.status, 200)
      assert.strictEqual(deleted.text, "")
      const again = yield* send(server, "/Account/Delete", json("DELETE", { accountId }, customer))
      assert.strictEqual(again.status, 200)
      const unknown = yield* send(
        server,
        "/Account/Delete",
        json("DELETE", { accountId: "9e57ab1e-0000-4000-8000-000000000002" }, customer),
      )
      assert.strictEqual(unknown.status, 404)
      const malformed = yield* send(server, "/Account/Delete", json("DELETE", { accountId: "nope" }, customer))
      assert.strictEqual(malformed.status, 400)
      const after = yield* send(server, "/Account/List", bearer(customer))
      assert.strictEqual((after.json as { accounts: unknown[] }).accounts.length, 1)
    }),
  )

  it.effect("empty account list in a link request: 422; partner token: 403", () =>
    Effect.gen(function* () {
      const { customer, partner } = yield* login()
      const { tokenId } = yield* startKyc(customer)
      const body = {
        ...linkBody(tokenId),
        linkAccountsMetadata: { linkSessionId: "s", institutionId: "i", accountIds: [] },
      }
      const empty = yield* send(server, "/Account/Link", json("PUT", body, customer))
      assert.strictEqual(empty.status, 422)
      assert.strictEqual(
        (empty.json as { errors: Array<{ field: string }> }).errors[0]?.field,
        "linkAccountsMetadata.accountIds",
      )
      assert.strictEqual((yield* send(server, "/Account/Link", json("PUT", linkBody(tokenId), partner))).status, 403)
    }),
  )
})
