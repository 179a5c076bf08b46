/**
 * The README's "Try it" walkthrough, executed: the real service process
 * (`node src/main.ts`, embedded database, sandbox partner from the
 * environment) driven over HTTP with fetch, step by step as the README shows
 * it, asserting every status, up to the payout of the company's balance with
 * its items. Then the sandbox magic values, the sandbox clock's own rules, the
 * consent decline path and a cancel after acceptance. The payouts (a payout
 * Paid with its items, one failed by the 0013 account and its money paid out
 * again; then a terminal card payment and a recurring charity gift with its
 * fee paid out, the partner's ACH platform fee netted by the payouts, the
 * report's totals reconciling with the payouts, and the
 * gift collected again a month later, then cancelled) run on PGlite and on
 * PostgreSQL.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { sandboxPartnerId } from "../src/sandbox/Partners.ts"
import { request as adminRequest, type Json, on } from "./Requests.ts"
import { companyBody, freshDatabase, killAll, postgresAvailable, type RunningService, startService } from "./support.ts"

/** The sandbox KYB verdict comes this long after registration. */
const kybDelayMs = 1500

const clientId = "walkthrough-client"
const clientSecret = "walkthrough-secret-0123456789"
const adminToken = "walkthrough-operator-token-0123456789abcdef"
const dataDir = mkdtempSync(join(tmpdir(), "partnerpay-walkthrough-"))
let service: RunningService

beforeAll(async () => {
  service = await startService({
    PORT: "0",
    PARTNERPAY_DATA_DIR: dataDir,
    PARTNERPAY_KYB_DELAY_MS: String(kybDelayMs),
    PARTNERPAY_SETTLEMENT_DELAY_MS: "300",
    PARTNERPAY_SANDBOX_CLIENT_ID: clientId,
    PARTNERPAY_SANDBOX_CLIENT_SECRET: clientSecret,
    PARTNERPAY_ADMIN_TOKEN: adminToken,
  })
}, 60_000)

afterAll(() => {
  killAll()
  rmSync(dataDir, { recursive: true, force: true })
})

const { call, ok, until } = on(() => service.url)

const partnerToken = async (): Promise<string> =>
  (await ok("POST", "/auth/token", undefined, { ClientId: clientId, ClientSecret: clientSecret })).AccessToken

const login = async (token: string, phoneNumber: string) => {
  await ok("POST", "/Login/SendOtp", token, { phoneNumber })
  const answer = await ok("PUT", "/Login/CheckOtp", token, { phoneNumber, code: "123456" })
  return { customerToken: answer.accessToken as string, registrationId: answer.registrationId as string }
}

/** Identity verification (the sandbox verifies at the first check), then a bank link in its session. */
const linkAccount = async (customerToken: string, deviceId = "my-phone", publicToken = "public-sandbox-ok") => {
  const session = await ok("POST", "/Verification/StartKyc", customerToken, { deviceId })
  await ok("GET", "/Verification/CheckVerification", customerToken)
  return ok("PUT", "/Account/Link", customerToken, {
    tokenId: session.tokenId,
    publicToken,
    linkAccountsMetadata: { linkSessionId: "link-1", institutionId: "ins_1", accountIds: ["acc-checking"] },
  })
}

/** A company, once the sandbox KYB verified it: only a Verified company collects. */
const verifiedCompany = async (token: string, companyReferenceId: string): Promise<string> => {
  const { companyId } = await ok("POST", "/Company/Create", token, companyBody({ companyReferenceId }))
  await until(`/company/status?companyId=${companyId}`, token, (body) => body.Status === "Verified")
  return companyId
}

const today = async (token: string): Promise<string> => (await ok("GET", "/Sandbox/Clock", token)).now.slice(0, 10)

describe("the README walkthrough against the real service", () => {
  it("company, customer, payment request, payment plan, sandbox clock", { timeout: 60_000 }, async () => {
    // 1. A partner token.
    let token = await partnerToken()

    // 2. A company: Unverified, then Verified by the sandbox KYB.
    const created = Date.now()
    const company = await ok("POST", "/Company/Create", token, companyBody({ companyReferenceId: "walk-001" }))
    const companyId = company.companyId as string
    const first = await ok("GET", `/company/status?companyId=${companyId}`, token)
    // Read within the KYB delay, the company is still Unverified (on a machine so loaded that the read
    // came later, the sandbox may already have verified it: that is the next step's check).
    if (Date.now() - created < kybDelayMs)
      assert.deepStrictEqual(first, { CompanyId: companyId, Status: "Unverified", Metadata: {} })
    else assert.include(["Unverified", "Verified"], first.Status)
    await until(`/company/status?companyId=${companyId}`, token, (body) => body.Status === "Verified")

    // 3. A customer logs in with the sandbox code 123456.
    const { customerToken, registrationId: payer } = await login(token, "+14155550123")
    assert.match(payer, /^[0-9a-f-]{36}$/)

    // 4. A bank account is linked.
    const link = await linkAccount(customerToken)
    assert.strictEqual(link.isOk, true)
    assert.strictEqual(link.linkError, null)
    const accounts = await ok("GET", "/Account/List", customerToken)
    assert.strictEqual(accounts.accounts.length, 1)
    const accountId = accounts.accounts[0].accountId as string

    // 5. A payment request, accepted by the customer, Paid after the sandbox settlement.
    const dueDate = await today(token)
    const request = await ok("POST", "/Payment/Create", token, {
      companyId,
      payerRegistrationId: payer,
      amount: { value: 42.5, currencyCode: "USD" },
      description: "Invoice 1001",
      dueDate,
    })
    assert.strictEqual(request.status, "Pending")
    const accepted = await ok("POST", `/Transaction/PaymentRequest/${request.paymentRequestId}/Accept`, customerToken, {
      bankAccountId: accountId,
      acceptDebitAuth: false,
      transferDescription: "Invoice 1001",
    })
    assert.strictEqual(accepted.status, "Accepted")
    const paid = await until(`/Payment/${request.paymentRequestId}`, token, (body) => body.status === "Paid")
    assert.deepStrictEqual(
      paid.statusHistory.map((entry: Json) => entry.status),
      ["Pending", "Accepted", "Paid"],
    )
    const transfer = await ok("GET", `/Transaction/${paid.transferId}`, token)
    assert.strictEqual(transfer.status, "Settled")

    // Cancelling after the payer accepted is a conflict.
    const cancel = await call("PUT", `/Payment/${request.paymentRequestId}/Cancel`, token)
    assert.strictEqual(cancel.status, 409)

    // 6. A weekly plan starting today: consent accepted, plan activated, today's instalment collected.
    const plan = await ok("POST", "/PaymentPlan/Create", token, {
      companyId,
      payerRegistrationId: payer,
      amount: { value: 25, currencyCode: "USD" },
      frequency: "Weekly",
      recurrenceInterval: 1,
      startDate: dueDate,
      numberOfPayments: 4,
    })
    assert.strictEqual(plan.status, "Draft")
    const consent = await ok("PUT", `/Consent/${plan.consentId}/Accept`, customerToken, { bankAccountId: accountId })
    assert.strictEqual(consent.status, "Accepted")
    const active = await ok("PUT", `/PaymentPlan/${plan.paymentPlanId}/Activate`, token)
    assert.strictEqual(active.status, "Active")
    assert.strictEqual(active.nextDueDate, dueDate)
    const once = await until(`/PaymentPlan/${plan.paymentPlanId}`, token, (body) => body.collectedCount === 1)
    assert.strictEqual(once.instalments[0].dueDate, dueDate)
    const nextDueDate = once.nextDueDate as string
    assert.isTrue(nextDueDate > dueDate)
    // The instalment is a transfer from the payer's account, read by the partner and the payer; it settles.
    const transferId = once.instalments[0].transferId as string
    const settled = await until(`/Transaction/${transferId}`, token, (body) => body.status === "Settled")
    assert.strictEqual(settled.amount.value, 25)
    assert.strictEqual((await ok("GET", `/Transaction/${transferId}`, customerToken)).status, "Settled")
    const settledOnce = await until(`/PaymentPlan/${plan.paymentPlanId}`, token, (body) => body.settledCount === 1)
    assert.strictEqual(settledOnce.instalments[0].status, "Settled")

    // 7. The sandbox clock moves a week ahead: the next instalment is collected.
    const before = await ok("GET", "/Sandbox/Clock", token)
    const advanced = await ok("POST", "/Sandbox/Clock/Advance", token, { days: 7 })
    assert.strictEqual(advanced.offsetSeconds - before.offsetSeconds, 7 * 86_400)
    assert.strictEqual(advanced.now.slice(0, 10), nextDueDate)
    // Tokens follow the sandbox clock: the old one (1 hour) has expired.
    assert.strictEqual((await call("GET", `/PaymentPlan/${plan.paymentPlanId}`, token)).status, 401)
    token = await partnerToken()
    const twice = await until(`/PaymentPlan/${plan.paymentPlanId}`, token, (body) => body.collectedCount === 2)
    assert.strictEqual(twice.status, "Active")
    assert.deepStrictEqual(
      twice.instalments.map((instalment: Json) => instalment.dueDate),
      [dueDate, nextDueDate],
    )
    assert.strictEqual(twice.instalments[1].collectedAt.slice(0, 10), nextDueDate)
    await until(`/PaymentPlan/${plan.paymentPlanId}`, token, (body) => body.settledCount === 2)

    // 9. Payouts: everything settled (42.50 + 25 + 25) is available; with a payout account it is paid out
    //    at the next settlement cycle, Pending then Paid, with one item per settled transfer.
    const balance = await ok("GET", `/Company/${companyId}/Balance`, token)
    assert.deepStrictEqual([balance.available.value, balance.pending.value], [92.5, 0])
    const payoutAccount = await ok("PUT", `/Company/${companyId}/PayoutAccount`, token, {
      accountHolderName: "Acme Coffee LLC",
      routingNumber: "011000015",
      accountNumber: "000123456789",
      accountType: "Checking",
    })
    assert.strictEqual(payoutAccount.accountNumberMasked, "****6789")
    const listed = await until(`/Payouts?companyId=${companyId}&status=Paid`, token, (body) => body.data.length === 1)
    const payout = await ok("GET", `/Payouts/${listed.data[0].payoutId}`, token)
    assert.deepInclude(payout, { status: "Paid", itemCount: 3, companyId })
    assert.strictEqual(payout.amount.value, 92.5)
    const items = await ok("GET", `/Payouts/${payout.payoutId}/Items`, token)
    assert.deepStrictEqual(
      items.data.map((item: Json) => [item.type, item.transferId, item.amount.value]),
      [
        ["payment", paid.transferId, 42.5],
        ["instalment", transferId, 25],
        ["instalment", twice.instalments[1].transferId, 25],
      ],
    )
    assert.strictEqual((await ok("GET", `/Company/${companyId}/Balance`, token)).available.value, 0)
    const events = await ok("GET", "/Events?limit=100", token)
    assert.deepStrictEqual(
      events.data
        .filter((event: Json) => event.event === "PAYOUT_STATUS_CHANGED" && event.data.PayoutId === payout.payoutId)
        .map((event: Json) => event.data.Status),
      ["Paid", "Pending"],
    )
  })

  it("a payer who declines an accepted consent revokes it: gone from the list, plan cancelled", async () => {
    const token = await partnerToken()
    const companyId = await verifiedCompany(token, "walk-002")
    const { customerToken, registrationId } = await login(token, "+14155550124")
    await linkAccount(customerToken)
    const accountId = (await ok("GET", "/Account/List", customerToken)).accounts[0].accountId
    const plan = await ok("POST", "/PaymentPlan/Create", token, {
      companyId,
      payerRegistrationId: registrationId,
      amount: { value: 10, currencyCode: "USD" },
      frequency: "Monthly",
      recurrenceInterval: 1,
      startDate: await today(token),
    })
    const pending = await ok("GET", "/Consent/List", customerToken)
    assert.deepStrictEqual(
      pending.data.map((consent: Json) => [consent.consentId, consent.status]),
      [[plan.consentId, "Pending"]],
    )
    await ok("PUT", `/Consent/${plan.consentId}/Accept`, customerToken, { bankAccountId: accountId })
    const revoked = await ok("PUT", `/Consent/${plan.consentId}/Decline`, customerToken)
    assert.strictEqual(revoked.status, "Revoked")
    assert.isString(revoked.revokedAt)
    assert.deepStrictEqual((await ok("GET", "/Consent/List", customerToken)).data, [])
    assert.strictEqual((await ok("GET", `/Consent/${plan.consentId}`, customerToken)).status, "Revoked")
    const cancelled = await ok("GET", `/PaymentPlan/${plan.paymentPlanId}`, token)
    assert.strictEqual(cancelled.status, "Cancelled")
    assert.strictEqual(cancelled.cancellationReason, "ConsentRevoked")
    assert.strictEqual((await call("PUT", `/PaymentPlan/${plan.paymentPlanId}/Activate`, token)).status, 409)
  })

  it("sandbox magic values work through the real endpoints", { timeout: 30_000 }, async () => {
    const token = await partnerToken()

    // KYB: a name containing "reject" is Rejected.
    const rejected = await ok(
      "POST",
      "/Company/Create",
      token,
      companyBody({ companyReferenceId: "walk-reject", name: "Please Reject Me LLC" }),
    )
    await until(`/company/status?companyId=${rejected.companyId}`, token, (body) => body.Status === "Rejected")

    // OTP: 123456 logs in any phone number.
    const { customerToken, registrationId } = await login(token, "+447700900123")

    // Bank link: a public token containing "fail" -> isOk false with the provider's link error.
    const failed = await linkAccount(customerToken, "my-phone", "public-sandbox-fail")
    assert.strictEqual(failed.isOk, false)
    assert.strictEqual(failed.refreshToken, "")
    assert.deepInclude(failed.linkError, { errorType: "ITEM_ERROR", errorCode: "INVALID_CREDENTIALS" })
    assert.deepStrictEqual((await ok("GET", "/Account/List", customerToken)).accounts, [])

    // KYC: the device id decides (first check after StartKyc).
    const verified = await ok("GET", "/Verification/CheckVerification", customerToken)
    assert.strictEqual(verified.status, "Verified")
    for (const [phone, deviceId, status] of [
      ["+14155550125", "device-reject-1", "Rejected"],
      ["+14155550126", "device-pending-1", "Pending"],
    ] as const) {
      const customer = await login(token, phone)
      const session = await ok("POST", "/Verification/StartKyc", customer.customerToken, { deviceId })
      const check = await ok("GET", "/Verification/CheckVerification", customer.customerToken)
      assert.strictEqual(check.status, status)
      if (status === "Rejected") {
        // Who may collect: a Rejected customer links no account (and so pays nothing).
        const refused = await ok("PUT", "/Account/Link", customer.customerToken, {
          tokenId: session.tokenId,
          publicToken: "public-sandbox-ok",
          linkAccountsMetadata: { linkSessionId: "link-1", institutionId: "ins_1", accountIds: ["acc-checking"] },
        })
        assert.strictEqual(refused.isOk, false)
        assert.match(refused.errors[0], /^CUSTOMER_NOT_VERIFIED/)
      }
    }

    // Settlement: an amount ending in .13 fails (bank return code R01).
    const companyId = await verifiedCompany(token, "walk-003")
    await linkAccount(customerToken)
    const accountId = (await ok("GET", "/Account/List", customerToken)).accounts[0].accountId
    const request = await ok("POST", "/Payment/Create", token, {
      companyId,
      payerRegistrationId: registrationId,
      amount: { value: 10.13, currencyCode: "USD" },
      description: "Insufficient funds",
      dueDate: await today(token),
    })
    await ok("POST", `/Transaction/PaymentRequest/${request.paymentRequestId}/Accept`, customerToken, {
      bankAccountId: accountId,
      acceptDebitAuth: false,
      transferDescription: "",
    })
    const failedPayment = await until(`/Payment/${request.paymentRequestId}`, token, (body) => body.status === "Failed")
    assert.strictEqual((await ok("GET", `/Transaction/${failedPayment.transferId}`, token)).status, "Failed")
    // The same for a plan's instalment: it fails, the plan counts it and goes on with the next due date.
    const failingPlan = await ok("POST", "/PaymentPlan/Create", token, {
      companyId,
      payerRegistrationId: registrationId,
      amount: { value: 10.13, currencyCode: "USD" },
      frequency: "Monthly",
      recurrenceInterval: 1,
      startDate: await today(token),
      numberOfPayments: 2,
    })
    await ok("PUT", `/Consent/${failingPlan.consentId}/Accept`, customerToken, { bankAccountId: accountId })
    await ok("PUT", `/PaymentPlan/${failingPlan.paymentPlanId}/Activate`, token)
    const failedPlan = await until(`/PaymentPlan/${failingPlan.paymentPlanId}`, token, (body) => body.failedCount === 1)
    assert.deepInclude(failedPlan.instalments[0], { instalmentNumber: 1, status: "Failed", returnCode: "R01" })
    assert.strictEqual(failedPlan.status, "Active")
    assert.strictEqual(
      (await ok("GET", `/Transaction/${failedPlan.instalments[0].transferId}`, token)).status,
      "Failed",
    )

    // Debit authorization: the customer sets one; the partner reads it.
    const debitAuth = await ok("POST", "/DebitAuth/Set", customerToken, {
      companyId,
      limit: { value: 250, currencyCode: "USD" },
    })
    assert.strictEqual(debitAuth.status, "Active")
    const read = await ok("GET", `/User/${registrationId}/DebitAuth?companyId=${companyId}`, token)
    assert.deepInclude(read, { enabled: true, status: "Active" })

    // Cards: a sandbox test card, then listed.
    const card = await ok("POST", "/Sandbox/CardPaymentMethods", token, { registrationId })
    assert.deepInclude(card, { type: "card", brand: "visa", last4: "4242", expMonth: 12 })
    const cards = await ok("GET", `/Payment/CardPaymentMethods/${registrationId}`, token)
    assert.deepStrictEqual(
      cards.paymentMethods.map((method: Json) => method.id),
      [card.id],
    )
  })

  it("the sandbox clock and card routes need a partner token and a valid body", async () => {
    const token = await partnerToken()
    const { customerToken, registrationId } = await login(token, "+14155550127")
    assert.strictEqual((await call("GET", "/Sandbox/Clock", undefined)).status, 401)
    assert.strictEqual((await call("GET", "/Sandbox/Clock", customerToken)).status, 403)
    assert.strictEqual((await call("POST", "/Sandbox/Clock/Advance", customerToken, { days: 1 })).status, 403)
    const invalid = await call("POST", "/Sandbox/Clock/Advance", token, { days: 401, seconds: 1 })
    assert.strictEqual(invalid.status, 422)
    assert.sameMembers(
      invalid.body.errors.map((error: Json) => error.field),
      ["seconds", "days"],
    )
    const tooFar = await call("POST", "/Sandbox/Clock/Advance", token, { days: 401 })
    assert.strictEqual(tooFar.status, 422)
    assert.strictEqual((await call("POST", "/Sandbox/Clock/Advance", token, { seconds: -5 })).status, 422)
    assert.strictEqual((await call("POST", "/Sandbox/Clock/Advance", token, { seconds: 1.5 })).status, 422)
    const notJson = await fetch(`${service.url}/Sandbox/Clock/Advance`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: "{",
    })
    assert.strictEqual(notJson.status, 400)
    const badCard = await call("POST", "/Sandbox/CardPaymentMethods", token, { registrationId: "x", last4: "42" })
    assert.strictEqual(badCard.status, 422)
    assert.sameMembers(
      badCard.body.errors.map((error: Json) => error.field),
      ["registrationId", "last4"],
    )
    const unknown = await call("POST", "/Sandbox/CardPaymentMethods", token, {
      registrationId: crypto.randomUUID(),
    })
    assert.strictEqual(unknown.status, 404)
    assert.strictEqual(
      (await call("POST", "/Sandbox/CardPaymentMethods", customerToken, { registrationId })).status,
      403,
    )
  })
})

/**
 * Payouts with their items on one database: a company whose payout account ends in 0013 is paid out and the
 * payout fails (R03), its money back in the balance; with the account replaced, the next payout carries the
 * same item and is Paid. Transfers name the payout account's mask.
 */
const payouts = async (base: string) => {
  const { ok: okOn, until: untilOn } = on(() => base)
  const token = (await okOn("POST", "/auth/token", undefined, { ClientId: clientId, ClientSecret: clientSecret }))
    .AccessToken as string
  // The operator sets the partner's ACH fee: 1% + 0.30 a collection (0.90 of the 60.00 payment below); the
  // provider costs the platform 0.25 a debit (its expense, not the company's).
  await okOn("PUT", `/admin/partners/${sandboxPartnerId(clientId)}/fees/AchDebit`, adminToken, {
    percentageBasisPoints: 100,
    fixed: { value: 0.3, currencyCode: "USD" },
    providerCost: { value: 0.25, currencyCode: "USD" },
  })
  const { companyId } = await okOn("POST", "/Company/Create", token, companyBody({ companyReferenceId: "payouts-001" }))
  await untilOn(`/company/status?companyId=${companyId}`, token, (body) => body.Status === "Verified")
  await okOn("PUT", `/Company/${companyId}/PayoutAccount`, token, {
    accountHolderName: "Acme Coffee LLC",
    routingNumber: "011000015",
    accountNumber: "4440013",
    accountType: "Savings",
  })
  await okOn("POST", "/Login/SendOtp", token, { phoneNumber: "+14155550133" })
  const login = await okOn("PUT", "/Login/CheckOtp", token, { phoneNumber: "+14155550133", code: "123456" })
  const customerToken = login.accessToken as string
  const session = await okOn("POST", "/Verification/StartKyc", customerToken, { deviceId: "payouts-phone" })
  const kyc = await okOn("GET", "/Verification/CheckVerification", customerToken)
  assert.strictEqual(kyc.status, "Verified", JSON.stringify(kyc))
  await okOn("PUT", "/Account/Link", customerToken, {
    tokenId: session.tokenId,
    publicToken: "public-sandbox-ok",
    linkAccountsMetadata: { linkSessionId: "link-1", institutionId: "ins_1", accountIds: ["acc-checking"] },
  })
  const accountId = (await okOn("GET", "/Account/List", customerToken)).accounts[0].accountId
  const request = await okOn("POST", "/Payment/Create", token, {
    companyId,
    payerRegistrationId: login.registrationId,
    amount: { value: 60, currencyCode: "USD" },
    description: "Invoice 2001",
    dueDate: (await okOn("GET", "/Sandbox/Clock", token)).now.slice(0, 10),
  })
  await okOn("POST", `/Transaction/PaymentRequest/${request.paymentRequestId}/Accept`, customerToken, {
    bankAccountId: accountId,
    acceptDebitAuth: false,
    transferDescription: "Invoice 2001",
  })
  const paid = await untilOn(`/Payment/${request.paymentRequestId}`, token, (body) => body.status === "Paid")
  const paidTransfer = await okOn("GET", `/Transaction/${paid.transferId}`, token)
  assert.strictEqual(paidTransfer.recipientAccount, "****0013")
  assert.strictEqual(paidTransfer.fee.value, 0.9)

  // The account ending in 0013 fails the payout with R03: the money is available again.
  const failed = await untilOn(`/Payouts?companyId=${companyId}&status=Failed`, token, (body) => body.data.length === 1)
  assert.deepInclude(failed.data[0], { returnCode: "R03", itemCount: 2 })
  assert.isString(failed.data[0].returnReason)
  await untilOn(`/Company/${companyId}/Balance`, token, (body) => body.available.value === 59.1)

  // A new account: the next payout carries the same item and is Paid.
  await okOn("PUT", `/Company/${companyId}/PayoutAccount`, token, {
    accountHolderName: "Acme Coffee LLC",
    routingNumber: "011000015",
    accountNumber: "000123456789",
    accountType: "Checking",
  })
  const paidOut = await untilOn(`/Payouts?companyId=${companyId}&status=Paid`, token, (body) => body.data.length === 1)
  const payout = paidOut.data[0]
  assert.deepInclude(payout, { itemCount: 2, accountNumberMasked: "****6789" })
  assert.strictEqual(payout.amount.value, 59.1)
  const items = await okOn("GET", `/Payouts/${payout.payoutId}/Items`, token)
  assert.deepStrictEqual(
    items.data.map((item: Json) => [item.type, item.transferId, item.amount.value]),
    [
      ["payment", paid.transferId, 60],
      ["fee", paid.transferId, -0.9],
    ],
  )
  assert.strictEqual((await okOn("GET", `/Company/${companyId}/Balance`, token)).available.value, 0)

  // A terminal card payment for the company (merchantId = its id), available one cycle later, and a recurring
  // gift of 20.00 the charity bears the fee of: a charity item of 20.00 and a fee item of -0.20.
  const card = await okOn("POST", "/cardpayment", token, {
    merchantId: companyId,
    amount: { value: 12.34, currencyCode: "USD" },
    last4: "4242",
    brand: "visa",
    externalReference: "payouts-terminal-1",
  })
  const gift = await okOn("POST", "/Transaction/Charity/CreateAnonymous", customerToken, {
    verificationId: kyc.referenceId,
    amount: { value: 20, currencyCode: "USD" },
    companyId,
    isRecurring: true,
    payerCoversFee: false,
  })
  await untilOn(`/Transaction/${gift.transferId}`, token, (body) => body.status === "Settled")
  const expected = 60 - 0.9 + 12.34 + 20 - 0.2
  const allPaid = await untilOn(`/Payouts?companyId=${companyId}&status=Paid&limit=100`, token, (body) => {
    const total = (body.data as ReadonlyArray<Json>).reduce((sum, p) => sum + Math.round(p.amount.value * 100), 0)
    return total === Math.round(expected * 100)
  })
  const itemTypes: Array<[string, number]> = []
  for (const each of allPaid.data as ReadonlyArray<Json>) {
    const its = (await okOn("GET", `/Payouts/${each.payoutId}/Items?limit=100`, token)).data as ReadonlyArray<Json>
    // Every payout's items add up to its amount exactly.
    const sum = its.reduce((total, item) => total + Math.round(item.amount.value * 100), 0)
    assert.strictEqual(sum, Math.round(each.amount.value * 100))
    for (const item of its) itemTypes.push([item.type, item.amount.value])
  }
  assert.sameDeepMembers(itemTypes, [
    ["payment", 60],
    ["fee", -0.9],
    ["card", 12.34],
    ["charity", 20],
    ["fee", -0.2],
  ])
  assert.isString(card.cardPaymentId)

  // The report of the day: card and fee lines, and totals that reconcile with the payouts (all paid out).
  const day = (await okOn("GET", "/Sandbox/Clock", token)).now.slice(0, 10)
  const report = await okOn("GET", `/Transaction/Report?from=${day}&to=${day}&companyId=${companyId}&limit=100`, token)
  assert.includeDeepMembers(
    (report.lines as ReadonlyArray<Json>).map((line) => [line.type, line.amount.value]),
    [
      ["fee", -0.9],
      ["card", 12.34],
      ["fee", -0.2],
      ["charity", 20],
    ],
  )
  const totals = report.lineTotals[0]
  assert.strictEqual(Math.round(totals.net.value * 100), Math.round(expected * 100))
  assert.strictEqual(totals.fees.value, 1.1)
  assert.strictEqual(Math.round(totals.collected.value * 100), 9234)

  // A month later (the partner's sandbox clock) the recurring gift is collected again; cancelled, it stops.
  await okOn("POST", "/Sandbox/Clock/Advance", token, { days: 31 })
  const later = (await okOn("POST", "/auth/token", undefined, { ClientId: clientId, ClientSecret: clientSecret }))
    .AccessToken as string
  const again = await untilOn(
    `/Charity/Gifts/${gift.charityTransactionId}`,
    later,
    (body) => body.recurrence?.collections === 2,
  )
  assert.strictEqual(again.recurrence.status, "Active")
  const cancelled = await okOn("POST", `/Charity/Gifts/${gift.charityTransactionId}/Cancel`, later)
  assert.deepInclude(cancelled.recurrence, { status: "Stopped", stopReason: "CancelledByPartner", collections: 2 })

  // The platform's books (issue 37 §4): they balance, every payable equals its balance, the charity fee
  // is the platform's revenue, the card money is at the card processor and the debits' provider costs are
  // the platform's expense.
  const books = await adminRequest(base, "GET", "/admin/ledger/trial-balance", { token: adminToken })
  assert.strictEqual(books.status, 200)
  assert.deepInclude(books.body, { balanced: true, discrepancies: [] })
  const line = (account: string) =>
    (books.body.accounts as ReadonlyArray<Json>).find((each) => each.account === account && each.currency === "USD")
  assert.isAtLeast(line("revenue:fees")?.credit ?? 0, 20)
  assert.isAtLeast(line("cash:card-processor")?.debit ?? 0, 1234)
  assert.isAtLeast(line("expense:provider-costs")?.debit ?? 0, 25)
}

describe("payouts with their items against the real service", () => {
  it(
    "on PGlite: a failed payout's money goes out with the next one, Paid; card payments, an ACH platform fee, a charity gift and its fee paid out, the report reconciling; the gift collected again a month later",
    { timeout: 60_000 },
    () => payouts(service.url),
  )

  it.skipIf(!postgresAvailable)(
    "on PostgreSQL: a failed payout's money goes out with the next one, Paid; card payments, an ACH platform fee, a charity gift and its fee paid out, the report reconciling; the gift collected again a month later",
    { timeout: 90_000 },
    async () => {
      const database = await freshDatabase()
      const dir = mkdtempSync(join(tmpdir(), "partnerpay-walkthrough-pg-"))
      const onPostgres = await startService({
        PORT: "0",
        DATABASE_URL: database.url,
        PARTNERPAY_DATA_DIR: dir,
        PARTNERPAY_KYB_DELAY_MS: "200",
        PARTNERPAY_SETTLEMENT_DELAY_MS: "300",
        PARTNERPAY_SANDBOX_CLIENT_ID: clientId,
        PARTNERPAY_SANDBOX_CLIENT_SECRET: clientSecret,
        PARTNERPAY_ADMIN_TOKEN: adminToken,
      })
      try {
        await payouts(onPostgres.url)
      } finally {
        await onPostgres.stop()
        await database.drop()
        rmSync(dir, { recursive: true, force: true })
      }
    },
  )
})
