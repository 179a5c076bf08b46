/**
 * When money goes wrong (issue 35), on the real service process (sandbox,
 * money-movement and payout workers, signed webhooks to a local receiver), on
 * the embedded database and on a PostgreSQL server:
 * - what the rail cannot move is refused when asked: a EUR payment request and
 *   a EUR plan are 422 CURRENCY_NOT_SUPPORTED naming `amount.currencyCode`;
 * - a payment of an amount ending in .91 is refused by the rail when it is
 *   originated: Failed at once, `returnCode: null`, the rail's words as
 *   `failureReason`, and the PAYMENT_REQUEST_STATUS_CHANGED webhook with them;
 * - a fresh payer's Accept of 5,000.01 USD is 422 PAYER_LIMIT_EXCEEDED, of
 *   4,000.00 accepted, then of 1,000.01 refused (the rolling 7-day limit);
 * - a company whose payout account ends in 0013 sees its payout fail (R03), the
 *   account Errored (GET /Company/{id}/PayoutAccount) with a
 *   PAYOUT_ACCOUNT_STATUS_CHANGED webhook, and at most 2 failed payouts in all
 *   while its balance accumulates.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import type { Json } from "./Requests.ts"
import { cleanUp, dataOf, journey } from "./sandboxJourney.ts"
import { eventually, postgresAvailable } from "./support.ts"

afterAll(cleanUp)

const scenario = (database: "embedded" | "postgres") =>
  journey(
    { name: "money-wrong", database, settlementDelayMillis: 300, companyReferenceId: "wrong-1" },
    async ({ service, receiver, token, companyId, api: { ok, call, until, verifyAndLink } }) => {
      await ok("PUT", `/Company/${companyId}/PayoutAccount`, token, {
        accountHolderName: "Acme Coffee LLC",
        routingNumber: "011000015",
        accountNumber: "4440013",
        accountType: "Checking",
      })
      const payer = async (phoneNumber: string, deviceId: string) => {
        await ok("POST", "/Login/SendOtp", token, { phoneNumber })
        const login = await ok("PUT", "/Login/CheckOtp", token, { phoneNumber, code: "123456" })
        await verifyAndLink(login.accessToken as string, { deviceId })
        const bankAccountId = (await ok("GET", "/Account/List", login.accessToken as string)).accounts[0]
          .accountId as string
        return {
          registrationId: login.registrationId as string,
          customerToken: login.accessToken as string,
          bankAccountId,
        }
      }
      const dueDate = (await ok("GET", "/Sandbox/Clock", token)).now.slice(0, 10) as string
      const request = (registrationId: string, value: number, currencyCode = "USD") =>
        call("POST", "/Payment/Create", token, {
          companyId,
          payerRegistrationId: registrationId,
          amount: { value, currencyCode },
          description: `Payment of ${value} ${currencyCode}`,
          dueDate,
        })
      const accept = (who: Awaited<ReturnType<typeof payer>>, paymentRequestId: string) =>
        call("POST", `/Transaction/PaymentRequest/${paymentRequestId}/Accept`, who.customerToken, {
          bankAccountId: who.bankAccountId,
          acceptDebitAuth: false,
          transferDescription: "",
        })

      const first = await payer("+14155550191", "wrong-phone-1")

      // EUR: the rail (USD) cannot move it: refused when asked, naming the field; nothing is created.
      const eur = await request(first.registrationId, 12.34, "EUR")
      assert.strictEqual(eur.status, 422)
      assert.strictEqual(eur.body.code, "CURRENCY_NOT_SUPPORTED")
      assert.deepStrictEqual(
        eur.body.errors.map((error: Json) => error.field),
        ["amount.currencyCode"],
      )
      const eurPlan = await call("POST", "/PaymentPlan/Create", token, {
        companyId,
        payerRegistrationId: first.registrationId,
        amount: { value: 25, currencyCode: "EUR" },
        frequency: "Weekly",
        recurrenceInterval: 1,
        startDate: dueDate,
        numberOfPayments: 4,
      })
      assert.strictEqual(eurPlan.status, 422)
      assert.strictEqual(eurPlan.body.code, "CURRENCY_NOT_SUPPORTED")
      assert.strictEqual(eurPlan.body.errors[0].field, "amount.currencyCode")

      // .91: refused by the rail at origination: Failed at once, no return code, the rail's words.
      const refused = await request(first.registrationId, 12.91)
      assert.strictEqual(refused.status, 200, JSON.stringify(refused.body))
      const refusedId = refused.body.paymentRequestId as string
      assert.strictEqual((await accept(first, refusedId)).status, 200)
      const failed = await until(`/Payment/${refusedId}`, token, (body) => body.status === "Failed")
      assert.isNull(failed.returnCode)
      assert.include(failed.failureReason, ".91")
      assert.notProperty(failed, "returnReason")
      const transfer = await ok("GET", `/Transaction/${failed.transferId}`, token)
      assert.deepInclude(transfer, { status: "Failed", returnCode: null })
      const failedHook = await eventually(() =>
        dataOf(receiver.received, "PAYMENT_REQUEST_STATUS_CHANGED").find(
          (data) => data.PaymentRequestId === refusedId && data.Status === "Failed",
        ),
      )
      assert.isNull(failedHook.ReturnCode)
      assert.strictEqual(failedHook.FailureReason, failed.failureReason)

      // The payer limit: 5,000.01 refused, 4,000.00 accepted, then 1,000.01 refused.
      const fresh = await payer("+14155550192", "wrong-phone-2")
      const over = (await request(fresh.registrationId, 5000.01)).body.paymentRequestId as string
      const refusedOver = await accept(fresh, over)
      assert.strictEqual(refusedOver.status, 422)
      assert.strictEqual(refusedOver.body.code, "PAYER_LIMIT_EXCEEDED")
      assert.strictEqual((await ok("GET", `/Payment/${over}`, token)).status, "Pending")
      const within = (await request(fresh.registrationId, 4000)).body.paymentRequestId as string
      assert.strictEqual((await accept(fresh, within)).status, 200)
      const more = (await request(fresh.registrationId, 1000.01)).body.paymentRequestId as string
      const refusedMore = await accept(fresh, more)
      assert.strictEqual(refusedMore.status, 422)
      assert.strictEqual(refusedMore.body.code, "PAYER_LIMIT_EXCEEDED")

      // The payout account ending in 0013: the payout fails (R03), the account is Errored, payouts pause.
      await until(`/Payment/${within}`, token, (body) => body.status === "Paid")
      const account = await until(
        `/Company/${companyId}/PayoutAccount`,
        token,
        (body) => body.status === "Errored",
        20_000,
      )
      assert.deepInclude(account, { status: "Errored", returnCode: "R03" })
      assert.isString(account.erroredAt)
      const accountHook = await eventually(() =>
        dataOf(receiver.received, "PAYOUT_ACCOUNT_STATUS_CHANGED").find((data) => data.CompanyId === companyId),
      )
      assert.deepInclude(accountHook, { Status: "Errored", ReturnCode: "R03" })
      assert.isString(accountHook.ReturnReason)
      assert.isString(accountHook.Timestamp)
      // Several payout cycles later (the sandbox pays out every settlement cycle): no more payouts to it.
      await until(`/Company/${companyId}/Balance`, token, (body) => body.available.value === 4000)
      await new Promise((done) => setTimeout(done, 2_000))
      const failedPayouts = await ok("GET", `/Payouts?companyId=${companyId}&status=Failed&limit=100`, token)
      assert.isAtLeast(failedPayouts.data.length, 1)
      assert.isAtMost(failedPayouts.data.length, 2)
      const pendingPayouts = await ok("GET", `/Payouts?companyId=${companyId}&status=Pending&limit=100`, token)
      assert.strictEqual(pendingPayouts.data.length, 0)
      assert.strictEqual((await ok("GET", `/Company/${companyId}/Balance`, token)).available.value, 4000)
      await service.stop()
    },
  )

describe("when money goes wrong, against the real service", () => {
  it(
    "embedded database: EUR refused, a .91 payment Failed, the payer limit, an Errored payout account",
    scenario("embedded"),
    120_000,
  )
  it.skipIf(!postgresAvailable)("PostgreSQL server: the same journey", scenario("postgres"), 120_000)
})
