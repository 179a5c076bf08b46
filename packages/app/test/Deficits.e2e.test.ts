/**
 * Deficits recovered, on the real service process (sandbox, payout and money-movement workers,
 * signed webhooks to a local receiver), on the embedded database and on a PostgreSQL server: a
 * payment is paid out (a Credit payout), then refunded in full, which leaves the company's available
 * balance negative; one payout cycle later (the sandbox's grace period) the payout worker debits the
 * company's payout account for the deficit (a Debit payout naming the refund), and once it is Paid
 * the balance is back at zero. Each payout announces itself (PAYOUT_STATUS_CHANGED, with Direction).
 * Then a payment returned late (R10, after its payout or before it). Throughout, the platform's books
 * (issue 37 §4) balance: just before the Debit payout the company's deficit is its receivable, against
 * the ACH cash that paid the refund; at the end the trial balance balances and every payable equals its
 * company's balance (`GET /admin/ledger/trial-balance`, and `partnerpay ledger check` once stopped). The
 * operator set a provider cost per debit and a return fee the platform keeps: they are its expense,
 * out of its ACH cash, and never the company's.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { sandboxPartnerId } from "../src/sandbox/Partners.ts"
import { request as adminRequest, type Json } from "./Requests.ts"
import { cleanUp, dataOf, journey } from "./sandboxJourney.ts"
import { cli, eventually, postgresAvailable } from "./support.ts"

const adminToken = "deficits-e2e-operator-token-0123456789abcdef"
afterAll(cleanUp)

const scenario = (database: "embedded" | "postgres") =>
  journey(
    {
      name: "deficits",
      database,
      settlementDelayMillis: 400,
      companyReferenceId: "deficit-1",
      env: { PARTNERPAY_ADMIN_TOKEN: adminToken },
    },
    async ({ service, receiver, dataDir, postgres, clientId, token, companyId, api: { ok, until, verifyAndLink } }) => {
      // The operator's terms of ACH debits: no platform fee; the provider costs the platform 0.25 a debit and
      // 5.00 a return, which it keeps (not passed on to the company).
      const fees = await adminRequest(
        service.url,
        "PUT",
        `/admin/partners/${sandboxPartnerId(clientId)}/fees/AchDebit`,
        {
          token: adminToken,
          body: {
            percentageBasisPoints: 0,
            providerCost: { value: 0.25, currencyCode: "USD" },
            returnFee: { value: 5, currencyCode: "USD" },
            returnFeePassedOn: false,
          },
        },
      )
      assert.strictEqual(fees.status, 200, JSON.stringify(fees.body))
      await ok("PUT", `/Company/${companyId}/PayoutAccount`, token, {
        accountHolderName: "Acme Coffee LLC",
        routingNumber: "011000015",
        accountNumber: "000123456789",
        accountType: "Checking",
      })
      await ok("POST", "/Login/SendOtp", token, { phoneNumber: "+14155550177" })
      const login = await ok("PUT", "/Login/CheckOtp", token, { phoneNumber: "+14155550177", code: "123456" })
      const customerToken = login.accessToken as string
      await verifyAndLink(customerToken, { deviceId: "deficits-phone" })
      const bankAccountId = (await ok("GET", "/Account/List", customerToken)).accounts[0].accountId as string
      const dueDate = (await ok("GET", "/Sandbox/Clock", token)).now.slice(0, 10) as string
      const request = await ok("POST", "/Payment/Create", token, {
        companyId,
        payerRegistrationId: login.registrationId,
        amount: { value: 30, currencyCode: "USD" },
        description: "Coffee subscription",
        dueDate,
      })
      await ok("POST", `/Transaction/PaymentRequest/${request.paymentRequestId}/Accept`, customerToken, {
        bankAccountId,
        acceptDebitAuth: false,
        transferDescription: "",
      })
      const paid = await until(`/Payment/${request.paymentRequestId}`, token, (body) => body.status === "Paid")

      // Paid out: a Credit payout of the 30.00.
      const credited = await until(
        `/Payouts?companyId=${companyId}&status=Paid`,
        token,
        (body) => body.data.length === 1,
      )
      assert.deepInclude(credited.data[0], { direction: "Credit" })
      assert.strictEqual(credited.data[0].amount.value, 30)

      // A full refund after the payout: the balance is negative.
      const refund = await ok("POST", `/Transaction/${paid.transferId}/Refund`, token, {
        amount: { value: 30, currencyCode: "USD" },
      })
      await eventually(() =>
        dataOf(receiver.received, "REFUND_STATUS_CHANGED").find(
          (data) => data.RefundId === refund.refundId && data.Status === "Completed",
        ),
      )

      // One payout cycle later, a Debit payout of the deficit, naming the refund; Paid, the balance is zero.
      const debited = await until(`/Payouts?companyId=${companyId}&status=Paid`, token, (body) =>
        body.data.some((payout: Json) => payout.direction === "Debit"),
      )
      const debit = debited.data.find((payout: Json) => payout.direction === "Debit")
      assert.strictEqual(debit.amount.value, 30)
      const items = await ok("GET", `/Payouts/${debit.payoutId}/Items`, token)
      assert.deepStrictEqual(
        items.data.map((item: Json) => [item.type, item.transferId, item.refundId, item.amount.value]),
        [["refund", paid.transferId, refund.refundId, -30]],
      )
      assert.strictEqual((await ok("GET", `/Company/${companyId}/Balance`, token)).available.value, 0)
      const hooks = await eventually(() => {
        const found = dataOf(receiver.received, "PAYOUT_STATUS_CHANGED").filter(
          (data) => data.PayoutId === debit.payoutId,
        )
        return found.some((data) => data.Status === "Paid") ? found : undefined
      })
      assert.deepStrictEqual(
        hooks.map((data) => [data.Direction, data.Status]),
        [
          ["Debit", "Pending"],
          ["Debit", "Paid"],
        ],
      )

      // The books just before the Debit payout: the deficit is the company's receivable, against the cash
      // that paid the refund out of the ACH rail, and the debit's provider cost the platform's expense; they
      // balance.
      const trialBalance = async (query: string) => {
        const answer = await adminRequest(service.url, "GET", `/admin/ledger/trial-balance${query}`, {
          token: adminToken,
        })
        assert.strictEqual(answer.status, 200)
        return answer.body as Json
      }
      const before = new Date(Date.parse(debit.createdAt) - 1).toISOString()
      const inDeficit = await trialBalance(`?asOf=${before}`)
      assert.deepStrictEqual(inDeficit.accounts, [
        { account: "cash:ach", currency: "USD", debit: 0, credit: 3025 },
        { account: "expense:provider-costs", currency: "USD", debit: 25, credit: 0 },
        { account: `receivable:company:${companyId}`, currency: "USD", debit: 3000, credit: 0 },
      ])
      assert.deepInclude(inDeficit, { asOf: before, balanced: true, discrepancies: [] })
      assert.strictEqual(
        (await adminRequest(service.url, "GET", "/admin/ledger/trial-balance?asOf=yesterday", { token: adminToken }))
          .status,
        400,
      )

      // A late return (R10 on an amount ending in .10), after its payout or before it: the books still balance.
      const late = await ok("POST", "/Payment/Create", token, {
        companyId,
        payerRegistrationId: login.registrationId,
        amount: { value: 20.1, currencyCode: "USD" },
        description: "Returned late",
        dueDate,
      })
      await ok("POST", `/Transaction/PaymentRequest/${late.paymentRequestId}/Accept`, customerToken, {
        bankAccountId,
        acceptDebitAuth: false,
        transferDescription: "",
      })
      await until(`/Payment/${late.paymentRequestId}`, token, (body) => body.status === "Returned")
      // Settled down: nothing pending, the balance at zero (a deficit is debited one cycle later).
      for (let settledDown = false; !settledDown; ) {
        const pending = await ok("GET", `/Payouts?companyId=${companyId}&status=Pending`, token)
        const balance = await ok("GET", `/Company/${companyId}/Balance`, token)
        settledDown = pending.data.length === 0 && balance.available.value === 0
        if (!settledDown) await new Promise((done) => setTimeout(done, 100))
      }
      const now = await trialBalance("")
      assert.deepInclude(now, { asOf: null, balanced: true, discrepancies: [] })
      // What is left is the platform's expense: two debits' provider costs and the late return's fee, kept.
      assert.deepStrictEqual(now.accounts, [
        { account: "cash:ach", currency: "USD", debit: 0, credit: 550 },
        { account: "expense:provider-costs", currency: "USD", debit: 550, credit: 0 },
      ])
      assert.deepStrictEqual(now.totals, [{ currency: "USD", debits: 550, credits: 550, balanced: true }])
      await service.stop()
      if (!postgres) {
        // The data directory is free once the service stopped: the books rebuilt from the events, the
        // operator's check agrees.
        const rebuilt = await cli(["projections", "rebuild"], { PARTNERPAY_DATA_DIR: dataDir })
        assert.strictEqual(rebuilt.code, 0, rebuilt.stderr)
        const checked = await cli(["ledger", "check"], { PARTNERPAY_DATA_DIR: dataDir })
        assert.strictEqual(checked.code, 0, checked.stderr)
        assert.include(checked.stdout, "The books balance (now) and every company's payable equals its balance.")
      }
    },
  )

describe("deficits recovered against the real service", () => {
  it("embedded database: a full refund after payout is debited from the payout account", scenario("embedded"), 150_000)
  it.skipIf(!postgresAvailable)("PostgreSQL server: the same journey", scenario("postgres"), 150_000)
})
