/**
 * Stripe's webhooks (POST /providers/stripe/webhooks, production with the
 * card processor on Stripe), verified with the SDK's Stripe-Signature check:
 * a dispute of a company's card payment opened (its amount and Stripe's fee
 * out of the balance at once), replayed (nothing more), won (back); a card
 * refund left pending decided by Stripe later (failed: the money back; its
 * charge refunded: completed); forged, stale and unsigned ones refused; a
 * dispute of a payment partnerpay does not know acknowledged and ignored; a
 * card added through partnerpay's SetupIntent saved with the payer.
 */
import { assert, describe, it } from "@effect/vitest"
import { CardCharger, CardRefundPayments, CustomerPreferences, Ids, Payouts } from "@partnerpay/domain"
import { Fixtures } from "@partnerpay/domain/testing"
import { Effect, Redacted } from "effect"
import Stripe from "stripe"
import * as StripeCallbacks from "../src/http/StripeCallbacks.ts"
import * as StripeCardProcessor from "../src/providers/StripeCardProcessor.ts"
import * as StripeClient from "../src/providers/StripeClient.ts"
import { partnerId, terminalCardPayment, webHandler } from "./cardPaymentWorld.ts"
import * as StripeFake from "./providers/StripeFake.ts"

describe("Stripe's webhooks (POST /providers/stripe/webhooks)", () => {
  it.live(
    "a verified dispute takes the money and fee at once, a replay changes nothing, won gives them back; refunds are decided by Stripe's events; forged and stale ones are refused",
    () =>
      Effect.gen(function* () {
        const fake = yield* StripeFake.start()
        const config: StripeClient.StripeConfig = {
          secretKey: Redacted.make(StripeFake.secretKey),
          webhookSecret: Redacted.make(StripeFake.webhookSecret),
          baseUrl: fake.url,
          timeoutMillis: 5_000,
        }
        const { context, companyId, cardPaymentId } = yield* terminalCardPayment("stripe-1")
        // The terminal payment at Stripe, tagged as registerCardPayment tags it.
        const terminal = fake.terminalPayment(4_000, "usd")
        const chargeId = String(terminal.latest_charge)
        const charge = fake.state.charges.get(chargeId) as Stripe.Charge
        charge.metadata = { [StripeCardProcessor.metadataKeys.cardPaymentId]: cardPaymentId }

        const app = yield* webHandler(StripeCallbacks.routes(config), context)
        const signer = new Stripe(StripeFake.secretKey)
        let events = 0
        const event = (type: string, object: unknown) => {
          events += 1
          return {
            id: `evt_test_${events}`,
            object: "event",
            api_version: StripeClient.apiVersion,
            created: Math.floor(Date.now() / 1000),
            livemode: false,
            pending_webhooks: 1,
            request: { id: null, idempotency_key: null },
            type,
            data: { object },
          }
        }
        const post = (
          body: unknown,
          options: { readonly secret?: string; readonly ageSeconds?: number; readonly unsigned?: boolean } = {},
        ) => {
          const payload = JSON.stringify(body)
          const header = signer.webhooks.generateTestHeaderString({
            payload,
            secret: options.secret ?? StripeFake.webhookSecret,
            timestamp: Math.floor(Date.now() / 1000) - (options.ageSeconds ?? 0),
          })
          return Effect.promise(() =>
            app.handler(
              new Request(`http://partnerpay.test${StripeCallbacks.path}`, {
                method: "POST",
                headers: {
                  "content-type": "application/json",
                  ...(options.unsigned === true ? {} : { "stripe-signature": header }),
                },
                body: payload,
              }),
            ),
          )
        }
        const total = Effect.provide(
          Effect.map(
            Payouts.balance(partnerId, companyId, "USD"),
            (b) => b.available.minorUnits + b.pending.minorUnits,
          ),
          context,
        )
        const dispute = (status: string) => ({
          id: "dp_test_1",
          object: "dispute",
          amount: 4_000,
          currency: "usd",
          charge: chargeId,
          payment_intent: terminal.id,
          reason: "fraudulent",
          status,
          balance_transactions: [{ id: "txn_dispute_1", object: "balance_transaction", amount: -4_000, fee: 1_500 }],
          metadata: {},
        })
        const opened = event("charge.dispute.created", dispute("needs_response"))

        assert.strictEqual((yield* post(opened, { secret: "whsec_another_secret" })).status, 401)
        assert.strictEqual((yield* post(opened, { ageSeconds: 600 })).status, 401)
        assert.strictEqual((yield* post(opened, { unsigned: true })).status, 401)
        assert.strictEqual(yield* total, 4_000)

        assert.strictEqual((yield* post(opened)).status, 200)
        assert.strictEqual(yield* total, 4_000 - 4_000 - 1_500)
        // Stripe's retry, or a replay within the tolerance: the same event id changes nothing.
        assert.strictEqual((yield* post(opened)).status, 200)
        assert.strictEqual(yield* total, 4_000 - 4_000 - 1_500)
        assert.strictEqual((yield* post(event("charge.dispute.updated", dispute("under_review")))).status, 200)
        assert.strictEqual((yield* post(event("charge.dispute.closed", dispute("won")))).status, 200)
        assert.strictEqual(yield* total, 4_000)

        // A dispute of a charge partnerpay never tagged: acknowledged, nothing recorded.
        const stranger = fake.terminalPayment(1_000, "usd")
        const foreign = { ...dispute("needs_response"), id: "dp_test_2", charge: String(stranger.latest_charge) }
        assert.strictEqual((yield* post(event("charge.dispute.created", foreign))).status, 200)
        assert.strictEqual(yield* total, 4_000)

        // A card refund Stripe has not decided yet stays Pending (the money held), then Stripe fails it.
        fake.refundStatus("pending")
        const stripeCharger = StripeCardProcessor.make(StripeClient.client(config), {
          find: () => Effect.succeed(undefined),
          keep: (_, id) => Effect.succeed(id),
        }).charger
        const refundOf = (value: number) =>
          CardRefundPayments.refund({ partnerId, id: cardPaymentId, amount: { value, currencyCode: "USD" } }).pipe(
            Effect.provideService(CardCharger.CardCharger, stripeCharger),
            Effect.provide(context),
          )
        const pending = yield* refundOf(10)
        assert.strictEqual(pending.status, "Pending")
        assert.strictEqual(yield* total, 4_000 - 1_000)
        const failed = {
          id: "re_test_1",
          object: "refund",
          amount: 1_000,
          currency: "usd",
          charge: chargeId,
          status: "failed",
          failure_reason: "expired_or_canceled_card",
          metadata: {
            [StripeCardProcessor.metadataKeys.refundId]: pending.refundId,
            [StripeCardProcessor.metadataKeys.cardPaymentId]: cardPaymentId,
          },
        }
        assert.strictEqual((yield* post(event("refund.failed", failed))).status, 200)
        assert.strictEqual(yield* total, 4_000)

        // Another one left pending, completed when Stripe says the charge was refunded.
        const second = yield* refundOf(5)
        assert.strictEqual(second.status, "Pending")
        const succeeded = { ...failed, id: "re_test_2", amount: 500, status: "succeeded" } as unknown as Stripe.Refund
        succeeded.metadata = { ...succeeded.metadata, [StripeCardProcessor.metadataKeys.refundId]: second.refundId }
        fake.state.refunds.set(succeeded.id, succeeded)
        assert.strictEqual((yield* post(event("charge.refunded", { ...charge, amount_refunded: 500 }))).status, 200)
        assert.strictEqual(yield* total, 4_000 - 500)
        // Completed is final: a contrary event is acknowledged and changes nothing.
        assert.strictEqual((yield* post(event("refund.failed", { ...succeeded, status: "failed" }))).status, 200)
        assert.strictEqual(yield* total, 4_000 - 500)

        // A card the payer added through the SetupIntent partnerpay made: saved with the payer.
        const payer = Ids.RegistrationId.make("6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f")
        yield* Effect.provide(Fixtures.registerCustomer(partnerId, payer), context)
        const kept = new Map<string, string>()
        const adapter = StripeCardProcessor.make(StripeClient.client(config), {
          find: (owner) => Effect.succeed(kept.get(owner)),
          keep: (owner, id) => Effect.sync(() => kept.set(owner, id).get(owner) as string),
        })
        const setup = yield* adapter.setupCard(payer, partnerId)
        const card = fake.attachCard(setup.customerId, "4242", "visa")
        const setupIntent = fake.state.setupIntents.get(setup.setupIntentId) as Stripe.SetupIntent
        const setupDone = { ...setupIntent, status: "succeeded", payment_method: card.id }
        assert.strictEqual((yield* post(event("setup_intent.succeeded", setupDone))).status, 200)
        const saved = yield* Effect.provide(CustomerPreferences.cardPaymentMethods(partnerId, payer), context)
        assert.deepStrictEqual(saved.paymentMethods, [
          { id: card.id, type: "card", brand: "visa", last4: "4242", expMonth: 12, expYear: 2034 },
        ])
        // A SetupIntent of no payer of ours (no metadata, a Customer of another integration): ignored.
        const foreignCustomer = "cus_foreign"
        fake.state.customers.set(foreignCustomer, { id: foreignCustomer, object: "customer", metadata: {} } as never)
        const foreignSetup = {
          ...setupDone,
          id: "seti_foreign",
          customer: foreignCustomer,
          metadata: {},
          payment_method: fake.attachCard(foreignCustomer, "1881").id,
        }
        assert.strictEqual((yield* post(event("setup_intent.succeeded", foreignSetup))).status, 200)

        // Events partnerpay has nothing to record for.
        assert.strictEqual((yield* post(event("balance.available", { object: "balance" }))).status, 200)
        assert.strictEqual(
          (yield* post(event("payment_intent.payment_failed", { ...terminal, status: "requires_payment_method" })))
            .status,
          200,
        )
      }).pipe(Effect.scoped),
    60_000,
  )
})
