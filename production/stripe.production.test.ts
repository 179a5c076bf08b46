/**
 * Production with the card processor on Stripe (issue 38): the service process
 * starts with PARTNERPAY_ENV=production on PostgreSQL, its required ports and
 * KYB on HTTP bridges (a local fake bridge) and its card processor on Stripe's
 * official SDK pointed at the Stripe fake (Stripe's published example objects).
 *
 * The walk: the start lists e-signature and push as off, not the card
 * processor; a company verified through the KYB bridge; a terminal card payment
 * registered by its Stripe PaymentIntent (tagged at Stripe with our id; one
 * without a Stripe reference refused), its money pending until Stripe's
 * availability date (no payout can take it); a partial card refund as a Stripe
 * Refund keyed by the refund id; a dispute opened by Stripe's signed webhook
 * (its amount and fee out of the balance; a forged one refused, a replay
 * changing nothing) and lost; a second payment's dispute won (the money back).
 * Then a payout that waits for the card money's availability: with a card fee
 * and a payout account, a payment available at once is paid out (net of its fee)
 * while a payment Stripe makes available a few seconds later stays pending; the
 * first payout cycle after its date pays it out, net of its fee.
 */
import { createHmac } from "node:crypto"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { call, companyBody, freshDatabase, tempDir } from "../faults/support.ts"
import * as PgDatabase from "../packages/adapters-pg/src/PgDatabase.ts"
import * as FakeProvider from "../packages/app/test/providers/FakeProvider.ts"
import * as StripeFake from "../packages/app/test/providers/StripeFake.ts"
import { killAll, startService } from "../packages/app/test/support.ts"

const cleanups: Array<() => void | Promise<void>> = []
afterAll(async () => {
  killAll()
  for (const cleanup of cleanups.reverse()) await cleanup()
})

const adminToken = "an-operator-token-of-at-least-32-characters"

/** `Stripe-Signature` of `payload` as Stripe makes it: `t=<seconds>,v1=<hex HMAC-SHA256 of "t.payload">`. */
const stripeSignature = (payload: string, secret = StripeFake.webhookSecret, ageSeconds = 0) => {
  const timestamp = Math.floor(Date.now() / 1000) - ageSeconds
  const signature = createHmac("sha256", secret).update(`${timestamp}.${payload}`).digest("hex")
  return `t=${timestamp},v1=${signature}`
}

/** The service in production: bridges for the required ports and KYB, the card processor on Stripe's fake. */
const startStripeService = (label: string, extra: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const bridge = yield* FakeProvider.start()
    bridge.script("submit", [{ status: 200, body: { submissionId: "kyb-submission-1" } }])
    bridge.script("status", [{ status: 200, body: { status: "Verified" } }])
    const stripe = yield* StripeFake.start()
    const database = freshDatabase(label)
    const data = tempDir(label)
    cleanups.push(database.drop, data.remove)
    const bridged = Object.fromEntries(
      ["OTP", "KYC", "BANK_LINKING", "MONEY_MOVEMENT", "KYB"].flatMap((key) => [
        [`PARTNERPAY_PROVIDER_${key}_URL`, bridge.url],
        [`PARTNERPAY_PROVIDER_${key}_SECRET`, Redacted.value(bridge.secret)],
      ]),
    )
    const service = yield* Effect.promise(() =>
      startService(
        {
          PORT: "0",
          PARTNERPAY_ENV: "production",
          DATABASE_URL: database.url,
          PARTNERPAY_DATA_DIR: data.dir,
          PARTNERPAY_TOKEN_SECRET: "a-token-secret-of-at-least-32-bytes-long",
          PARTNERPAY_SECRET_PEPPER: "a-client-secret-pepper-of-at-least-32-bytes",
          PARTNERPAY_DATA_KEY: "d".repeat(64),
          PARTNERPAY_OTP_SECRET: "an-otp-secret-of-at-least-32-characters",
          PARTNERPAY_CHAT_SECRET: "a-chat-secret-of-at-least-32-characters",
          PARTNERPAY_ADMIN_TOKEN: adminToken,
          ...bridged,
          PARTNERPAY_KYB_POLL_MS: "200",
          PARTNERPAY_PROVIDER_CARD_PROCESSOR: "stripe",
          PARTNERPAY_STRIPE_SECRET_KEY: StripeFake.secretKey,
          PARTNERPAY_STRIPE_WEBHOOK_SECRET: StripeFake.webhookSecret,
          PARTNERPAY_STRIPE_BASE_URL: stripe.url,
          ...extra,
        },
        60_000,
      ),
    )
    cleanups.push(() => service.stop().then(() => undefined))
    return { bridge, stripe, service, database }
  })

/** The payers' Stripe references as stored (`provider_funding_sources`). */
const keptReferences = (url: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient
    const rows = yield* sql<{ readonly funding_source: string }>`
      SELECT funding_source FROM provider_funding_sources WHERE provider = 'Stripe'`
    return rows.map((row) => row.funding_source)
  }).pipe(Effect.provide(PgDatabase.layerPostgres(url, { maxConnections: 1 })), Effect.orDie)

describe("production with the card processor on Stripe", () => {
  it.live(
    "a terminal payment found at Stripe, pending until available, partly refunded, disputed (lost, then won) by signed webhooks",
    () =>
      Effect.gen(function* () {
        const { stripe, service } = yield* startStripeService("stripe")
        const base = service.url
        // The card processor is on: only e-signature and the message channels are listed as off.
        let off: string | undefined
        for (let wait = 0; wait < 100 && off === undefined; wait++) {
          off = service.output.find((line) => line.includes("optional capabilities off"))
          if (off === undefined) yield* Effect.sleep("50 millis")
        }
        if (off === undefined) return assert.fail(`no capability listed as off:\n${service.output.join("\n")}`)
        assert.include(off, "[PARTNERPAY_PROVIDER_E_SIGNATURE]")
        assert.include(off, "[PARTNERPAY_PROVIDER_PUSH]")
        assert.notInclude(off, "[PARTNERPAY_PROVIDER_CARD_PROCESSOR]")
        assert.notInclude(service.output.join("\n"), StripeFake.secretKey)

        const partner = yield* Effect.promise(() =>
          call(base, "POST", "/admin/partners", { token: adminToken, body: { name: "Acme" } }),
        )
        assert.strictEqual(partner.status, 201, partner.text)
        const { clientId, clientSecret } = partner.body as { clientId: string; clientSecret: string }
        const token = yield* Effect.promise(() =>
          call(base, "POST", "/auth/token", { body: { ClientId: clientId, ClientSecret: clientSecret } }),
        )
        const partnerToken = (token.body as { AccessToken: string }).AccessToken

        // A company verified through the KYB bridge (the KYB worker submits it, then polls its verdict).
        const registered = yield* Effect.promise(() =>
          call(base, "POST", "/Company/Create", {
            token: partnerToken,
            body: companyBody({ companyReferenceId: "stripe-walk" }),
          }),
        )
        assert.strictEqual(registered.status, 200, registered.text)
        const companyId = (registered.body as { companyId: string }).companyId
        let status: string | undefined
        for (let attempt = 0; attempt < 400 && status !== "Verified"; attempt++) {
          const answer = yield* Effect.promise(() =>
            call(base, "GET", `/company/status?companyId=${companyId}`, { token: partnerToken }),
          )
          status = (answer.body as { Status: string }).Status
          if (status !== "Verified") yield* Effect.sleep("50 millis")
        }
        assert.strictEqual(status, "Verified")

        const balance = () =>
          Effect.promise(() => call(base, "GET", `/Company/${companyId}/Balance`, { token: partnerToken })).pipe(
            Effect.map((answer) => {
              assert.strictEqual(answer.status, 200, answer.text)
              const { available, pending } = answer.body as {
                available: { value: number }
                pending: { value: number }
              }
              return { available: Math.round(available.value * 100), pending: Math.round(pending.value * 100) }
            }),
          )
        const terminal = (externalReference: string, value: number) =>
          Effect.promise(() =>
            call(base, "POST", "/cardpayment", {
              token: partnerToken,
              body: {
                merchantId: companyId,
                amount: { value, currencyCode: "USD" },
                last4: "4242",
                brand: "visa",
                externalReference,
              },
            }),
          )

        // A terminal payment made elsewhere, named by its Stripe PaymentIntent: found, checked, tagged.
        const intent = stripe.terminalPayment(4_000, "usd")
        const registeredPayment = yield* terminal(intent.id, 40)
        assert.strictEqual(registeredPayment.status, 200, registeredPayment.text)
        const cardPaymentId = (registeredPayment.body as { cardPaymentId: string }).cardPaymentId
        assert.strictEqual(
          stripe.state.paymentIntents.get(intent.id)?.metadata.partnerpay_card_payment_id,
          cardPaymentId,
        )
        const unnamed = yield* terminal("TERMINAL-0001", 40)
        assert.strictEqual(unnamed.status, 422, unnamed.text)
        assert.include(unnamed.text, "stripe_reference_required")
        // Its money waits for Stripe's availability date (a day away): pending, nothing to pay out.
        assert.deepStrictEqual(yield* balance(), { available: 0, pending: 4_000 })

        // A partial card refund: a Stripe Refund of the PaymentIntent, keyed by the refund id, Completed.
        const refund = yield* Effect.promise(() =>
          call(base, "POST", `/Transaction/${cardPaymentId}/Refund`, {
            token: partnerToken,
            body: { amount: { value: 10, currencyCode: "USD" }, reason: "one item returned" },
          }),
        )
        assert.strictEqual(refund.status, 200, refund.text)
        const { refundId } = refund.body as { refundId: string }
        assert.include(refund.text, '"Completed"')
        const sent = stripe.requests().filter((request) => request.path === "/v1/refunds")
        assert.strictEqual(sent.length, 1)
        assert.strictEqual(sent[0]?.idempotencyKey, refundId)
        assert.strictEqual(sent[0]?.form.payment_intent, intent.id)
        assert.strictEqual(sent[0]?.form.amount, "1000")
        const total = Effect.map(balance(), (b) => b.available + b.pending)
        assert.strictEqual(yield* total, 3_000)

        // Stripe's webhooks: a dispute of the payment (40.00 and Stripe's 15.00 fee out at once).
        let events = 0
        const webhook = (
          type: string,
          object: unknown,
          options: { readonly id?: string; readonly secret?: string; readonly ageSeconds?: number } = {},
        ) => {
          events += 1
          const payload = JSON.stringify({
            id: options.id ?? `evt_walk_${events}`,
            object: "event",
            api_version: "2026-10-28.endive",
            created: Math.floor(Date.now() / 1000),
            livemode: false,
            pending_webhooks: 1,
            request: { id: null, idempotency_key: null },
            type,
            data: { object },
          })
          return Effect.promise(() =>
            call(base, "POST", "/providers/stripe/webhooks", {
              rawBody: payload,
              headers: {
                "content-type": "application/json",
                "stripe-signature": stripeSignature(payload, options.secret, options.ageSeconds),
              },
            }),
          )
        }
        const dispute = (id: string, charge: string, amount: number, disputeStatus: string) => ({
          id,
          object: "dispute",
          amount,
          currency: "usd",
          charge,
          reason: "fraudulent",
          status: disputeStatus,
          balance_transactions: [{ id: `txn_${id}`, object: "balance_transaction", amount: -amount, fee: 1_500 }],
          metadata: {},
        })
        const lost = dispute("dp_walk_lost", String(intent.latest_charge), 4_000, "needs_response")
        const forged = yield* webhook("charge.dispute.created", lost, { secret: "whsec_not_the_endpoint_secret" })
        assert.strictEqual(forged.status, 401, forged.text)
        const stale = yield* webhook("charge.dispute.created", lost, { ageSeconds: 900 })
        assert.strictEqual(stale.status, 401, stale.text)
        assert.strictEqual(yield* total, 3_000)
        const opened = yield* webhook("charge.dispute.created", lost, { id: "evt_walk_dispute_opened" })
        assert.strictEqual(opened.status, 200, opened.text)
        assert.strictEqual(yield* total, 3_000 - 4_000 - 1_500)
        const replayed = yield* webhook("charge.dispute.created", lost, { id: "evt_walk_dispute_opened" })
        assert.strictEqual(replayed.status, 200, replayed.text)
        assert.strictEqual(yield* total, 3_000 - 4_000 - 1_500)
        const closedLost = yield* webhook("charge.dispute.closed", { ...lost, status: "lost" })
        assert.strictEqual(closedLost.status, 200, closedLost.text)
        assert.strictEqual(yield* total, 3_000 - 4_000 - 1_500)

        // A second payment disputed and won: its amount and fee given back.
        const second = stripe.terminalPayment(2_000, "usd")
        assert.strictEqual((yield* terminal(second.id, 20)).status, 200)
        const before = yield* total
        const won = dispute("dp_walk_won", String(second.latest_charge), 2_000, "needs_response")
        assert.strictEqual((yield* webhook("charge.dispute.created", won)).status, 200)
        assert.strictEqual(yield* total, before - 2_000 - 1_500)
        assert.strictEqual((yield* webhook("charge.dispute.closed", { ...won, status: "won" })).status, 200)
        assert.strictEqual(yield* total, before)
        // Still nothing available: no payout took card money before its date.
        assert.strictEqual((yield* balance()).available <= 0, true)
      }).pipe(Effect.scoped),
    180_000,
  )

  it.live(
    "a payer's saved card pays in the app; a decline is 422 with Stripe's code; 3-D Secure is answered and completed by Stripe's webhook; a refund Stripe could not take is retried",
    () =>
      Effect.gen(function* () {
        const { bridge, stripe, service, database } = yield* startStripeService("stripe_payer", {
          PARTNERPAY_CARD_REFUND_RETRY_MS: "200",
        })
        const base = service.url
        const ask = (method: string, path: string, token: string, body?: unknown) =>
          Effect.promise(() => call(base, method, path, { token, ...(body === undefined ? {} : { body }) }))
        const partner = yield* Effect.promise(() =>
          call(base, "POST", "/admin/partners", { token: adminToken, body: { name: "Acme" } }),
        )
        const { clientId, clientSecret } = partner.body as { clientId: string; clientSecret: string }
        const token = yield* Effect.promise(() =>
          call(base, "POST", "/auth/token", { body: { ClientId: clientId, ClientSecret: clientSecret } }),
        )
        const partnerToken = (token.body as { AccessToken: string }).AccessToken
        const registered = yield* ask(
          "POST",
          "/Company/Create",
          partnerToken,
          companyBody({ companyReferenceId: "payer-walk" }),
        )
        const companyId = (registered.body as { companyId: string }).companyId

        // The payer: logged in with the code the OTP bridge delivered, verified by the KYC bridge.
        bridge.script("send", [{ status: 200, body: {} }])
        const phoneNumber = "+15557654399"
        assert.strictEqual((yield* ask("POST", "/Login/SendOtp", partnerToken, { phoneNumber })).status, 200)
        const delivery = bridge.received().find((received) => received.operation === "send")
        const code = (delivery?.body as { code: string } | undefined)?.code
        const checked = yield* ask("PUT", "/Login/CheckOtp", partnerToken, { phoneNumber, code })
        assert.strictEqual(checked.status, 200, checked.text)
        const { accessToken: payerToken, registrationId } = checked.body as {
          accessToken: string
          registrationId: string
        }
        bridge.script("start", [{ status: 200, body: { linkToken: "link-1", expiration: "2099-01-01T00:00:00.000Z" } }])
        bridge.script("check", [
          {
            status: 200,
            body: {
              status: "Verified",
              referenceId: "5f0e4d7e-9a51-4c3d-8e4f-5a6b7c8d9e0f",
              redirectUrl: "https://kyc.test/done",
            },
          },
        ])
        bridge.script("personal-data", [
          {
            status: 200,
            body: {
              firstName: "Ada",
              lastName: "Payer",
              birthDate: "1990-01-01",
              ssnLastFourDigits: "6789",
              emailAddress: "ada@example.test",
              phoneNumber,
            },
          },
        ])
        const kyc = yield* ask("POST", "/Verification/StartKyc", payerToken, { deviceId: "device-1" })
        assert.strictEqual(kyc.status, 200, kyc.text)
        const verified = yield* ask("GET", "/Verification/CheckVerification", payerToken)
        assert.strictEqual((verified.body as { status: string }).status, "Verified", verified.text)
        // The company verified through the KYB bridge (its worker submits it, then polls its verdict).
        let status: string | undefined
        for (let attempt = 0; attempt < 400 && status !== "Verified"; attempt++) {
          const answer = yield* ask("GET", `/company/status?companyId=${companyId}`, partnerToken)
          status = (answer.body as { Status: string }).Status
          if (status !== "Verified") yield* Effect.sleep("50 millis")
        }
        assert.strictEqual(status, "Verified")

        let events = 0
        const webhook = (type: string, object: unknown) => {
          events += 1
          const payload = JSON.stringify({
            id: `evt_payer_${events}`,
            object: "event",
            api_version: "2026-10-28.endive",
            created: Math.floor(Date.now() / 1000),
            livemode: false,
            pending_webhooks: 1,
            request: { id: null, idempotency_key: null },
            type,
            data: { object },
          })
          return Effect.promise(() =>
            call(base, "POST", "/providers/stripe/webhooks", {
              rawBody: payload,
              headers: { "content-type": "application/json", "stripe-signature": stripeSignature(payload) },
            }),
          ).pipe(
            Effect.map((answer) => {
              assert.strictEqual(answer.status, 200, answer.text)
              return answer
            }),
          )
        }

        // A saved card: a SetupIntent for the app, Stripe's setup_intent.succeeded saves the card.
        const saveCard = (last4: string) =>
          Effect.gen(function* () {
            const setup = yield* ask("POST", `/Payment/CardPaymentMethods/${registrationId}/Setup`, payerToken)
            assert.strictEqual(setup.status, 200, setup.text)
            const { setupIntentId, clientSecret: secret } = setup.body as {
              setupIntentId: string
              clientSecret: string
            }
            const intent = stripe.state.setupIntents.get(setupIntentId)
            assert.strictEqual(intent?.client_secret, secret)
            const method = stripe.attachCard(String(intent?.customer), last4)
            yield* webhook("setup_intent.succeeded", { ...intent, payment_method: method.id, status: "succeeded" })
            return method.id
          })
        const plain = yield* saveCard("4242")
        const declining = yield* saveCard("0002")
        const authenticating = yield* saveCard("3155")
        const listed = yield* ask("GET", `/Payment/CardPaymentMethods/${registrationId}`, payerToken)
        for (const id of [plain, declining, authenticating]) assert.include(listed.text, id)
        // The payer's Stripe customer is kept sealed with the payer (docs/decisions.md): not in clear.
        const customerId = [...stripe.state.setupIntents.values()].map((intent) => String(intent.customer))[0]
        const kept = yield* keptReferences(database.url)
        assert.lengthOf(kept, 1)
        assert.isTrue(kept[0]?.startsWith("sealed:"))
        assert.notInclude(kept[0], String(customerId))

        const request = (value: number) =>
          Effect.map(
            ask("POST", "/Payment/Create", partnerToken, {
              companyId,
              payerRegistrationId: registrationId,
              amount: { value, currencyCode: "USD" },
              description: `Invoice ${value}`,
              dueDate: "2099-01-01",
            }),
            (created) => {
              assert.strictEqual(created.status, 200, created.text)
              return (created.body as { paymentRequestId: string }).paymentRequestId
            },
          )
        const payWith = (paymentRequestId: string, paymentMethodId: string) =>
          ask("POST", `/Transaction/PaymentRequest/${paymentRequestId}/PayWithCard`, payerToken, { paymentMethodId })
        const statusOf = (paymentRequestId: string) =>
          Effect.map(ask("GET", `/Payment/${paymentRequestId}`, partnerToken), (answer) => {
            const body = answer.body as { status: string; refundedAmount: { value: number } }
            return { status: body.status, refunded: Math.round(body.refundedAmount.value * 100) }
          })

        // An in-app card payment: a PaymentIntent confirmed off-session, keyed by the request id: Paid.
        const paid = yield* request(30)
        const payment = yield* payWith(paid, plain)
        assert.strictEqual(payment.status, 200, payment.text)
        assert.strictEqual((payment.body as { status: string }).status, "Paid")
        const created = stripe.requests().filter((sent) => sent.path === "/v1/payment_intents")
        assert.strictEqual(created.at(-1)?.idempotencyKey, paid)
        assert.deepStrictEqual(yield* statusOf(paid), { status: "Paid", refunded: 0 })

        // A decline: 422 CARD_DECLINED naming Stripe's decline code; the request stays Pending.
        const declined = yield* request(31)
        const refused = yield* payWith(declined, declining)
        assert.strictEqual(refused.status, 422, refused.text)
        assert.include(refused.text, "CARD_DECLINED")
        assert.include(refused.text, "generic_decline")
        assert.deepStrictEqual(yield* statusOf(declined), { status: "Pending", refunded: 0 })

        // 3-D Secure: answered RequiresAction with the PaymentIntent's client secret; the request stays Pending.
        const secured = yield* request(32)
        const answer = yield* payWith(secured, authenticating)
        assert.strictEqual(answer.status, 200, answer.text)
        const action = answer.body as { status: string; paymentIntentId: string; clientSecret: string }
        assert.strictEqual(action.status, "RequiresAction")
        assert.strictEqual(stripe.state.paymentIntents.get(action.paymentIntentId)?.client_secret, action.clientSecret)
        assert.deepStrictEqual(yield* statusOf(secured), { status: "Pending", refunded: 0 })
        // The payer fails the challenge: still Pending; authenticates the next attempt: Paid by Stripe's webhook.
        yield* webhook("payment_intent.payment_failed", stripe.authenticate(action.paymentIntentId, false))
        assert.deepStrictEqual(yield* statusOf(secured), { status: "Pending", refunded: 0 })
        const again = (yield* payWith(secured, authenticating)).body as { status: string; paymentIntentId: string }
        assert.strictEqual(again.status, "RequiresAction")
        assert.notStrictEqual(again.paymentIntentId, action.paymentIntentId)
        yield* webhook("payment_intent.succeeded", stripe.authenticate(again.paymentIntentId, true))
        assert.deepStrictEqual(yield* statusOf(secured), { status: "Paid", refunded: 0 })

        // A refund Stripe could not take (500): Pending; the retry worker asks again: Completed, mirrored.
        stripe.failNext("500")
        const refund = yield* ask("POST", `/Transaction/${paid}/Refund`, partnerToken, {
          amount: { value: 10, currencyCode: "USD" },
        })
        assert.strictEqual(refund.status, 200, refund.text)
        assert.strictEqual((refund.body as { status: string }).status, "Pending")
        let mirrored = yield* statusOf(paid)
        for (let wait = 0; wait < 200 && mirrored.refunded === 0; wait++) {
          yield* Effect.sleep("50 millis")
          mirrored = yield* statusOf(paid)
        }
        assert.deepStrictEqual(mirrored, { status: "Paid", refunded: 1_000 })
        // The rest refunded at once: the request is Refunded.
        const rest = yield* ask("POST", `/Transaction/${paid}/Refund`, partnerToken, {})
        assert.strictEqual((rest.body as { status: string }).status, "Completed", rest.text)
        assert.deepStrictEqual(yield* statusOf(paid), { status: "Refunded", refunded: 3_000 })
      }).pipe(Effect.scoped),
    180_000,
  )
  it.live(
    "a payout waits for the card money's availability date: none takes it before, the next cycle after pays it out net of the fee",
    () =>
      Effect.gen(function* () {
        // The bank rail on its own bridge (its `status` is not the KYB bridge's): payouts originated, Settled.
        const bank = yield* FakeProvider.start()
        bank.script("payouts", [
          { status: 200, body: { providerReference: "bank-payout-1" } },
          { status: 200, body: { providerReference: "bank-payout-2" } },
        ])
        bank.script("status", [{ status: 200, body: { status: "Settled" } }])
        const { stripe, service } = yield* startStripeService("stripe_payout", {
          PARTNERPAY_PROVIDER_MONEY_MOVEMENT_URL: bank.url,
          PARTNERPAY_PROVIDER_MONEY_MOVEMENT_SECRET: Redacted.value(bank.secret),
          // A company's available balance is paid out every second (never below 1.00 USD).
          PARTNERPAY_PAYOUT_INTERVAL_MS: "1000",
          // The payout workers look for work every 200 ms (production: as often as the bank rail is polled).
          PARTNERPAY_MONEY_MOVEMENT_POLL_MS: "200",
        })
        const base = service.url
        const ask = (method: string, path: string, token: string, body?: unknown) =>
          Effect.promise(() => call(base, method, path, { token, ...(body === undefined ? {} : { body }) })).pipe(
            Effect.map((answer) => {
              assert.strictEqual(answer.status, 200, `${method} ${path}: ${answer.text}`)
              return answer
            }),
          )
        const partner = yield* Effect.promise(() =>
          call(base, "POST", "/admin/partners", { token: adminToken, body: { name: "Acme" } }),
        )
        assert.strictEqual(partner.status, 201, partner.text)
        const { partnerId, clientId, clientSecret } = partner.body as {
          partnerId: string
          clientId: string
          clientSecret: string
        }
        // The operator's card fee: 2% + 0.30 a payment (1.30 of 50.00, 1.10 of 40.00).
        yield* ask("PUT", `/admin/partners/${partnerId}/fees/Card`, adminToken, {
          percentageBasisPoints: 200,
          fixed: { value: 0.3, currencyCode: "USD" },
        })
        const token = yield* Effect.promise(() =>
          call(base, "POST", "/auth/token", { body: { ClientId: clientId, ClientSecret: clientSecret } }),
        )
        const partnerToken = (token.body as { AccessToken: string }).AccessToken
        const registered = yield* ask(
          "POST",
          "/Company/Create",
          partnerToken,
          companyBody({ companyReferenceId: "payout-walk" }),
        )
        const companyId = (registered.body as { companyId: string }).companyId
        let status: string | undefined
        for (let attempt = 0; attempt < 400 && status !== "Verified"; attempt++) {
          const answer = yield* ask("GET", `/company/status?companyId=${companyId}`, partnerToken)
          status = (answer.body as { Status: string }).Status
          if (status !== "Verified") yield* Effect.sleep("50 millis")
        }
        assert.strictEqual(status, "Verified")
        yield* ask("PUT", `/Company/${companyId}/PayoutAccount`, partnerToken, {
          accountHolderName: "Walk Plumbing LLC",
          routingNumber: "011000015",
          accountNumber: "123456789",
          accountType: "Checking",
        })

        const terminal = (intentId: string, value: number) =>
          Effect.map(
            ask("POST", "/cardpayment", partnerToken, {
              merchantId: companyId,
              amount: { value, currencyCode: "USD" },
              last4: "4242",
              brand: "visa",
              externalReference: intentId,
            }),
            (answer) => (answer.body as { cardPaymentId: string }).cardPaymentId,
          )
        // A payment whose money Stripe makes available in 8 seconds, then one available at once.
        const waiting = stripe.terminalPayment(4_000, "usd", 8)
        const transaction = stripe.state.charges.get(String(waiting.latest_charge))?.balance_transaction
        if (typeof transaction !== "object" || transaction === null) return assert.fail("no balance transaction")
        const availableOn = transaction.available_on * 1000
        const waitingId = yield* terminal(waiting.id, 40)
        const readyId = yield* terminal(stripe.terminalPayment(5_000, "usd", 0).id, 50)

        type Payout = { payoutId: string; createdAt: string; amount: { value: number }; status: string }
        const payouts = () =>
          Effect.map(ask("GET", `/Payouts?companyId=${companyId}`, partnerToken), (answer) =>
            [...(answer.body as { data: ReadonlyArray<Payout> }).data].reverse(),
          )
        const itemsOf = (payoutId: string) =>
          Effect.map(ask("GET", `/Payouts/${payoutId}/Items`, partnerToken), (answer) =>
            (answer.body as { data: ReadonlyArray<{ itemId: string; amount: { value: number } }> }).data.map(
              (item) => [item.itemId, Math.round(item.amount.value * 100)] as const,
            ),
          )
        const until = (count: number) =>
          Effect.gen(function* () {
            let found = yield* payouts()
            for (let attempt = 0; attempt < 600 && found.length < count; attempt++) {
              yield* Effect.sleep("50 millis")
              found = yield* payouts()
            }
            assert.isAtLeast(found.length, count, "no payout")
            return found
          })

        // The first cycle pays out what is available: the ready payment net of its fee, not the waiting one.
        const [first] = yield* until(1)
        assert.isBelow(
          Date.parse(String(first?.createdAt)),
          availableOn,
          "the first payout came after the availability date: the machine is too slow for this walk",
        )
        assert.deepStrictEqual(yield* itemsOf(String(first?.payoutId)), [
          [`${readyId}:card`, 5_000],
          [`${readyId}:fee`, -130],
        ])
        assert.strictEqual(Math.round(Number(first?.amount.value) * 100), 4_870)
        // Before its date (when the answers came before it), the waiting payment's money is pending (net of
        // its fee) and no other payout took it.
        const before = yield* ask("GET", `/Company/${companyId}/Balance`, partnerToken)
        const listedBefore = yield* payouts()
        if (Date.now() < availableOn) {
          const { available, pending } = before.body as { available: { value: number }; pending: { value: number } }
          assert.strictEqual(Math.round(available.value * 100), 0, before.text)
          assert.strictEqual(Math.round(pending.value * 100), 4_000 - 110, before.text)
          assert.lengthOf(listedBefore, 1)
        }

        // Once the date has passed, the next cycle pays the waiting payment out, net of its fee.
        const [, second] = yield* until(2)
        assert.isAtLeast(Date.parse(String(second?.createdAt)), availableOn)
        assert.deepStrictEqual(yield* itemsOf(String(second?.payoutId)), [
          [`${waitingId}:card`, 4_000],
          [`${waitingId}:fee`, -110],
        ])
        assert.strictEqual(Math.round(Number(second?.amount.value) * 100), 3_890)
        // Both went to the bank rail for their net amounts, keyed by their payout ids; nothing left.
        const originated = () => bank.received().filter((received) => received.operation === "payouts")
        for (let attempt = 0; attempt < 400 && originated().length < 2; attempt++) yield* Effect.sleep("50 millis")
        assert.deepStrictEqual(
          originated().map((received) => {
            const body = received.body as { idempotencyKey: string; amount: { minorUnits: number } }
            return [body.idempotencyKey, body.amount.minorUnits]
          }),
          [
            [first?.payoutId, 4_870],
            [second?.payoutId, 3_890],
          ],
        )
        const after = yield* ask("GET", `/Company/${companyId}/Balance`, partnerToken)
        const { available, pending } = after.body as { available: { value: number }; pending: { value: number } }
        assert.deepStrictEqual([available.value, pending.value], [0, 0], after.text)
      }).pipe(Effect.scoped),
    180_000,
  )
})
