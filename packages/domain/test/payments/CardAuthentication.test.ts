/**
 * Executable specification of an in-app card payment that waits for the
 * payer's authentication (3-D Secure, the CardAuthentication aggregate):
 * awaited once per processor payment, then succeeded or failed once; a
 * failure or another card makes the next payment a new attempt. Decision
 * table: packages/domain/docs/CardPaymentAndCharity.md.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import type { CardPaymentId, PaymentRequestId, RegistrationId } from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as CardAuthentication from "../../src/payments/CardAuthentication.ts"
import { DeciderSpecification } from "../../src/testing/index.ts"

const spec = DeciderSpecification.forAggregate(CardAuthentication.aggregate)

const paymentRequestId = "7f2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e01" as PaymentRequestId
const at = DateTime.makeUnsafe("2026-03-02T10:00:00.000Z")
const availableAt = DateTime.makeUnsafe("2026-03-03T00:00:00.000Z")

const payment = (processorReference: string, paymentMethodId = "pm_3ds"): CardAuthentication.AwaitedCardPayment => ({
  registrationId: "7f2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e02" as RegistrationId,
  cardPaymentId: "7f2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e03" as CardPaymentId,
  paymentMethodId,
  brand: "visa",
  last4: "3155",
  processorReference,
  platformFee: Money.make(320, "USD"),
})

const awaitIt = (processorReference: string, paymentMethodId?: string): CardAuthentication.AwaitCardAuthentication => ({
  _tag: "AwaitCardAuthentication",
  paymentRequestId,
  payment: payment(processorReference, paymentMethodId),
  at,
})
const outcome = (
  processorReference: string,
  result: CardAuthentication.AuthenticationOutcome,
): CardAuthentication.RecordCardAuthenticationOutcome => ({
  _tag: "RecordCardAuthenticationOutcome",
  paymentRequestId,
  processorReference,
  outcome: result,
  at,
})
const required = (attempt: number, processorReference: string, paymentMethodId?: string) =>
  CardAuthentication.CardAuthenticationRequired.make({
    paymentRequestId,
    attempt,
    payment: payment(processorReference, paymentMethodId),
    at,
  })
const succeeded = (attempt: number, processorReference: string) =>
  CardAuthentication.CardAuthenticationSucceeded.make({
    paymentRequestId,
    attempt,
    payment: payment(processorReference),
    availableAt,
    at,
  })
const failed = (attempt: number, processorReference: string) =>
  CardAuthentication.CardAuthenticationFailed.make({
    paymentRequestId,
    attempt,
    processorReference,
    code: "payment_intent_authentication_failure",
    at,
  })

describe("a payment request no card payment of which awaited authentication", () => {
  it("the processor asking for authentication is the first attempt, awaited", () => {
    spec
      .given([])
      .when(awaitIt("pi_1"))
      .then([required(1, "pi_1")])
  })

  it("an outcome is about no awaited payment: NotFound", () => {
    spec
      .given([])
      .when(outcome("pi_1", { _tag: "Succeeded" }))
      .thenFails({ _tag: "NotFound" })
  })

  it("a payment with any card is the first attempt", () => {
    assert.strictEqual(CardAuthentication.attemptFor(CardAuthentication.initialState, "pm_3ds"), 1)
    assert.strictEqual(CardAuthentication.keyOf(paymentRequestId, 1), paymentRequestId)
  })
})

describe("a card payment awaiting the payer's authentication", () => {
  it("the same processor payment again changes nothing (the app asked again)", () => {
    spec
      .given([required(1, "pi_1")])
      .when(awaitIt("pi_1"))
      .thenNothingHappens()
  })

  it("its success is recorded with the money's availability", () => {
    spec
      .given([required(1, "pi_1")])
      .when(outcome("pi_1", { _tag: "Succeeded", availableAt }))
      .then([succeeded(1, "pi_1")])
  })

  it("its failure is recorded with the processor's code", () => {
    spec
      .given([required(1, "pi_1")])
      .when(outcome("pi_1", { _tag: "Failed", code: "payment_intent_authentication_failure" }))
      .then([failed(1, "pi_1")])
  })

  it("an outcome of another processor payment is NotFound", () => {
    spec
      .given([required(1, "pi_1")])
      .when(outcome("pi_other", { _tag: "Succeeded" }))
      .thenFails({ _tag: "NotFound" })
  })

  it("paying with another card is the next attempt, with its own idempotency key", () => {
    const state = CardAuthentication.evolve(CardAuthentication.initialState, required(1, "pi_1"))
    assert.deepStrictEqual(
      [CardAuthentication.attemptFor(state, "pm_3ds"), CardAuthentication.attemptFor(state, "pm_other")],
      [1, 2],
    )
    assert.strictEqual(CardAuthentication.keyOf(paymentRequestId, 2), `${paymentRequestId}:attempt-2`)
    spec
      .given([required(1, "pi_1")])
      .when(awaitIt("pi_2", "pm_other"))
      .then([required(2, "pi_2", "pm_other")])
  })
})

describe("a card payment whose authentication failed", () => {
  it("the same failure again changes nothing", () => {
    spec
      .given([required(1, "pi_1"), failed(1, "pi_1")])
      .when(outcome("pi_1", { _tag: "Failed", code: "card_declined" }))
      .thenNothingHappens()
  })

  it("a contrary success is refused: an outcome is final", () => {
    spec
      .given([required(1, "pi_1"), failed(1, "pi_1")])
      .when(outcome("pi_1", { _tag: "Succeeded" }))
      .thenFails({ _tag: "IllegalTransition" })
  })

  it("paying again, even with the same card, is the next attempt", () => {
    const state = [required(1, "pi_1"), failed(1, "pi_1")].reduce(
      CardAuthentication.evolve,
      CardAuthentication.initialState,
    )
    assert.strictEqual(CardAuthentication.attemptFor(state, "pm_3ds"), 2)
    spec
      .given([required(1, "pi_1"), failed(1, "pi_1")])
      .when(awaitIt("pi_2"))
      .then([required(2, "pi_2")])
  })
})

describe("a card payment authenticated and charged", () => {
  it("the same success again changes nothing", () => {
    spec
      .given([required(1, "pi_1"), succeeded(1, "pi_1")])
      .when(outcome("pi_1", { _tag: "Succeeded", availableAt }))
      .thenNothingHappens()
  })

  it("a contrary failure is refused", () => {
    spec
      .given([required(1, "pi_1"), succeeded(1, "pi_1")])
      .when(outcome("pi_1", { _tag: "Failed", code: "card_declined" }))
      .thenFails({ _tag: "IllegalTransition" })
  })

  it("another payment awaiting authentication is refused: the request is being paid", () => {
    spec
      .given([required(1, "pi_1"), succeeded(1, "pi_1")])
      .when(awaitIt("pi_2", "pm_other"))
      .thenFails({ _tag: "IllegalTransition" })
  })
})
