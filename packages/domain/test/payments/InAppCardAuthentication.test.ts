/**
 * An in-app card payment that waits for the payer's authentication (3-D
 * Secure), through the use cases on the in-memory domain with the sandbox
 * charger (its card ending in 3155 requires authentication): the payment
 * answers RequiresAction and the request stays Pending (payable); a failed
 * authentication leaves it payable and the next payment is a new attempt; a
 * success pays it by card with the card fee in force when the payer paid; a
 * success for a request paid another way meanwhile is refunded.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as Companies from "../../src/companies/Companies.ts"
import * as EventPipeline from "../../src/composition/EventPipeline.ts"
import * as CustomerPreferences from "../../src/customers/CustomerPreferences.ts"
import * as CustomerProviderSandboxes from "../../src/customers/CustomerProviderSandboxes.ts"
import { IdGenerator } from "../../src/infrastructure/IdGenerator.ts"
import { UnitOfWork } from "../../src/infrastructure/UnitOfWork.ts"
import type { CalendarDate } from "../../src/kernel/CalendarDate.ts"
import type { BankAccountId, PartnerId, RegistrationId } from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as CardCharger from "../../src/payments/CardCharger.ts"
import * as InAppCardAuthentication from "../../src/payments/InAppCardAuthentication.ts"
import * as InAppCardPayments from "../../src/payments/InAppCardPayments.ts"
import * as Payments from "../../src/payments/Payments.ts"
import * as PlatformFees from "../../src/payments/PlatformFees.ts"
import * as Payouts from "../../src/payouts/Payouts.ts"
import { Fixtures } from "../../src/testing/index.ts"

const partnerId = "0c9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a7c" as PartnerId
const payer = "7e57ab1e-0000-4000-8000-00000000c3d5" as RegistrationId
const checking = "8c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a7a" as BankAccountId
const usd = (minorUnits: number) => Money.make(minorUnits, "USD")

const setup = () => {
  const charger = CardCharger.makeSandbox()
  const layer = Layer.mergeAll(
    EventPipeline.layerMemory(),
    UnitOfWork.layerMemory,
    IdGenerator.layerRandom,
    Layer.succeed(CardCharger.CardCharger, charger),
    CustomerProviderSandboxes.layerCardProcessorSandbox,
  )
  return { charger, layer }
}

const card = (id: string, last4: string) => ({
  id,
  type: "card",
  brand: "visa",
  last4,
  expMonth: 12,
  expYear: 2030,
})

/** A verified company and payer with a 3-D Secure card and a plain one, and a request of 100.00 to pay. */
const request = Effect.gen(function* () {
  yield* TestClock.setTime(Date.parse("2026-03-02T10:00:00.000Z"))
  const { companyId } = yield* Companies.register(
    partnerId,
    Fixtures.companyRegistrationBody({ companyReferenceId: "3ds-1", employees: [], locations: [] }),
  )
  yield* Companies.completeKyb(companyId, "Verified")
  yield* Fixtures.registerVerifiedCustomer(partnerId, payer, checking)
  yield* CustomerPreferences.saveCardPaymentMethod(partnerId, payer, card("pm_3ds", CardCharger.authenticationLast4))
  yield* CustomerPreferences.saveCardPaymentMethod(partnerId, payer, card("pm_plain", "4242"))
  yield* PlatformFees.set(partnerId, "Card", { percentageBasisPoints: 290, fixed: usd(30), returnFeePassedOn: false })
  const { paymentRequestId } = yield* Payments.create({
    partnerId,
    companyId,
    payerRegistrationId: payer,
    amount: { value: 100, currencyCode: "USD" },
    description: "Invoice 3155",
    dueDate: "2026-03-15" as CalendarDate,
  })
  return { companyId, paymentRequestId }
})

const pay = (paymentRequestId: string, paymentMethodId: string) =>
  InAppCardPayments.pay({ partnerId, registrationId: payer, paymentRequestId, paymentMethodId })

describe("a payment request paid with a card that requires authentication", () => {
  it.effect("answers RequiresAction, stays Pending, and is Paid by card once the authentication succeeded", () => {
    const { layer } = setup()
    return Effect.gen(function* () {
      const { companyId, paymentRequestId } = yield* request
      const answer = yield* pay(paymentRequestId, "pm_3ds")
      assert.strictEqual(answer.status, "RequiresAction")
      if (answer.status !== "RequiresAction") return
      assert.include(answer.clientSecret, answer.processorReference)
      assert.strictEqual((yield* Payments.get(partnerId, paymentRequestId)).status, "Pending")
      // The app asks again: the same card payment and processor payment.
      assert.deepStrictEqual(yield* pay(paymentRequestId, "pm_3ds"), answer)
      const completed = yield* InAppCardAuthentication.complete(paymentRequestId, answer.processorReference, {
        _tag: "Succeeded",
      })
      assert.strictEqual(completed, "Paid")
      assert.strictEqual((yield* Payments.get(partnerId, paymentRequestId)).status, "Paid")
      // The card fee in force when the payer paid: 2.90% of 100.00 + 0.30.
      const balance = yield* Payouts.balance(partnerId, companyId, "USD")
      assert.deepStrictEqual(balance.available, usd(10_000 - 320))
      // A repeated notification changes nothing.
      assert.strictEqual(
        yield* InAppCardAuthentication.complete(paymentRequestId, answer.processorReference, { _tag: "Succeeded" }),
        "Paid",
      )
      assert.deepStrictEqual(yield* pay(paymentRequestId, "pm_3ds"), {
        status: "Paid",
        cardPaymentId: answer.cardPaymentId,
      })
    }).pipe(Effect.provide(layer))
  })

  it.effect(
    "a failed authentication leaves it payable: the next payment is a new attempt, or another card pays",
    () => {
      const { layer, charger } = setup()
      return Effect.gen(function* () {
        const { paymentRequestId } = yield* request
        const first = yield* pay(paymentRequestId, "pm_3ds")
        if (first.status !== "RequiresAction") return assert.fail("expected RequiresAction")
        assert.strictEqual(
          yield* InAppCardAuthentication.complete(paymentRequestId, first.processorReference, {
            _tag: "Failed",
            code: "payment_intent_authentication_failure",
          }),
          "Failed",
        )
        assert.strictEqual((yield* Payments.get(partnerId, paymentRequestId)).status, "Pending")
        const second = yield* pay(paymentRequestId, "pm_3ds")
        if (second.status !== "RequiresAction") return assert.fail("expected RequiresAction")
        assert.notStrictEqual(second.processorReference, first.processorReference)
        assert.deepStrictEqual(
          charger.charges().map((charge) => charge.idempotencyKey),
          [paymentRequestId, `${paymentRequestId}:attempt-2`],
        )
        const plain = yield* pay(paymentRequestId, "pm_plain")
        assert.strictEqual(plain.status, "Paid")
        // The abandoned attempt authenticated later: the request was paid already, the charge is refunded.
        assert.strictEqual(
          yield* InAppCardAuthentication.complete(paymentRequestId, second.processorReference, { _tag: "Succeeded" }),
          "Refunded",
        )
        assert.isTrue(
          charger.charges().find((charge) => charge.processorReference === second.processorReference)?.refunded,
        )
      }).pipe(Effect.provide(layer))
    },
  )

  it.effect("an outcome about no awaited payment is NotFound", () => {
    const { layer } = setup()
    return Effect.gen(function* () {
      const { paymentRequestId } = yield* request
      const refused = yield* Effect.flip(
        InAppCardAuthentication.complete(paymentRequestId, "pi_unknown", { _tag: "Succeeded" }),
      )
      assert.strictEqual(refused._tag, "NotFound")
    }).pipe(Effect.provide(layer))
  })
})
