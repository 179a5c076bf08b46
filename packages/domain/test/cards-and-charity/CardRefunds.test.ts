/**
 * Executable specification of a card payment's refunds (the CardRefunds
 * aggregate): partial and full refunds never adding up to more than the
 * payment (pending ones counted), Pending then Completed or Failed, a failed
 * refund's amount free to refund again. Decision table:
 * packages/domain/docs/CardPaymentAndCharity.md.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import * as CardRefunds from "../../src/cards-and-charity/CardRefunds.ts"
import type { CardPaymentId, CompanyId, PartnerId, PaymentRequestId } from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import type { RefundId } from "../../src/payments/TransferEvents.ts"
import { DeciderSpecification } from "../../src/testing/index.ts"

const spec = DeciderSpecification.forAggregate(CardRefunds.aggregate)

const id = (n: number) => `7f2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e${String(n).padStart(2, "0")}`
const at = DateTime.makeUnsafe("2026-03-02T10:00:00.000Z")
const refundId = (n: number) => id(20 + n) as RefundId

const payment: CardRefunds.RefundedPayment = {
  cardPaymentId: id(1) as CardPaymentId,
  paymentRequestId: id(2) as PaymentRequestId,
  partnerId: id(3) as PartnerId,
  companyId: id(4) as CompanyId,
  amount: Money.make(6_000, "USD"),
  processorReference: "ch_3MmlLrLkdIwHu7ix0snN0B15",
}

const refund = (
  n: number,
  minorUnits: number,
  currency: Money.CurrencyCode = "USD",
): CardRefunds.RefundCardPayment => ({
  _tag: "RefundCardPayment",
  payment,
  refundId: refundId(n),
  amount: Money.make(minorUnits, currency),
  at,
})
const outcome = (
  n: number,
  result: CardRefunds.RecordCardRefundOutcome["outcome"],
): CardRefunds.RecordCardRefundOutcome => ({
  _tag: "RecordCardRefundOutcome",
  refundId: refundId(n),
  outcome: result,
  at,
})
const requested = (n: number, minorUnits: number) =>
  CardRefunds.CardRefundRequested.make({ payment, refundId: refundId(n), amount: Money.make(minorUnits, "USD"), at })
const completed = (n: number, minorUnits: number) =>
  CardRefunds.CardRefundCompleted.make({ payment, refundId: refundId(n), amount: Money.make(minorUnits, "USD"), at })
const failed = (n: number, minorUnits: number) =>
  CardRefunds.CardRefundFailed.make({
    payment,
    refundId: refundId(n),
    amount: Money.make(minorUnits, "USD"),
    reason: "expired_or_canceled_card",
    at,
  })

describe("a card payment never refunded", () => {
  it("a partial refund is asked for: Pending", () => {
    spec
      .given([])
      .when(refund(1, 2_500))
      .then([requested(1, 2_500)])
  })
  it("a full refund is asked for", () => {
    spec
      .given([])
      .when(refund(1, 6_000))
      .then([requested(1, 6_000)])
  })
  it("more than the payment is refused (REFUND_EXCEEDS_PAYMENT)", () => {
    spec.given([]).when(refund(1, 6_001)).thenFails({ _tag: "RuleViolated", code: "REFUND_EXCEEDS_PAYMENT" })
  })
  it("another currency than the payment's is refused, naming the field", () => {
    spec
      .given([])
      .when(refund(1, 100, "EUR"))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "amount.currencyCode", message: "must be the payment's currency (USD)" }],
      })
  })
  it("nothing is refused", () => {
    spec
      .given([])
      .when(refund(1, 0))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "amount", message: "must be a positive whole number of minor units" }],
      })
  })
  it("an outcome of a refund never asked for is NotFound", () => {
    spec
      .given([])
      .when(outcome(1, { _tag: "Completed" }))
      .thenFails({ _tag: "NotFound", entity: "CardRefund" })
  })
})

describe("a card payment with a refund pending", () => {
  it("pending refunds count: a second one beyond what is left is refused", () => {
    spec
      .given([requested(1, 2_500)])
      .when(refund(2, 3_501))
      .thenFails({
        _tag: "RuleViolated",
        code: "REFUND_EXCEEDS_PAYMENT",
        reason: "at most 35 USD of the card payment can still be refunded (counting pending refunds)",
      })
  })
  it("a second refund of what is left is asked for", () => {
    spec
      .given([requested(1, 2_500)])
      .when(refund(2, 3_500))
      .then([requested(2, 3_500)])
  })
  it("the same refund again changes nothing", () => {
    spec
      .given([requested(1, 2_500)])
      .when(refund(1, 2_500))
      .thenNothingHappens()
  })
  it("the processor refunded it: Completed", () => {
    spec
      .given([requested(1, 2_500)])
      .when(outcome(1, { _tag: "Completed" }))
      .then([completed(1, 2_500)])
  })
  it("the payment recorded with the first refund stands: a later command's payment does not replace it", () => {
    const larger = { ...payment, amount: Money.make(60_000, "USD") }
    spec
      .given([requested(1, 2_500)])
      .when({ ...refund(2, 3_501), payment: larger })
      .thenFails({ _tag: "RuleViolated", code: "REFUND_EXCEEDS_PAYMENT" })
    spec
      .given([requested(1, 2_500), CardRefunds.CardRefundRequested.make({ ...requested(2, 500), payment: larger })])
      .when(refund(3, 1_000))
      .thenState((state) => {
        assert.strictEqual(state._tag, "Refunding")
        assert.deepStrictEqual(state._tag === "Refunding" ? state.payment : undefined, payment)
      })
  })
  it("is Refunding, its refund Pending", () => {
    spec
      .given([])
      .when(refund(1, 2_500))
      .thenState((state) => {
        assert.deepStrictEqual(state, {
          _tag: "Refunding",
          payment,
          refunds: [{ refundId: refundId(1), amount: Money.make(2_500, "USD"), status: "Pending" }],
        })
      })
  })
  it("an outcome of another refund, never asked for, is NotFound", () => {
    spec
      .given([requested(1, 2_500)])
      .when(outcome(2, { _tag: "Completed" }))
      .thenFails({ _tag: "NotFound", entity: "CardRefund" })
  })
  it("the processor could not: Failed, with its reason", () => {
    spec
      .given([requested(1, 2_500)])
      .when(outcome(1, { _tag: "Failed", reason: "expired_or_canceled_card" }))
      .then([failed(1, 2_500)])
  })
})

describe("a card payment with a refund decided", () => {
  it("a completed refund still counts: nothing beyond the rest", () => {
    spec
      .given([requested(1, 2_500), completed(1, 2_500)])
      .when(refund(2, 3_501))
      .thenFails({ _tag: "RuleViolated", code: "REFUND_EXCEEDS_PAYMENT" })
  })
  it("a failed refund frees its amount: the whole payment can be refunded again", () => {
    spec
      .given([requested(1, 6_000), failed(1, 6_000)])
      .when(refund(2, 6_000))
      .then([requested(2, 6_000)])
  })
  it("the same outcome again changes nothing", () => {
    spec
      .given([requested(1, 2_500), completed(1, 2_500)])
      .when(outcome(1, { _tag: "Completed" }))
      .thenNothingHappens()
  })
  it("a contrary outcome is refused: an outcome is final", () => {
    spec
      .given([requested(1, 2_500), completed(1, 2_500)])
      .when(outcome(1, { _tag: "Failed", reason: "late" }))
      .thenFails({
        _tag: "IllegalTransition",
        entity: "CardRefund",
        state: "Completed",
        reason: "the refund is already Completed",
      })
  })
  it("an outcome decides its own refund only: another one pending stays Pending", () => {
    spec
      .given([requested(1, 2_500), requested(2, 1_000), completed(1, 2_500)])
      .when(outcome(2, { _tag: "Failed", reason: "expired_or_canceled_card" }))
      .then([failed(2, 1_000)])
  })
})

describe("what a payment's refunds hold and gave back", () => {
  const refunds: ReadonlyArray<CardRefunds.Refund> = [
    { refundId: refundId(1), amount: Money.make(2_500, "USD"), status: "Completed" },
    { refundId: refundId(2), amount: Money.make(1_000, "USD"), status: "Pending" },
    { refundId: refundId(3), amount: Money.make(700, "USD"), status: "Failed" },
    { refundId: refundId(4), amount: Money.make(300, "USD"), status: "Completed" },
  ]
  it("pending and completed refunds hold their amounts; a failed one holds nothing", () => {
    assert.strictEqual(CardRefunds.heldOf(refunds), 3_800)
  })
  it("only completed refunds gave money back", () => {
    assert.strictEqual(CardRefunds.completedOf(refunds), 2_800)
    assert.strictEqual(CardRefunds.completedOf([]), 0)
  })
})

describe("no refund yet", () => {
  it("ignores an outcome recorded before any refund", () => {
    spec.given([]).ignores(completed(1, 2_500))
    spec.given([]).ignores(failed(1, 2_500))
  })
})
