/**
 * The card processor on Stripe driven through the official `stripe` SDK
 * against a local fake of Stripe answering with Stripe's published example
 * objects: a customer per payer made once, saved cards as its card
 * PaymentMethods, SetupIntents, off-session PaymentIntents keyed by the
 * payment request id, declines with Stripe's decline code, terminal payments
 * found by their reference, refunds keyed by the card refund's id. The
 * requests themselves are typed against the `stripe` package's parameter
 * types in the adapter (`Stripe.PaymentIntentCreateParams`, ...), so the
 * type-check is their contract; here, what goes over the wire.
 */
import { assert, describe, it } from "@effect/vitest"
import { CardCharger, CustomerProviders, type Ids, Money, Providers } from "@partnerpay/domain"
import { DateTime, Effect, Redacted } from "effect"
import * as StripeCardProcessor from "../../src/providers/StripeCardProcessor.ts"
import * as StripeClient from "../../src/providers/StripeClient.ts"
import * as StripeFake from "./StripeFake.ts"

const payer = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f" as Ids.RegistrationId
const paymentRequestId = "0f8a3b2c-1d4e-4f5a-8b6c-7d8e9f0a1b2c"
const partner = "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6d"

const memoryStore = () => {
  const kept = new Map<string, string>()
  const store: StripeCardProcessor.CustomerStore = {
    find: (ownerId) => Effect.succeed(kept.get(ownerId)),
    keep: (ownerId, customerId) =>
      Effect.sync(() => {
        if (!kept.has(ownerId)) kept.set(ownerId, customerId)
        return kept.get(ownerId) as string
      }),
  }
  return { kept, store }
}

const setup = Effect.gen(function* () {
  const fake = yield* StripeFake.start()
  const config: StripeClient.StripeConfig = {
    secretKey: Redacted.make(StripeFake.secretKey),
    webhookSecret: Redacted.make(StripeFake.webhookSecret),
    baseUrl: fake.url,
    timeoutMillis: 5_000,
  }
  const { kept, store } = memoryStore()
  const adapter = StripeCardProcessor.make(StripeClient.client(config), store)
  return { fake, kept, adapter }
})

const usd = (minorUnits: number) => Money.make(minorUnits, "USD")

describe("a payer on Stripe", () => {
  it.effect("without a Stripe customer has no saved cards, and nothing is asked of Stripe", () =>
    Effect.gen(function* () {
      const { fake, adapter } = yield* setup
      assert.deepStrictEqual(yield* adapter.processor.listCardMethods(payer), [])
      assert.strictEqual(fake.requests().length, 0)
    }),
  )

  it.effect("is one Stripe customer, made on first need with an Idempotency-Key and kept", () =>
    Effect.gen(function* () {
      const { fake, kept, adapter } = yield* setup
      const first = yield* adapter.setupCard(payer, partner)
      const second = yield* adapter.setupCard(payer, partner)
      assert.strictEqual(first.customerId, second.customerId)
      assert.strictEqual(kept.get(StripeCardProcessor.payerKey(payer)), first.customerId)
      assert.strictEqual(fake.state.customers.size, 1)
      const made = fake.requests().filter((request) => request.path === "/v1/customers")
      assert.strictEqual(made.length, 1)
      assert.strictEqual(made[0]?.idempotencyKey, `partnerpay-customer-${payer}`)
      assert.strictEqual(made[0]?.form["metadata[partnerpay_registration_id]"], payer)
      assert.strictEqual(made[0]?.form["metadata[partnerpay_partner_id]"], partner)
      assert.match(first.clientSecret, /^seti_.*_secret_/)
      const intents = fake.requests().filter((request) => request.path === "/v1/setup_intents")
      assert.deepStrictEqual(
        intents.map((request) => [request.form.customer, request.form.usage]),
        [
          [first.customerId, "off_session"],
          [first.customerId, "off_session"],
        ],
      )
    }),
  )

  it.effect("saved cards are the customer's card PaymentMethods (last 4 digits, brand, expiry)", () =>
    Effect.gen(function* () {
      const { fake, adapter } = yield* setup
      const { customerId } = yield* adapter.setupCard(payer, partner)
      const card = fake.attachCard(customerId, "4242", "visa")
      assert.deepStrictEqual(yield* adapter.processor.listCardMethods(payer), [
        { id: card.id, type: "card", brand: "visa", last4: "4242", expMonth: 12, expYear: 2034 },
      ])
      const listed = fake.requests().find((request) => request.path.endsWith("/payment_methods"))
      assert.strictEqual(listed?.path, `/v1/customers/${customerId}/payment_methods`)
      assert.strictEqual(listed?.form.type, "card")
    }),
  )

  it.effect("every call carries the account's key and the pinned API version", () =>
    Effect.gen(function* () {
      const { fake, adapter } = yield* setup
      yield* adapter.setupCard(payer, partner)
      for (const request of fake.requests()) {
        assert.isTrue(request.authorized)
        assert.strictEqual(request.stripeVersion, StripeClient.apiVersion)
      }
    }),
  )
})

describe("an in-app card payment on Stripe", () => {
  const answer = (adapter: Effect.Success<typeof setup>["adapter"], paymentMethodId: string, last4: string) =>
    adapter.charger.charge({
      idempotencyKey: paymentRequestId,
      paymentMethodId,
      last4,
      amount: usd(12_345),
      description: "Invoice 42",
    })
  const charge = (adapter: Effect.Success<typeof setup>["adapter"], paymentMethodId: string, last4: string) =>
    Effect.flatMap(answer(adapter, paymentMethodId, last4), (charged) =>
      CardCharger.isAuthenticationRequired(charged) ? Effect.die("authentication required") : Effect.succeed(charged),
    )

  it.effect("is a PaymentIntent confirmed off-session, keyed by the payment request id, charged once", () =>
    Effect.gen(function* () {
      const { fake, adapter } = yield* setup
      const { customerId } = yield* adapter.setupCard(payer, partner)
      const card = fake.attachCard(customerId, "4242")
      const first = yield* charge(adapter, card.id, "4242")
      const again = yield* charge(adapter, card.id, "4242")
      assert.strictEqual(again.processorReference, first.processorReference)
      assert.strictEqual(fake.state.paymentIntents.size, 1)
      const created = fake.requests().filter((request) => request.path === "/v1/payment_intents")
      assert.strictEqual(created[0]?.idempotencyKey, paymentRequestId)
      assert.deepStrictEqual(
        [
          created[0]?.form.amount,
          created[0]?.form.currency,
          created[0]?.form.customer,
          created[0]?.form.payment_method,
          created[0]?.form.confirm,
          created[0]?.form.off_session,
          created[0]?.form["metadata[partnerpay_payment_request_id]"],
        ],
        ["12345", "usd", customerId, card.id, "true", "true", paymentRequestId],
      )
    }),
  )

  it.effect("its money is available on the charge's balance transaction's date", () =>
    Effect.gen(function* () {
      const { fake, adapter } = yield* setup
      const { customerId } = yield* adapter.setupCard(payer, partner)
      const card = fake.attachCard(customerId, "4242")
      const charged = yield* charge(adapter, card.id, "4242")
      const intent = fake.state.paymentIntents.get(charged.processorReference)
      const transaction = fake.state.charges.get(String(intent?.latest_charge))?.balance_transaction as {
        available_on: number
      }
      assert.isDefined(charged.availableAt)
      assert.strictEqual(DateTime.toEpochMillis(charged.availableAt!), transaction.available_on * 1000)
    }),
  )

  it.effect("a declined card is CardDeclined with Stripe's decline code", () =>
    Effect.gen(function* () {
      const { fake, adapter } = yield* setup
      const { customerId } = yield* adapter.setupCard(payer, partner)
      const declined = yield* Effect.flip(charge(adapter, fake.attachCard(customerId, "0002").id, "0002"))
      assert.instanceOf(declined, CardCharger.CardDeclined)
      assert.strictEqual((declined as CardCharger.CardDeclined).code, "generic_decline")
      const poor = yield* Effect.flip(
        adapter.charger.charge({
          idempotencyKey: "another-request",
          paymentMethodId: fake.attachCard(customerId, "9995").id,
          last4: "9995",
          amount: usd(100),
          description: "x",
        }),
      )
      assert.strictEqual((poor as CardCharger.CardDeclined).code, "insufficient_funds")
    }),
  )

  it.effect("a card that needs 3-D Secure answers its PaymentIntent and client secret for the app, not a decline", () =>
    Effect.gen(function* () {
      const { fake, adapter } = yield* setup
      const { customerId } = yield* adapter.setupCard(payer, partner)
      const card = fake.attachCard(customerId, "3155")
      const first = yield* answer(adapter, card.id, "3155")
      const again = yield* answer(adapter, card.id, "3155")
      assert.isTrue(CardCharger.isAuthenticationRequired(first))
      const intent = fake.state.paymentIntents.get(first.processorReference)
      assert.deepStrictEqual(
        [
          CardCharger.isAuthenticationRequired(first) ? first.clientSecret : undefined,
          intent?.metadata?.partnerpay_payment_request_id,
          fake.state.paymentIntents.size,
        ],
        [intent?.client_secret, paymentRequestId, 1],
      )
      assert.deepStrictEqual(again, first)
    }),
  )

  it.effect("Stripe failing is ProviderUnavailable naming the operation, never the key", () =>
    Effect.gen(function* () {
      const { fake, adapter } = yield* setup
      const { customerId } = yield* adapter.setupCard(payer, partner)
      const card = fake.attachCard(customerId, "4242")
      fake.failNext("500")
      const failed = yield* Effect.flip(charge(adapter, card.id, "4242"))
      assert.instanceOf(failed, Providers.ProviderUnavailable)
      const reason = (failed as Providers.ProviderUnavailable).reason
      assert.include(reason, "paymentMethods.retrieve: Stripe answered 500")
      assert.notInclude(reason, StripeFake.secretKey)
    }),
  )
})

describe("a card refund on Stripe", () => {
  const paid = Effect.gen(function* () {
    const context = yield* setup
    const { customerId } = yield* context.adapter.setupCard(payer, partner)
    const card = context.fake.attachCard(customerId, "4242")
    const charged = yield* context.adapter.charger.charge({
      idempotencyKey: paymentRequestId,
      paymentMethodId: card.id,
      last4: "4242",
      amount: usd(10_000),
      description: "Invoice 42",
    })
    return { ...context, reference: charged.processorReference }
  })

  it.effect("is a Stripe Refund of the PaymentIntent, keyed by the refund id, naming the card payment", () =>
    Effect.gen(function* () {
      const { fake, adapter, reference } = yield* paid
      const partial = { idempotencyKey: "refund-1", amount: usd(2_500), cardPaymentId: "card-payment-1" }
      yield* adapter.charger.refund(reference, partial)
      yield* adapter.charger.refund(reference, partial)
      assert.strictEqual(fake.state.refunds.size, 1)
      const sent = fake.requests().filter((request) => request.path === "/v1/refunds")
      assert.strictEqual(sent[0]?.idempotencyKey, "refund-1")
      assert.deepStrictEqual(
        [
          sent[0]?.form.payment_intent,
          sent[0]?.form.amount,
          sent[0]?.form["metadata[partnerpay_refund_id]"],
          sent[0]?.form["metadata[partnerpay_card_payment_id]"],
        ],
        [reference, "2500", "refund-1", "card-payment-1"],
      )
    }),
  )

  it.effect("pending at Stripe is answered Pending (accepted: its webhook decides, never asked again)", () =>
    Effect.gen(function* () {
      const { fake, adapter, reference } = yield* paid
      fake.refundStatus("pending")
      const answer = yield* adapter.charger.refund(reference, { idempotencyKey: "refund-2", amount: usd(100) })
      assert.strictEqual(answer, "Pending")
    }),
  )

  it.effect("more than what is left is refused by Stripe and nothing is refunded", () =>
    Effect.gen(function* () {
      const { fake, adapter, reference } = yield* paid
      const failed = yield* Effect.flip(
        adapter.charger.refund(reference, { idempotencyKey: "refund-3", amount: usd(10_001) }),
      )
      assert.instanceOf(failed, Providers.ProviderUnavailable)
      assert.strictEqual(fake.state.refunds.size, 0)
    }),
  )
})

describe("a terminal card payment on Stripe (POST /cardpayment)", () => {
  const request = (externalReference: string, minorUnits = 5_000) => ({
    cardPaymentId: "card-payment-9" as Ids.CardPaymentId,
    merchantId: "merchant-1" as Ids.MerchantId,
    amount: usd(minorUnits),
    last4: "4242",
    brand: "visa",
    externalReference,
  })

  it.effect("its PaymentIntent is retrieved, checked, tagged with the card payment, and recorded", () =>
    Effect.gen(function* () {
      const { fake, adapter } = yield* setup
      const terminal = fake.terminalPayment(5_000, "usd")
      const registered = yield* adapter.processor.registerCardPayment(request(terminal.id))
      assert.strictEqual(registered.processorReference, terminal.id)
      assert.isDefined(registered.availableAt)
      assert.strictEqual(
        fake.state.paymentIntents.get(terminal.id)?.metadata.partnerpay_card_payment_id,
        "card-payment-9",
      )
    }),
  )

  it.effect("another amount, an unknown reference or no Stripe reference is refused", () =>
    Effect.gen(function* () {
      const { fake, adapter } = yield* setup
      const terminal = fake.terminalPayment(5_000, "usd")
      const codes = []
      for (const asked of [request(terminal.id, 4_999), request("pi_unknown"), request("TERMINAL-123")]) {
        const refused = yield* Effect.flip(adapter.processor.registerCardPayment(asked))
        assert.instanceOf(refused, CustomerProviders.CardProcessorRefused)
        codes.push((refused as CustomerProviders.CardProcessorRefused).code)
      }
      assert.deepStrictEqual(codes, ["amount_mismatch", "stripe_reference_unknown", "stripe_reference_required"])
    }),
  )
})
