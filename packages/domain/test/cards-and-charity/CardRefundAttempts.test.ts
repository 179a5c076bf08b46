/**
 * Executable specification of a card refund the processor is asked for
 * again (CardRefundAttempts): each unreachable call counted, the last allowed
 * one exhausting the attempts (the refund then Failed, `exhaustedPolicy`);
 * a refund the processor accepted never asked again; the backoff doubling
 * from the last failed attempt. Then through the use cases on the in-memory
 * domain with a processor that cannot be reached, then can.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as CardPayments from "../../src/cards-and-charity/CardPayments.ts"
import * as CardRefundAttempts from "../../src/cards-and-charity/CardRefundAttempts.ts"
import * as CardRefundPayments from "../../src/cards-and-charity/CardRefundPayments.ts"
import * as CardRefundRetries from "../../src/cards-and-charity/CardRefundRetries.ts"
import * as CardRefunds from "../../src/cards-and-charity/CardRefunds.ts"
import * as Companies from "../../src/companies/Companies.ts"
import * as EventPipeline from "../../src/composition/EventPipeline.ts"
import * as CustomerProviderSandboxes from "../../src/customers/CustomerProviderSandboxes.ts"
import * as CommandHandler from "../../src/infrastructure/CommandHandler.ts"
import { IdGenerator } from "../../src/infrastructure/IdGenerator.ts"
import { ProviderUnavailable } from "../../src/infrastructure/Providers.ts"
import { UnitOfWork } from "../../src/infrastructure/UnitOfWork.ts"
import type { CardPaymentId, MerchantId, PartnerId } from "../../src/kernel/Ids.ts"
import * as CardCharger from "../../src/payments/CardCharger.ts"
import type { RefundId } from "../../src/payments/TransferEvents.ts"
import { DeciderSpecification, Fixtures } from "../../src/testing/index.ts"

const spec = DeciderSpecification.forAggregate(CardRefundAttempts.aggregate)

const refundId = "7f2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e91" as RefundId
const cardPaymentId = "7f2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e92" as CardPaymentId
const at = DateTime.makeUnsafe("2026-03-02T10:00:00.000Z")
const ids = { refundId, cardPaymentId, at }

const unreachable: CardRefundAttempts.RecordCardRefundAttempt = {
  _tag: "RecordCardRefundAttempt",
  ...ids,
  answer: { _tag: "Unreachable", reason: "timeout" },
}
const submitted: CardRefundAttempts.RecordCardRefundAttempt = {
  _tag: "RecordCardRefundAttempt",
  ...ids,
  answer: { _tag: "Submitted" },
}
const failed = (attempt: number) =>
  CardRefundAttempts.CardRefundAttemptEvent.cases.CardRefundAttemptFailed.make({ ...ids, attempt, reason: "timeout" })
const failures = (count: number) => Array.from({ length: count }, (_, index) => failed(index + 1))

describe("a card refund never asked again", () => {
  it("an unreachable processor is its first failed attempt", () => {
    spec
      .given([])
      .when(unreachable)
      .then([failed(1)])
  })

  it("the processor accepting it without deciding: submitted, decided by its notification", () => {
    spec
      .given([])
      .when(submitted)
      .then([CardRefundAttempts.CardRefundAttemptEvent.cases.CardRefundSubmitted.make(ids)])
  })

  it("is due at once (a refund recorded before attempts were)", () => {
    assert.deepStrictEqual(
      CardRefundAttempts.nextAttemptAt(CardRefundAttempts.initialState, 1_000),
      DateTime.makeUnsafe(0),
    )
  })
})

describe("a card refund whose processor could not be reached", () => {
  it("the next failed attempt is counted", () => {
    spec
      .given(failures(2))
      .when(unreachable)
      .then([failed(3)])
  })

  it("the last allowed attempt exhausts them: the refund is then Failed", () => {
    const exhausted = CardRefundAttempts.CardRefundAttemptEvent.cases.CardRefundAttemptsExhausted.make({
      ...ids,
      attempts: CardRefundAttempts.maxAttempts,
    })
    spec
      .given(failures(CardRefundAttempts.maxAttempts - 1))
      .when(unreachable)
      .then([failed(CardRefundAttempts.maxAttempts), exhausted])
    assert.deepStrictEqual(CardRefundAttempts.exhaustedOutcome(exhausted), {
      _tag: "RecordCardRefundOutcome",
      refundId,
      outcome: { _tag: "Failed", reason: "the card processor could not be reached (5 attempts)" },
      at,
    })
  })

  it("is asked again after a backoff doubling from the last failed attempt", () => {
    const after = (count: number) =>
      CardRefundAttempts.nextAttemptAt(
        failures(count).reduce(CardRefundAttempts.evolve, CardRefundAttempts.initialState),
        1_000,
      )
    assert.deepStrictEqual(
      [after(1), after(2), after(3)],
      [DateTime.add(at, { seconds: 1 }), DateTime.add(at, { seconds: 2 }), DateTime.add(at, { seconds: 4 })],
    )
  })
})

describe("a card refund submitted or given up", () => {
  it("another attempt changes nothing, and none is due", () => {
    const given = [CardRefundAttempts.CardRefundAttemptEvent.cases.CardRefundSubmitted.make(ids)]
    spec.given(given).when(unreachable).thenNothingHappens()
    const state = given.reduce(CardRefundAttempts.evolve, CardRefundAttempts.initialState)
    assert.isUndefined(CardRefundAttempts.nextAttemptAt(state, 1_000))
  })
})

const partnerId = "0c9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a9c" as PartnerId

/** A sandbox charger whose refunds cannot be reached while `down()` says so. */
const flaky = (down: () => boolean) => {
  const sandbox = CardCharger.makeSandbox()
  return CardCharger.CardCharger.of({
    charge: sandbox.charge,
    refund: (reference, partial) =>
      down()
        ? Effect.fail(new ProviderUnavailable({ provider: "CardProcessor", reason: "timeout" }))
        : sandbox.refund(reference, partial),
  })
}

const terminalPayment = Effect.gen(function* () {
  yield* TestClock.setTime(Date.parse("2026-03-02T10:00:00.000Z"))
  const { companyId } = yield* Companies.register(
    partnerId,
    Fixtures.companyRegistrationBody({ companyReferenceId: "retry-1", employees: [], locations: [] }),
  )
  yield* Companies.completeKyb(companyId, "Verified")
  const { cardPaymentId } = yield* CardPayments.register({
    partnerId,
    merchantId: companyId as string as MerchantId,
    amount: { value: 40, currencyCode: "USD" },
    last4: "4242",
    brand: "visa",
    externalReference: "terminal-retry-1",
  })
  return cardPaymentId as CardPaymentId
})

const statusOf = (id: CardPaymentId, refund: RefundId) =>
  Effect.map(
    CommandHandler.load(CardRefunds.aggregate, id),
    ({ state }) => (state._tag === "Initial" ? [] : state.refunds).find((r) => r.refundId === refund)?.status,
  )

const layerWith = (charger: CardCharger.CardCharger["Service"]) =>
  Layer.mergeAll(
    EventPipeline.layerMemory(),
    UnitOfWork.layerMemory,
    IdGenerator.layerRandom,
    Layer.succeed(CardCharger.CardCharger, charger),
    CustomerProviderSandboxes.layerCardProcessorSandbox,
  )

describe("a card refund answered Pending because the processor could not be reached", () => {
  it.effect("is asked again once due and Completed when the processor answers", () => {
    let down = true
    return Effect.gen(function* () {
      const id = yield* terminalPayment
      const refund = yield* CardRefundPayments.refund({ partnerId, id, amount: { value: 10, currencyCode: "USD" } })
      assert.strictEqual(refund.status, "Pending")
      // Not due before the backoff.
      assert.strictEqual(yield* CardRefundRetries.retry(id, refund.refundId, 60_000), "NotDue")
      yield* TestClock.adjust("60 seconds")
      assert.strictEqual(yield* CardRefundRetries.retry(id, refund.refundId, 60_000), "Unreachable")
      down = false
      yield* TestClock.adjust("120 seconds")
      assert.strictEqual(yield* CardRefundRetries.retry(id, refund.refundId, 60_000), "Completed")
      assert.strictEqual(yield* statusOf(id, refund.refundId), "Completed")
      assert.strictEqual(yield* CardRefundRetries.retry(id, refund.refundId, 60_000), "Decided")
    }).pipe(Effect.provide(layerWith(flaky(() => down))))
  })

  it.effect("is Failed after the last allowed attempt", () =>
    Effect.gen(function* () {
      const id = yield* terminalPayment
      const refund = yield* CardRefundPayments.refund({ partnerId, id })
      for (let attempt = 2; attempt <= CardRefundAttempts.maxAttempts; attempt++) {
        yield* TestClock.adjust("1 hour")
        assert.strictEqual(yield* CardRefundRetries.retry(id, refund.refundId, 1_000), "Unreachable")
      }
      assert.strictEqual(yield* statusOf(id, refund.refundId), "Failed")
      assert.strictEqual(yield* CardRefundRetries.retry(id, refund.refundId, 1_000), "Decided")
    }).pipe(Effect.provide(layerWith(flaky(() => true)))),
  )
})
