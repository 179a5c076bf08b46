/**
 * Deficits recovered, on the real service process (sandbox, payout and money-movement workers,
 * signed webhooks to a local receiver), on the embedded database and on a PostgreSQL server: a
 * payment is paid out (a Credit payout), then refunded in full, which leaves the company's available
 * balance negative; one payout cycle later (the sandbox's grace period) the payout worker debits the
 * company's payout account for the deficit (a Debit payout naming the refund), and once it is Paid
 * the balance is back at zero. Each payout announces itself (PAYOUT_STATUS_CHANGED, with Direction).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { type Json, on } from "./Requests.ts"
import {
  companyBody,
  eventually,
  freshDatabase,
  killAll,
  postgresAvailable,
  type ReceivedWebhook,
  startReceiver,
  startService,
} from "./support.ts"

const clientId = "deficits-e2e-client"
const clientSecret = "deficits-e2e-client-secret-0123456789"
const directories: Array<string> = []
afterAll(() => {
  killAll()
  for (const directory of directories) rmSync(directory, { recursive: true, force: true })
})

const dataOf = (received: ReadonlyArray<ReceivedWebhook>, event: string): ReadonlyArray<Json> =>
  received
    .map((hook) => JSON.parse(hook.body) as { Event: string; Data: Json })
    .filter((payload) => payload.Event === event)
    .map((payload) => payload.Data)

const scenario = (database: "embedded" | "postgres") => async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "partnerpay-deficits-"))
  directories.push(dataDir)
  const receiver = await startReceiver()
  const db = database === "postgres" ? await freshDatabase() : undefined
  try {
    const service = await startService({
      PORT: "0",
      PARTNERPAY_DATA_DIR: dataDir,
      PARTNERPAY_KYB_DELAY_MS: "0",
      PARTNERPAY_SETTLEMENT_DELAY_MS: "400",
      PARTNERPAY_SANDBOX_CLIENT_ID: clientId,
      PARTNERPAY_SANDBOX_CLIENT_SECRET: clientSecret,
      PARTNERPAY_SANDBOX_WEBHOOK_URL: receiver.url,
      PARTNERPAY_SANDBOX_WEBHOOK_SECRET: "deficits-webhook-signing-secret",
      ...(db === undefined ? {} : { DATABASE_URL: db.url }),
    })
    const { ok, until, verifyAndLink } = on(() => service.url)
    const token = (await ok("POST", "/auth/token", undefined, { ClientId: clientId, ClientSecret: clientSecret }))
      .AccessToken as string
    const { companyId } = await ok("POST", "/Company/Create", token, companyBody({ companyReferenceId: "deficit-1" }))
    await until(`/company/status?companyId=${companyId}`, token, (body) => body.Status === "Verified")
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
    const credited = await until(`/Payouts?companyId=${companyId}&status=Paid`, token, (body) => body.data.length === 1)
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
    await service.stop()
  } finally {
    await receiver.close()
    await db?.drop()
  }
}

describe("deficits recovered against the real service", () => {
  it("embedded database: a full refund after payout is debited from the payout account", scenario("embedded"), 90_000)
  it.skipIf(!postgresAvailable)("PostgreSQL server: the same journey", scenario("postgres"), 90_000)
})
