/**
 * Same-day autopay, in-app card payment and invoices, end to end against the
 * real service process (sandbox, embedded database, a webhook receiver):
 * - a request created with autopay and a due date of today is collected by
 *   the service itself from the payer's designated account (PUT
 *   /Account/Default), settles, becomes Paid, and the partner receives
 *   PAYMENT_REQUEST_STATUS_CHANGED for Accepted and Paid;
 * - a request above its autopay limit is left Pending, marked OverAutoPayLimit;
 * - the payer pays a request with a saved card (Paid at once, webhook); the
 *   sandbox card ending in 0002 is declined (422 CARD_DECLINED); another
 *   customer's request is 404;
 * - an invoice's number and lines are shown on the request; lines that do
 *   not add up to the amount are refused;
 * - a card that requires 3-D Secure (sandbox 3155) is answered RequiresAction,
 *   the request stays Pending until the sandbox's authentication (a failure
 *   leaves it payable, a success pays it);
 * - a card-paid request refunded partly then fully shows it (Refunded);
 * - card money, paid with a saved card or after 3-D Secure, is available on the processor's date
 *   (the report's card line carries `availableAt`), never at once.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { type Json, on } from "./Requests.ts"
import {
  companyBody,
  eventually,
  killAll,
  type RunningService,
  startReceiver,
  startService,
  type WebhookReceiver,
} from "./support.ts"

const clientId = "autopay-client"
const clientSecret = "autopay-secret-0123456789"
const dataDir = mkdtempSync(join(tmpdir(), "partnerpay-autopay-"))
let service: RunningService
let receiver: WebhookReceiver

beforeAll(async () => {
  receiver = await startReceiver()
  service = await startService({
    PORT: "0",
    PARTNERPAY_DATA_DIR: dataDir,
    PARTNERPAY_KYB_DELAY_MS: "200",
    PARTNERPAY_SETTLEMENT_DELAY_MS: "200",
    PARTNERPAY_SANDBOX_CLIENT_ID: clientId,
    PARTNERPAY_SANDBOX_CLIENT_SECRET: clientSecret,
    PARTNERPAY_SANDBOX_WEBHOOK_URL: receiver.url,
    PARTNERPAY_SANDBOX_WEBHOOK_SECRET: "autopay-webhook-secret-0123456789",
  })
}, 60_000)

afterAll(async () => {
  killAll()
  await receiver.close()
  rmSync(dataDir, { recursive: true, force: true })
})

const { call, ok } = on(() => service.url)

/** Polls a GET every 100 ms until `accept` holds for its answer. */
const poll = async (path: string, token: string, accept: (body: Json) => boolean): Promise<Json> => {
  const deadline = Date.now() + 15_000
  let last: Json
  while (Date.now() < deadline) {
    last = (await call("GET", path, token)).body
    if (accept(last)) return last
    await new Promise((done) => setTimeout(done, 100))
  }
  assert.fail(`${path} never matched; last answer ${JSON.stringify(last)}`)
}

const partnerToken = async (): Promise<string> =>
  (await ok("POST", "/auth/token", undefined, { ClientId: clientId, ClientSecret: clientSecret })).AccessToken

const customer = async (token: string, phoneNumber: string) => {
  await ok("POST", "/Login/SendOtp", token, { phoneNumber })
  const login = await ok("PUT", "/Login/CheckOtp", token, { phoneNumber, code: "123456" })
  const customerToken = login.accessToken as string
  const session = await ok("POST", "/Verification/StartKyc", customerToken, { deviceId: "my-phone" })
  // Only a Verified payer pays: the sandbox verifies at the first check.
  await ok("GET", "/Verification/CheckVerification", customerToken)
  await ok("PUT", "/Account/Link", customerToken, {
    tokenId: session.tokenId,
    publicToken: "public-sandbox-ok",
    linkAccountsMetadata: { linkSessionId: "link-1", institutionId: "ins_1", accountIds: ["acc-checking"] },
  })
  const accountId = (await ok("GET", "/Account/List", customerToken)).accounts[0].accountId as string
  return { customerToken, registrationId: login.registrationId as string, accountId }
}

const statusHooks = (paymentRequestId: string): Array<string> =>
  receiver.received
    .map((hook) => JSON.parse(hook.body) as Json)
    .filter(
      (hook) => hook.Event === "PAYMENT_REQUEST_STATUS_CHANGED" && hook.Data.PaymentRequestId === paymentRequestId,
    )
    .map((hook) => hook.Data.Status as string)

let token: string
let companyId: string
let today: string

const setup = async () => {
  token = await partnerToken()
  companyId = (await ok("POST", "/Company/Create", token, companyBody({ companyReferenceId: `autopay-${Date.now()}` })))
    .companyId
  await poll(`/company/status?companyId=${companyId}`, token, (body) => body.Status === "Verified")
  today = (await ok("GET", "/Sandbox/Clock", token)).now.slice(0, 10)
}

/** The report's balance line of a card payment, once the ledger shows it. */
const cardLine = async (cardPaymentId: string): Promise<Json> => {
  const isIt = (line: Json) => line.type === "card" && line.cardPaymentId === cardPaymentId
  const report = await poll(`/Transaction/Report?from=${today}&to=${today}&companyId=${companyId}`, token, (body) =>
    (body.lines as ReadonlyArray<Json>).some(isIt),
  )
  return (report.lines as ReadonlyArray<Json>).find(isIt) as Json
}

/** Card money waits for the processor's availability date (sandbox: one settlement cycle). */
const assertAvailableLater = (line: Json) => {
  assert.isString(line.availableAt, "card money waits for the processor's availability date")
  assert.isFalse(Number.isNaN(Date.parse(line.availableAt)))
}

describe("same-day autopay in the sandbox", () => {
  it("a request with autopay due today is collected by the service, settles and is Paid, with its webhooks", {
    timeout: 60_000,
  }, async () => {
    await setup()
    const payer = await customer(token, "+14155550131")
    await ok("PUT", "/Account/Default", payer.customerToken, { bankAccountId: payer.accountId })
    const designated = await ok("GET", "/Account/Default", payer.customerToken)
    assert.strictEqual(designated.account.accountId, payer.accountId)

    const created = await ok("POST", "/Payment/Create", token, {
      companyId,
      payerRegistrationId: payer.registrationId,
      amount: { value: 19.99, currencyCode: "USD" },
      description: "Lawn care, November",
      dueDate: today,
      enableAutoPay: true,
      autoPayLimit: { value: 50, currencyCode: "USD" },
      invoiceNumber: "LAWN-11",
      lineItems: [{ description: "Lawn care", quantity: 1, unitAmount: { value: 19.99, currencyCode: "USD" } }],
    })
    assert.strictEqual(created.status, "Pending")
    const paid = await poll(`/Payment/${created.paymentRequestId}`, token, (body) => body.status === "Paid")
    assert.strictEqual(paid.collectedBy, "AutoPay")
    assert.deepStrictEqual(
      paid.statusHistory.map((entry: Json) => entry.status),
      ["Pending", "Accepted", "Paid"],
    )
    const transfer = await ok("GET", `/Transaction/${paid.transferId}`, token)
    assert.strictEqual(transfer.status, "Settled")
    assert.strictEqual(transfer.amount.value, 19.99)
    // The invoice shows on the transfer that pays it.
    assert.strictEqual(transfer.invoiceNumber, "LAWN-11")
    assert.strictEqual(transfer.lineItems[0].amount.value, 19.99)
    const hooks = await eventually(() => {
      const statuses = statusHooks(created.paymentRequestId)
      return statuses.includes("Paid") ? statuses : undefined
    })
    assert.deepStrictEqual(hooks, ["Pending", "Accepted", "Paid"])

    // Above the autopay limit: left Pending for the payer, marked so a reminder can be sent.
    const over = await ok("POST", "/Payment/Create", token, {
      companyId,
      payerRegistrationId: payer.registrationId,
      amount: { value: 80, currencyCode: "USD" },
      description: "Tree trimming",
      dueDate: today,
      enableAutoPay: true,
      autoPayLimit: { value: 50, currencyCode: "USD" },
    })
    const skipped = await poll(
      `/Payment/${over.paymentRequestId}`,
      token,
      (body) => body.autoCollectionSkipped !== undefined,
    )
    assert.strictEqual(skipped.status, "Pending")
    assert.strictEqual(skipped.autoCollectionSkipped, "OverAutoPayLimit")
  })

  it("a payer pays a request with a saved card; a declined card and another customer's request change nothing", {
    timeout: 60_000,
  }, async () => {
    if (token === undefined) await setup()
    const payer = await customer(token, "+14155550132")
    const other = await customer(token, "+14155550133")
    const good = await ok("POST", "/Sandbox/CardPaymentMethods", token, { registrationId: payer.registrationId })
    const declined = await ok("POST", "/Sandbox/CardPaymentMethods", token, {
      registrationId: payer.registrationId,
      last4: "0002",
    })
    const request = await ok("POST", "/Payment/Create", token, {
      companyId,
      payerRegistrationId: payer.registrationId,
      amount: { value: 60, currencyCode: "USD" },
      description: "Invoice INV-7",
      dueDate: today,
      invoiceNumber: "INV-7",
      lineItems: [
        { description: "Window cleaning", quantity: 2, unitAmount: { value: 25, currencyCode: "USD" } },
        { description: "Call-out fee", quantity: 1, unitAmount: { value: 10, currencyCode: "USD" } },
      ],
    })
    const path = `/Transaction/PaymentRequest/${request.paymentRequestId}/PayWithCard`

    const refused = await call("POST", path, payer.customerToken, { paymentMethodId: declined.id })
    assert.strictEqual(refused.status, 422)
    assert.strictEqual(refused.body.code, "CARD_DECLINED")
    const strangers = await call("POST", path, other.customerToken, { paymentMethodId: good.id })
    assert.strictEqual(strangers.status, 404)
    const unknownCard = await call("POST", path, payer.customerToken, { paymentMethodId: "card_unknown" })
    assert.strictEqual(unknownCard.status, 404)
    assert.strictEqual((await ok("GET", `/Payment/${request.paymentRequestId}`, token)).status, "Pending")

    const paid = await ok("POST", path, payer.customerToken, { paymentMethodId: good.id })
    assert.strictEqual(paid.status, "Paid")
    const again = await ok("POST", path, payer.customerToken, { paymentMethodId: good.id })
    assert.strictEqual(again.cardPaymentId, paid.cardPaymentId)
    const doc = await ok("GET", `/Payment/${request.paymentRequestId}`, token)
    assert.strictEqual(doc.status, "Paid")
    assert.deepStrictEqual(doc.cardPayment, {
      cardPaymentId: paid.cardPaymentId,
      paymentMethodId: good.id,
      brand: "visa",
      last4: "4242",
    })
    assert.strictEqual(doc.invoiceNumber, "INV-7")
    assert.deepStrictEqual(
      doc.lineItems.map((line: Json) => [line.description, line.quantity, line.unitAmount.value, line.amount.value]),
      [
        ["Window cleaning", 2, 25, 50],
        ["Call-out fee", 1, 10, 10],
      ],
    )
    const hooks = await eventually(() => {
      const statuses = statusHooks(request.paymentRequestId)
      return statuses.includes("Paid") ? statuses : undefined
    })
    assert.deepStrictEqual(hooks, ["Pending", "Paid"])
    assertAvailableLater(await cardLine(paid.cardPaymentId))

    const wrongTotal = await call("POST", "/Payment/Create", token, {
      companyId,
      payerRegistrationId: payer.registrationId,
      amount: { value: 60, currencyCode: "USD" },
      description: "Invoice INV-8",
      dueDate: today,
      lineItems: [{ description: "Window cleaning", quantity: 2, unitAmount: { value: 25, currencyCode: "USD" } }],
    })
    assert.strictEqual(wrongTotal.status, 422)
    assert.deepStrictEqual(
      wrongTotal.body.errors.map((error: Json) => error.field),
      ["lineItems"],
    )
  })

  it("a payment with the sandbox card 0259 is disputed one cycle later and lost: its money and the fee leave the balance", {
    timeout: 60_000,
  }, async () => {
    if (token === undefined) await setup()
    const payer = await customer(token, "+14155550134")
    const disputed = await ok("POST", "/Sandbox/CardPaymentMethods", token, {
      registrationId: payer.registrationId,
      last4: "0259",
    })
    const holdings = async () => {
      const balance = (await ok("GET", `/Company/${companyId}/Balance`, token)) as Json
      const payouts = ((await ok("GET", `/Payouts?companyId=${companyId}&limit=100`, token)) as Json)
        .data as ReadonlyArray<Json>
      const cents = (amount: Json) => Math.round(amount.value * 100)
      return (
        cents(balance.available) +
        cents(balance.pending) +
        payouts.reduce((sum, payout) => (payout.status === "Failed" ? sum : sum + cents(payout.amount)), 0)
      )
    }
    const held = await holdings()
    const request = await ok("POST", "/Payment/Create", token, {
      companyId,
      payerRegistrationId: payer.registrationId,
      amount: { value: 40, currencyCode: "USD" },
      description: "Invoice INV-9",
      dueDate: today,
    })
    const paid = await ok(
      "POST",
      `/Transaction/PaymentRequest/${request.paymentRequestId}/PayWithCard`,
      payer.customerToken,
      {
        paymentMethodId: disputed.id,
      },
    )
    assert.strictEqual(paid.status, "Paid")
    const disputes = await eventually(() => {
      const statuses = receiver.received
        .map((hook) => JSON.parse(hook.body) as Json)
        .filter(
          (hook) =>
            hook.Event === "CARD_DISPUTE_STATUS_CHANGED" && hook.Data.PaymentRequestId === request.paymentRequestId,
        )
      return statuses.some((hook) => hook.Data.Status === "Lost") ? statuses : undefined
    })
    assert.deepStrictEqual(
      disputes.map((hook) => [hook.Data.Status, hook.Data.Reason, hook.Data.Amount.value, hook.Data.DisputeId]),
      [
        ["NeedsResponse", "fraudulent", 40, `dp_sandbox_${paid.cardPaymentId}`],
        ["Lost", "fraudulent", 40, `dp_sandbox_${paid.cardPaymentId}`],
      ],
    )
    // The card money came in and went out again with the dispute fee: the company holds 15.00 less than
    // before, across its balance (available and pending) and its payouts (not failed).
    assert.strictEqual((await holdings()) - held, -1_500)
  })

  it("a card-paid request is refunded through the processor, partly then fully, never beyond its amount", {
    timeout: 60_000,
  }, async () => {
    if (token === undefined) await setup()
    const payer = await customer(token, "+14155550135")
    const card = await ok("POST", "/Sandbox/CardPaymentMethods", token, { registrationId: payer.registrationId })
    const request = await ok("POST", "/Payment/Create", token, {
      companyId,
      payerRegistrationId: payer.registrationId,
      amount: { value: 60, currencyCode: "USD" },
      description: "Invoice INV-10",
      dueDate: today,
    })
    await ok("POST", `/Transaction/PaymentRequest/${request.paymentRequestId}/PayWithCard`, payer.customerToken, {
      paymentMethodId: card.id,
    })
    const path = `/Transaction/${request.paymentRequestId}/Refund`
    const partial = await ok("POST", path, token, { amount: { value: 25, currencyCode: "USD" } })
    assert.deepStrictEqual([partial.status, partial.amount.value, partial.refundedAmount.value], ["Completed", 25, 25])
    // Concurrent refunds of 20 each: what is left (35) holds only one.
    const racing = await Promise.all(
      [1, 2, 3].map(() => call("POST", path, token, { amount: { value: 20, currencyCode: "USD" } })),
    )
    assert.deepStrictEqual(racing.map((answer) => answer.status).sort(), [200, 422, 422])
    for (const refused of racing.filter((answer) => answer.status === 422))
      assert.strictEqual(refused.body.code, "REFUND_EXCEEDS_PAYMENT")
    // Each completed card refund is mirrored on the request: partly refunded (still Paid), then Refunded.
    const partly = await ok("GET", `/Payment/${request.paymentRequestId}`, token)
    assert.deepStrictEqual([partly.status, partly.refundedAmount.value], ["Paid", 45])
    const rest = await ok("POST", path, token, {})
    assert.deepStrictEqual([rest.amount.value, rest.refundedAmount.value], [15, 60])
    const refunded = await ok("GET", `/Payment/${request.paymentRequestId}`, token)
    assert.deepStrictEqual([refunded.status, refunded.refundedAmount.value], ["Refunded", 60])
    const nothing = await call("POST", path, token, {})
    assert.strictEqual(nothing.body.code, "NOTHING_TO_REFUND")
    const otherPartner = await call("POST", `/Transaction/${crypto.randomUUID()}/Refund`, token, {})
    assert.strictEqual(otherPartner.status, 404)
    const hooks = await eventually(() => {
      const refunds = receiver.received
        .map((hook) => JSON.parse(hook.body) as Json)
        .filter(
          (hook) => hook.Event === "REFUND_STATUS_CHANGED" && hook.Data.PaymentRequestId === request.paymentRequestId,
        )
      return refunds.length === 6 ? refunds : undefined
    })
    assert.deepStrictEqual(hooks.map((hook) => `${hook.Data.Amount.value}:${hook.Data.Status}`).sort(), [
      "15:Completed",
      "15:Pending",
      "20:Completed",
      "20:Pending",
      "25:Completed",
      "25:Pending",
    ])
  })

  it("a card requiring 3-D Secure is answered RequiresAction; the sandbox's authentication completes it, its money available one cycle later", {
    timeout: 60_000,
  }, async () => {
    if (token === undefined) await setup()
    const payer = await customer(token, "+14155550136")
    const card = await ok("POST", "/Sandbox/CardPaymentMethods", token, {
      registrationId: payer.registrationId,
      last4: "3155",
    })
    const request = await ok("POST", "/Payment/Create", token, {
      companyId,
      payerRegistrationId: payer.registrationId,
      amount: { value: 70, currencyCode: "USD" },
      description: "Invoice INV-3DS",
      dueDate: today,
    })
    const pay = () =>
      ok("POST", `/Transaction/PaymentRequest/${request.paymentRequestId}/PayWithCard`, payer.customerToken, {
        paymentMethodId: card.id,
      })
    const first = await pay()
    assert.strictEqual(first.status, "RequiresAction")
    assert.include(first.clientSecret, first.paymentIntentId)
    assert.strictEqual((await ok("GET", `/Payment/${request.paymentRequestId}`, token)).status, "Pending")
    const authenticate = (outcome: string) =>
      ok("POST", "/Sandbox/CardAuthentications", token, { paymentRequestId: request.paymentRequestId, outcome })
    assert.deepStrictEqual(await authenticate("Failed"), { outcome: "Failed" })
    assert.strictEqual((await ok("GET", `/Payment/${request.paymentRequestId}`, token)).status, "Pending")
    const nothingAwaited = await call("POST", "/Sandbox/CardAuthentications", token, {
      paymentRequestId: request.paymentRequestId,
      outcome: "Succeeded",
    })
    assert.strictEqual(nothingAwaited.status, 404)
    const second = await pay()
    assert.strictEqual(second.status, "RequiresAction")
    assert.notStrictEqual(second.paymentIntentId, first.paymentIntentId)
    assert.deepStrictEqual(await authenticate("Succeeded"), { outcome: "Paid" })
    const paid = await ok("GET", `/Payment/${request.paymentRequestId}`, token)
    assert.deepStrictEqual([paid.status, paid.cardPayment.cardPaymentId], ["Paid", second.cardPaymentId])
    // As every other card payment's: not available at once, on the processor's date.
    assertAvailableLater(await cardLine(second.cardPaymentId))
    await eventually(() =>
      receiver.received
        .map((hook) => JSON.parse(hook.body) as Json)
        .find(
          (hook) =>
            hook.Event === "PAYMENT_REQUEST_STATUS_CHANGED" &&
            hook.Data.PaymentRequestId === request.paymentRequestId &&
            hook.Data.Status === "Paid",
        ),
    )
  })
})
