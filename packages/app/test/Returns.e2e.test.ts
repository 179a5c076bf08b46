/**
 * Returns and refunds moving money, on the real service process (sandbox,
 * money-movement workers, signed webhooks to a local receiver), on the
 * embedded database and on a PostgreSQL server:
 * - a payment of an amount ending in .10 is Paid, then Returned with R10 one
 *   settlement cycle later: the code and its reason on GET /Payment,
 *   GET /Transaction and the PAYMENT_REQUEST_STATUS_CHANGED webhook;
 * - a partial refund of a settled payment answers Pending, then completes
 *   (REFUND_STATUS_CHANGED Pending, then Completed);
 * - an Accept records its evidence (GET /Payment/{id} `authorization`: address, user agent, text);
 * - returns act on authorizations (packages/domain/docs/ReturnConsequences.md): an R10 of a
 *   fresh payer's payment accepted with acceptDebitAuth revokes that payer's debit authorization
 *   for the company and their accepted consent (its plan Cancelled), with their webhooks, and a
 *   new authorization can be given afterwards;
 * - a payment ending in .03 fails before settlement with R03: the account becomes Unusable
 *   (GET /Account/List, BANK_ACCOUNT_RELINK_REQUIRED) and an Accept naming it is 422
 *   BANK_ACCOUNT_UNUSABLE.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { ApiVersions } from "@partnerpay/adapters-http"
import type { Json } from "./Requests.ts"
import { cleanUp, dataOf, journey } from "./sandboxJourney.ts"
import { eventually, postgresAvailable } from "./support.ts"

afterAll(cleanUp)

const r10Reason = "Customer advises originator is not known and/or not authorized to debit the account"

const scenario = (database: "embedded" | "postgres") =>
  journey(
    { name: "returns", database, settlementDelayMillis: 400, companyReferenceId: "returns-1" },
    async ({ service, receiver, token, companyId, api: { ok, until, call, verifyAndLink } }) => {
      await ok("POST", "/Login/SendOtp", token, { phoneNumber: "+14155550188" })
      const login = await ok("PUT", "/Login/CheckOtp", token, { phoneNumber: "+14155550188", code: "123456" })
      const customerToken = login.accessToken as string
      await verifyAndLink(customerToken, { deviceId: "returns-phone" })
      const bankAccountId = (await ok("GET", "/Account/List", customerToken)).accounts[0].accountId as string
      const dueDate = (await ok("GET", "/Sandbox/Clock", token)).now.slice(0, 10) as string
      const pay = async (value: number) => {
        const request = await ok("POST", "/Payment/Create", token, {
          companyId,
          payerRegistrationId: login.registrationId,
          amount: { value, currencyCode: "USD" },
          description: `Payment of ${value}`,
          dueDate,
        })
        await ok("POST", `/Transaction/PaymentRequest/${request.paymentRequestId}/Accept`, customerToken, {
          bankAccountId,
          acceptDebitAuth: false,
          transferDescription: "",
        })
        return request.paymentRequestId as string
      }

      // .10: Paid, then Returned with R10 one settlement cycle later.
      const returnedId = await pay(42.1)
      const paid = await until(`/Payment/${returnedId}`, token, (body) => body.status === "Paid")
      assert.isUndefined(paid.returnCode)
      const returned = await until(`/Payment/${returnedId}`, token, (body) => body.status === "Returned")
      assert.deepInclude(returned, { returnCode: "R10", returnReason: r10Reason })
      assert.deepStrictEqual(
        returned.statusHistory.map((change: Json) => change.status),
        ["Pending", "Accepted", "Paid", "Returned"],
      )
      const transfer = await ok("GET", `/Transaction/${returned.transferId}`, token)
      assert.deepInclude(transfer, { status: "Returned", returnCode: "R10", returnReason: r10Reason })
      // A client written for the version before returns reads it in that version's shape (docs/api/versions.md).
      const before = { "Partnerpay-Version": "2026-11-25" }
      const old = await call("GET", `/Payment/${returnedId}`, token, undefined, before)
      assert.strictEqual(old.status, 200)
      assert.strictEqual(old.headers.get("partnerpay-version"), "2026-11-25")
      assert.strictEqual(old.body.status, "Failed")
      assert.notProperty(old.body, "returnCode")
      assert.notProperty(old.body, "returnReason")
      assert.deepStrictEqual(
        old.body.statusHistory.map((change: Json) => change.status),
        ["Pending", "Accepted", "Paid", "Failed"],
      )
      const oldTransfer = await call("GET", `/Transaction/${returned.transferId}`, token, undefined, before)
      assert.deepInclude(oldTransfer.body, { status: "Failed" })
      assert.notProperty(oldTransfer.body, "returnCode")
      // The partner's own version (pinned at its first call, the latest) applies without the header.
      const own = await call("GET", `/Payment/${returnedId}`, token)
      assert.strictEqual(own.headers.get("partnerpay-version"), ApiVersions.latest)
      // A version that does not exist is refused, naming the header.
      const unknown = await call("GET", `/Payment/${returnedId}`, token, undefined, {
        "Partnerpay-Version": "2020-01-01",
      })
      assert.strictEqual(unknown.status, 400)
      assert.strictEqual(unknown.body.errors[0].field, "header.Partnerpay-Version")
      const returnedHook = await eventually(() =>
        dataOf(receiver.received, "PAYMENT_REQUEST_STATUS_CHANGED").find(
          (data) => data.PaymentRequestId === returnedId && data.Status === "Returned",
        ),
      )
      assert.deepInclude(returnedHook, { ReturnCode: "R10", ReturnReason: r10Reason })

      // A partial refund: Pending, then Completed, with its webhooks.
      const refundedId = await pay(30)
      const settled = await until(`/Payment/${refundedId}`, token, (body) => body.status === "Paid")
      const refund = await ok("POST", `/Transaction/${settled.transferId}/Refund`, token, {
        amount: { value: 12.5, currencyCode: "USD" },
      })
      assert.strictEqual(refund.status, "Pending")
      assert.strictEqual(refund.amount.value, 12.5)
      const refundHooks = await eventually(() => {
        const hooks = dataOf(receiver.received, "REFUND_STATUS_CHANGED").filter(
          (data) => data.RefundId === refund.refundId,
        )
        return hooks.some((data) => data.Status === "Completed") ? hooks : undefined
      })
      assert.deepStrictEqual(
        refundHooks.map((data) => [data.TransferId, data.Amount, data.Status]),
        [
          [settled.transferId, { value: 12.5, currencyCode: "USD" }, "Pending"],
          [settled.transferId, { value: 12.5, currencyCode: "USD" }, "Completed"],
        ],
      )
      const afterRefund = await ok("GET", `/Payment/${refundedId}`, token)
      assert.deepInclude(afterRefund, { status: "Paid" })
      assert.strictEqual(afterRefund.refundedAmount.value, 12.5)

      // An unauthorized return (R10) of a fresh payer's payment accepted with acceptDebitAuth revokes every
      // authorization that payer gave the company: the debit authorization and the accepted consent (its plan ends).
      await ok("POST", "/Login/SendOtp", token, { phoneNumber: "+14155550189" })
      const fresh = await ok("PUT", "/Login/CheckOtp", token, { phoneNumber: "+14155550189", code: "123456" })
      const freshToken = fresh.accessToken as string
      await verifyAndLink(freshToken, { deviceId: "returns-fresh-phone" })
      const freshAccountId = (await ok("GET", "/Account/List", freshToken)).accounts[0].accountId as string
      const plan = await ok("POST", "/PaymentPlan/Create", token, {
        companyId,
        payerRegistrationId: fresh.registrationId,
        amount: { value: 15, currencyCode: "USD" },
        frequency: "Monthly",
        recurrenceInterval: 1,
        startDate: dueDate,
        numberOfPayments: 3,
      })
      await ok("PUT", `/Consent/${plan.consentId}/Accept`, freshToken, { bankAccountId: freshAccountId })
      const consentEvidence = (await ok("GET", `/Consent/${plan.consentId}`, freshToken)).authorization
      assert.deepInclude(consentEvidence, { ipAddress: "127.0.0.1", textVersion: "consent/2026-11-28" })
      const offer = await ok("POST", "/Payment/Create", token, {
        companyId,
        payerRegistrationId: fresh.registrationId,
        amount: { value: 20.1, currencyCode: "USD" },
        description: "Payment offering a debit authorization",
        dueDate,
        enableDebitAuth: true,
        debitAuthLimit: { value: 100, currencyCode: "USD" },
      })
      const acceptance = await call(
        "POST",
        `/Transaction/PaymentRequest/${offer.paymentRequestId}/Accept`,
        freshToken,
        { bankAccountId: freshAccountId, acceptDebitAuth: true, transferDescription: "" },
        { "User-Agent": "returns-e2e-app/1.0" },
      )
      assert.strictEqual(acceptance.status, 200)
      // The acceptance's evidence: the payer's address and user agent, the text and its version.
      const evidence = (await ok("GET", `/Payment/${offer.paymentRequestId}`, token)).authorization
      assert.deepInclude(evidence, {
        ipAddress: "127.0.0.1",
        userAgent: "returns-e2e-app/1.0",
        textVersion: "payment-acceptance/2026-11-28",
      })
      assert.isString(evidence.acceptedAt)
      assert.isAbove(evidence.text.length, 0)
      const granted = await ok("GET", `/User/${fresh.registrationId}/DebitAuth?companyId=${companyId}`, token)
      assert.deepInclude(granted, { status: "Active", enabled: true })
      assert.deepInclude(granted.authorization, {
        ipAddress: "127.0.0.1",
        userAgent: "returns-e2e-app/1.0",
        textVersion: "debit-authorization/2026-11-28",
      })
      await until(`/Payment/${offer.paymentRequestId}`, token, (body) => body.status === "Returned")
      const revokedAuth = await ok("GET", `/User/${fresh.registrationId}/DebitAuth?companyId=${companyId}`, token)
      assert.deepInclude(revokedAuth, { status: "Revoked", enabled: false })
      assert.strictEqual((await ok("GET", `/Consent/${plan.consentId}`, freshToken)).status, "Revoked")
      const consentHook = await eventually(() =>
        dataOf(receiver.received, "CONSENT_STATUS_CHANGED").find(
          (data) => data.ConsentId === plan.consentId && data.Status === "Revoked",
        ),
      )
      assert.isDefined(consentHook)
      const cancelledPlan = await ok("GET", `/PaymentPlan/${plan.paymentPlanId}`, token)
      assert.deepInclude(cancelledPlan, { status: "Cancelled", cancellationReason: "UnauthorizedReturn" })
      const authHook = await eventually(() =>
        dataOf(receiver.received, "DEBIT_AUTHORIZATION_CHANGED").find(
          (data) => data.RegistrationId === fresh.registrationId && data.Change === "Revoked",
        ),
      )
      assert.deepInclude(authHook, { ReturnCode: "R10", Enabled: false })
      // A new authorization may be given afterwards.
      const renewed = await ok("POST", "/DebitAuth/Set", freshToken, {
        companyId,
        limit: { value: 50, currencyCode: "USD" },
      })
      assert.deepInclude(renewed, { status: "Active", enabled: true })

      // .03: Failed before settlement with R03, an account-level return: the account is unusable.
      const failedId = await pay(10.03)
      const failed = await until(`/Payment/${failedId}`, token, (body) => body.status === "Failed")
      assert.deepInclude(failed, { returnCode: "R03", returnReason: "No account / unable to locate account" })
      const listed = (await ok("GET", "/Account/List", customerToken)).accounts[0]
      assert.deepInclude(listed, { accountId: bankAccountId, status: "Unusable", returnCode: "R03" })
      const relink = await eventually(() =>
        dataOf(receiver.received, "BANK_ACCOUNT_RELINK_REQUIRED").find(
          (data) => data.RegistrationId === login.registrationId,
        ),
      )
      assert.deepInclude(relink, { BankAccountIds: [bankAccountId], Reason: "R03" })
      const next = await ok("POST", "/Payment/Create", token, {
        companyId,
        payerRegistrationId: login.registrationId,
        amount: { value: 5, currencyCode: "USD" },
        description: "After the R03",
        dueDate,
      })
      const refused = await call("POST", `/Transaction/PaymentRequest/${next.paymentRequestId}/Accept`, customerToken, {
        bankAccountId,
        acceptDebitAuth: false,
        transferDescription: "",
      })
      assert.strictEqual(refused.status, 422)
      assert.strictEqual(refused.body.code, "BANK_ACCOUNT_UNUSABLE")
      await service.stop()
    },
  )

describe("returns and refunds against the real service", () => {
  it(
    "embedded database: a returned payment (R10), a refund completing, authorizations revoked, an unusable account (R03)",
    scenario("embedded"),
    90_000,
  )
  it.skipIf(!postgresAvailable)("PostgreSQL server: the same journey", scenario("postgres"), 90_000)
})
