/**
 * Notifications to customers in the sandbox, through the real service process
 * (`node src/main.ts`, embedded database): a payment request due in 3 days
 * gets its SMS reminder (and push, as the preferences say) at once; advancing
 * the sandbox clock to the due date brings the due-date reminder, pushed only
 * to the token that has not expired (the expired one is skipped and pruned);
 * a Paid request brings a status message as the paymentStatus preferences say.
 * Everything read back at GET /Sandbox/Messages, which needs a partner token
 * and validates its query.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { type Json, on } from "./Requests.ts"
import { companyBody, eventually, killAll, type RunningService, startService } from "./support.ts"

const clientId = "notifications-client"
const clientSecret = "notifications-secret-0123456789"
const dataDir = mkdtempSync(join(tmpdir(), "partnerpay-notifications-"))
let service: RunningService

beforeAll(async () => {
  service = await startService({
    PORT: "0",
    PARTNERPAY_DATA_DIR: dataDir,
    PARTNERPAY_KYB_DELAY_MS: "200",
    PARTNERPAY_SETTLEMENT_DELAY_MS: "200",
    PARTNERPAY_SANDBOX_CLIENT_ID: clientId,
    PARTNERPAY_SANDBOX_CLIENT_SECRET: clientSecret,
  })
}, 60_000)

afterAll(() => {
  killAll()
  rmSync(dataDir, { recursive: true, force: true })
})

const { call, ok, verifiedCompany } = on(() => service.url)

const partnerToken = async (): Promise<string> =>
  (await ok("POST", "/auth/token", undefined, { ClientId: clientId, ClientSecret: clientSecret })).AccessToken

const login = async (token: string, phoneNumber: string) => {
  await ok("POST", "/Login/SendOtp", token, { phoneNumber })
  const answer = await ok("PUT", "/Login/CheckOtp", token, { phoneNumber, code: "123456" })
  return { customerToken: answer.accessToken as string, registrationId: answer.registrationId as string }
}

const clock = async (token: string): Promise<Json> => ok("GET", "/Sandbox/Clock", token)

const plusDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)

/** Polls the customer's messages of one request until `accept` holds. */
const messagesUntil = async (
  token: () => string,
  registrationId: string,
  paymentRequestId: string,
  accept: (messages: Array<Json>) => boolean,
): Promise<Array<Json>> => {
  let last: Array<Json> | undefined
  let pending = false
  return eventually(() => {
    if (!pending) {
      pending = true
      void call("GET", `/Sandbox/Messages?registrationId=${registrationId}&limit=100`, token()).then((answer) => {
        last = (answer.body?.data ?? []).filter((m: Json) => m.paymentRequestId === paymentRequestId)
        pending = false
      })
    }
    return last !== undefined && accept(last) ? last : undefined
  }, 15_000)
}

const summary = (messages: Array<Json>) =>
  messages.map((m) => `${m.channel}:${m.template}:${m.channel === "sms" ? m.to : m.to.slice(0, 12)}`).sort()

describe("notifications in the sandbox", () => {
  it("reminders 3 days before and on the due date, push only to unexpired tokens, a Paid message as preferred", {
    timeout: 90_000,
  }, async () => {
    let token = await partnerToken()
    const companyId = await verifiedCompany(token, companyBody({ companyReferenceId: "note-1" }))
    await eventually(async () => undefined, 1).catch(() => undefined)
    const phoneNumber = "+14155550177"
    let customer = await login(token, phoneNumber)
    const payer = customer.registrationId
    const now = (await clock(token)).now as string
    const inDays = (days: number) => ({ value: new Date(Date.parse(now) + days * 86_400_000).toISOString() })
    await ok("POST", "/Customer/NotificationToken", customer.customerToken, {
      token: "device-short-lived",
      expireAt: inDays(2),
    })
    await ok("POST", "/Customer/NotificationToken", customer.customerToken, {
      token: "device-long-lived",
      expireAt: inDays(30),
    })
    // Reminders by SMS and push (the defaults); e-mail needs a verified address, which this customer has not.
    const dueDate = plusDays(now.slice(0, 10), 3)
    const request = await ok("POST", "/Payment/Create", token, {
      companyId,
      payerRegistrationId: payer,
      amount: { value: 19.99, currencyCode: "USD" },
      description: "Invoice 2001",
      dueDate,
    })
    const soon = await messagesUntil(
      () => token,
      payer,
      request.paymentRequestId,
      (m) => m.length >= 3,
    )
    assert.deepStrictEqual(summary(soon), [
      "push:PaymentDueSoon:device-long-",
      "push:PaymentDueSoon:device-short",
      `sms:PaymentDueSoon:${phoneNumber}`,
    ])
    for (const message of soon) {
      assert.match(message.id, /^[0-9a-f-]{36}$/)
      assert.strictEqual(message.sentAt.slice(0, 10), now.slice(0, 10))
    }

    // Three days later: the due-date reminder; the short-lived token has expired and is skipped.
    await ok("POST", "/Sandbox/Clock/Advance", token, { days: 3 })
    token = await partnerToken()
    const all = await messagesUntil(
      () => token,
      payer,
      request.paymentRequestId,
      (m) => m.length >= 5,
    )
    await new Promise((done) => setTimeout(done, 1500))
    const settled = await messagesUntil(
      () => token,
      payer,
      request.paymentRequestId,
      (m) => m.length >= 5,
    )
    assert.deepStrictEqual(settled.length, all.length, "exactly once: no reminder is sent twice")
    assert.deepStrictEqual(summary(settled.filter((m) => m.template === "PaymentDueToday")), [
      "push:PaymentDueToday:device-long-",
      `sms:PaymentDueToday:${phoneNumber}`,
    ])
    // Newest first.
    assert.strictEqual(settled[0].template, "PaymentDueToday")

    // The customer logs in again (the code's SMS is listed too), prefers status messages by e-mail only,
    // verifies its identity (the sandbox address), links an account and pays: one e-mail, no push.
    customer = await login(token, phoneNumber)
    assert.strictEqual(customer.registrationId, payer)
    const codes = await ok("GET", `/Sandbox/Messages?registrationId=${payer}&limit=1`, token)
    assert.deepStrictEqual(
      [codes.data[0].channel, codes.data[0].template, codes.data[0].to],
      ["sms", "LoginCode", phoneNumber],
    )
    assert.strictEqual(codes.hasMore, true)
    assert.notProperty(codes.data[0], "paymentRequestId")
    await ok("PUT", "/Customer/Notifications", customer.customerToken, { paymentStatusPush: false })
    const session = await ok("POST", "/Verification/StartKyc", customer.customerToken, { deviceId: "my-phone" })
    await ok("GET", "/Verification/CheckVerification", customer.customerToken)
    await ok("PUT", "/Account/Link", customer.customerToken, {
      tokenId: session.tokenId,
      publicToken: "public-sandbox-ok",
      linkAccountsMetadata: { linkSessionId: "link-1", institutionId: "ins_1", accountIds: ["acc-checking"] },
    })
    const accounts = await ok("GET", "/Account/List", customer.customerToken)
    await ok("POST", `/Transaction/PaymentRequest/${request.paymentRequestId}/Accept`, customer.customerToken, {
      bankAccountId: accounts.accounts[0].accountId,
      acceptDebitAuth: false,
      transferDescription: "Invoice 2001",
    })
    const paid = await messagesUntil(
      () => token,
      payer,
      request.paymentRequestId,
      (m) => m.some((message) => message.template === "PaymentPaid"),
    )
    assert.deepStrictEqual(
      paid.filter((m) => m.template === "PaymentPaid").map((m) => [m.channel, m.to]),
      [["email", "sandbox.customer@example.com"]],
    )
  })

  it("a request that is no longer Pending gets no reminder", { timeout: 30_000 }, async () => {
    let token = await partnerToken()
    const companyId = await verifiedCompany(token, companyBody({ companyReferenceId: "note-2" }))
    const { registrationId } = await login(token, "+14155550178")
    const today = ((await clock(token)).now as string).slice(0, 10)
    const cancelled = await ok("POST", "/Payment/Create", token, {
      companyId,
      payerRegistrationId: registrationId,
      amount: { value: 5, currencyCode: "USD" },
      description: "Cancelled before its reminder",
      dueDate: plusDays(today, 10),
    })
    await ok("PUT", `/Payment/${cancelled.paymentRequestId}/Cancel`, token)
    // A week later the cancelled request would be 3 days from its due date.
    await ok("POST", "/Sandbox/Clock/Advance", token, { days: 7 })
    token = await partnerToken()
    // A request due in 3 days for the same customer: once its reminder is there, the worker went past both.
    const due = await ok("POST", "/Payment/Create", token, {
      companyId,
      payerRegistrationId: registrationId,
      amount: { value: 6, currencyCode: "USD" },
      description: "Reminded",
      dueDate: plusDays(today, 10),
    })
    await messagesUntil(
      () => token,
      registrationId,
      due.paymentRequestId,
      (m) => m.length >= 1,
    )
    const page = await ok("GET", `/Sandbox/Messages?registrationId=${registrationId}`, token)
    assert.isFalse(page.data.some((m: Json) => m.paymentRequestId === cancelled.paymentRequestId))
  })

  it("GET /Sandbox/Messages needs a partner token, a valid query, and the partner's own customer", async () => {
    const token = await partnerToken()
    const { customerToken, registrationId } = await login(token, "+14155550179")
    const path = `/Sandbox/Messages?registrationId=${registrationId}`
    assert.strictEqual((await call("GET", path, undefined)).status, 401)
    assert.strictEqual((await call("GET", path, customerToken)).status, 403)
    const unknown = await call("GET", "/Sandbox/Messages?registrationId=9d2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e01", token)
    assert.strictEqual(unknown.status, 404)
    const invalid = await call("GET", "/Sandbox/Messages?limit=0&startingAfter=nope&color=red", token)
    assert.strictEqual(invalid.status, 422)
    assert.deepStrictEqual(invalid.body.errors.map((e: Json) => e.field).sort(), [
      "color",
      "limit",
      "registrationId",
      "startingAfter",
    ])
    assert.deepStrictEqual(await ok("GET", `${path}&limit=100`, token), { data: [], hasMore: false })
  })
})
