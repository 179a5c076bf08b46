/**
 * Executable specification of a payment request paid in the app by card
 * whose card refunds the processor completed are mirrored on it
 * (`PaymentRequestCardRefunds`, reached by `CardRefundMirrorPolicy`): partly
 * refunded, then Refunded once they reach the paid amount, as ACH refunds
 * are; a repeat changes nothing; never more than was paid.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import type { CardPaymentId } from "../../src/kernel/Ids.ts"
import * as PaymentRequest from "../../src/payments/PaymentRequest.ts"
import {
  PaymentRequestPaidByCard,
  PaymentRequestPartiallyRefunded,
  PaymentRequestRefunded,
} from "../../src/payments/PaymentRequestEvents.ts"
import type { RefundId } from "../../src/payments/TransferEvents.ts"
import { DeciderSpecification } from "../../src/testing/index.ts"
import { created, id, payer, paymentRequestId, usd } from "../fixtures/PaymentRequestFixtures.ts"

const spec = DeciderSpecification.forAggregate(PaymentRequest.aggregate)

const paidAt = DateTime.makeUnsafe("2026-03-02T10:00:00.000Z")
const refundedAt = DateTime.makeUnsafe("2026-03-03T10:00:00.000Z")
const refundId = (n: number) => id(40 + n) as RefundId

const paidByCard = PaymentRequestPaidByCard.make({
  paymentRequestId,
  registrationId: payer,
  cardPaymentId: id(11) as CardPaymentId,
  paymentMethodId: "pm_card",
  brand: "visa",
  last4: "4242",
  processorReference: "pi_1",
  at: paidAt,
})

const refund = (n: number, minorUnits?: number): PaymentRequest.RefundPaymentRequest => ({
  _tag: "RefundPaymentRequest",
  paymentRequestId,
  refundId: refundId(n),
  ...(minorUnits === undefined ? {} : { amount: usd(minorUnits) }),
  at: refundedAt,
})
const partly = (n: number, minorUnits: number, total: number) =>
  PaymentRequestPartiallyRefunded.make({
    paymentRequestId,
    refundId: refundId(n),
    amount: usd(minorUnits),
    totalRefunded: usd(total),
    at: refundedAt,
  })
const fully = (n: number, minorUnits: number) =>
  PaymentRequestRefunded.make({
    paymentRequestId,
    refundId: refundId(n),
    amount: usd(minorUnits),
    totalRefunded: usd(10_000),
    at: refundedAt,
  })

describe("a request paid by card, never refunded", () => {
  it("a completed partial card refund makes it partly refunded; it still reads Paid", () => {
    spec
      .given([created, paidByCard])
      .when(refund(1, 2_500))
      .then([partly(1, 2_500, 2_500)])
    spec
      .given([created, paidByCard])
      .when(refund(1, 2_500))
      .thenState((state) => assert.strictEqual(PaymentRequest.status(state), "Paid"))
  })

  it("a completed card refund of everything makes it Refunded", () => {
    spec
      .given([created, paidByCard])
      .when(refund(1, 10_000))
      .then([fully(1, 10_000)])
  })
})

describe("a request paid by card, partly refunded", () => {
  it("the same card refund again changes nothing", () => {
    spec
      .given([created, paidByCard, partly(1, 2_500, 2_500)])
      .when(refund(1, 2_500))
      .thenNothingHappens()
  })

  it("the card refund of the rest makes it Refunded, read as such", () => {
    spec
      .given([created, paidByCard, partly(1, 2_500, 2_500)])
      .when(refund(2, 7_500))
      .then([fully(2, 7_500)])
    spec
      .given([created, paidByCard, partly(1, 2_500, 2_500), fully(2, 7_500)])
      .when(refund(2, 7_500))
      .thenState((state) => {
        assert.strictEqual(PaymentRequest.status(state), "Refunded")
        // Still the card's payment: its dispute and its refunds name it.
        assert.strictEqual(state._tag, "PaidByCard")
      })
  })

  it("more than is left is refused", () => {
    spec
      .given([created, paidByCard, partly(1, 2_500, 2_500)])
      .when(refund(2, 8_000))
      .thenFails({ _tag: "RuleViolated", code: "REFUND_EXCEEDS_PAYMENT" })
  })
})

describe("a request paid by card, fully refunded", () => {
  it("another card refund is refused", () => {
    spec
      .given([created, paidByCard, fully(1, 10_000)])
      .when(refund(2, 100))
      .thenFails({ _tag: "IllegalTransition", reason: "the payment request is already fully refunded" })
  })
})
