/**
 * A card payment's completed refunds reach the payment request it paid
 * (`CardRefundMirrorPolicy`): the pure reaction, then through the use cases
 * on the in-memory domain (a partial card refund shows as the request's
 * refunded amount, the rest makes it Refunded; a terminal payment's refunds
 * touch no request).
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as CardRefundMirrorPolicy from "../../src/cards-and-charity/CardRefundMirrorPolicy.ts"
import * as CardRefundPayments from "../../src/cards-and-charity/CardRefundPayments.ts"
import * as CardRefunds from "../../src/cards-and-charity/CardRefunds.ts"
import * as Companies from "../../src/companies/Companies.ts"
import * as EventPipeline from "../../src/composition/EventPipeline.ts"
import * as CustomerPreferences from "../../src/customers/CustomerPreferences.ts"
import * as CustomerProviderSandboxes from "../../src/customers/CustomerProviderSandboxes.ts"
import { IdGenerator } from "../../src/infrastructure/IdGenerator.ts"
import { UnitOfWork } from "../../src/infrastructure/UnitOfWork.ts"
import type { CalendarDate } from "../../src/kernel/CalendarDate.ts"
import type {
  BankAccountId,
  CardPaymentId,
  CompanyId,
  PartnerId,
  PaymentRequestId,
  RegistrationId,
} from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as CardCharger from "../../src/payments/CardCharger.ts"
import * as InAppCardPayments from "../../src/payments/InAppCardPayments.ts"
import * as Payments from "../../src/payments/Payments.ts"
import type { RefundId } from "../../src/payments/TransferEvents.ts"
import { Fixtures } from "../../src/testing/index.ts"

const partnerId = "0c9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a8c" as PartnerId
const payer = "7e57ab1e-0000-4000-8000-00000000c4f1" as RegistrationId
const checking = "8c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a8a" as BankAccountId
const at = DateTime.makeUnsafe("2026-03-02T10:00:00.000Z")

const payment = (paymentRequestId?: PaymentRequestId): CardRefunds.RefundedPayment => ({
  cardPaymentId: "7f2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e71" as CardPaymentId,
  ...(paymentRequestId === undefined ? {} : { paymentRequestId }),
  partnerId,
  companyId: "7f2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e72" as CompanyId,
  amount: Money.make(6_000, "USD"),
  processorReference: "pi_1",
})
const requestId = "7f2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e73" as PaymentRequestId
const refundId = "7f2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e74" as RefundId
const common = { refundId, amount: Money.make(2_500, "USD"), at }

describe("a card refund of a payment request paid by card", () => {
  it("completed: the request's refund command, with the card refund's id and amount", () => {
    assert.deepStrictEqual(
      CardRefundMirrorPolicy.fromCardRefundEvent(
        CardRefunds.CardRefundCompleted.make({ payment: payment(requestId), ...common }),
      ),
      { _tag: "RefundPaymentRequest", paymentRequestId: requestId, refundId, amount: common.amount, at },
    )
  })

  it("pending or failed: nothing (the request mirrors completed refunds only)", () => {
    assert.isUndefined(
      CardRefundMirrorPolicy.fromCardRefundEvent(
        CardRefunds.CardRefundRequested.make({ payment: payment(requestId), ...common }),
      ),
    )
    assert.isUndefined(
      CardRefundMirrorPolicy.fromCardRefundEvent(
        CardRefunds.CardRefundFailed.make({ payment: payment(requestId), ...common, reason: "expired_card" }),
      ),
    )
  })
})

describe("a card refund of a terminal payment", () => {
  it("completed: nothing, no request was paid", () => {
    assert.isUndefined(
      CardRefundMirrorPolicy.fromCardRefundEvent(
        CardRefunds.CardRefundCompleted.make({ payment: payment(), ...common }),
      ),
    )
  })
})

describe("a payment request paid in the app by card, refunded through the card processor", () => {
  it.effect("shows the refunded amount, then Refunded once the card refunds reach the paid amount", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.parse("2026-03-02T10:00:00.000Z"))
      const { companyId } = yield* Companies.register(
        partnerId,
        Fixtures.companyRegistrationBody({ companyReferenceId: "mirror-1", employees: [], locations: [] }),
      )
      yield* Companies.completeKyb(companyId, "Verified")
      yield* Fixtures.registerVerifiedCustomer(partnerId, payer, checking)
      yield* CustomerPreferences.saveCardPaymentMethod(partnerId, payer, {
        id: "pm_mirror",
        type: "card",
        brand: "visa",
        last4: "4242",
        expMonth: 12,
        expYear: 2030,
      })
      const { paymentRequestId } = yield* Payments.create({
        partnerId,
        companyId,
        payerRegistrationId: payer,
        amount: { value: 60, currencyCode: "USD" },
        description: "Invoice 60",
        dueDate: "2026-03-15" as CalendarDate,
      })
      yield* InAppCardPayments.pay({ partnerId, registrationId: payer, paymentRequestId, paymentMethodId: "pm_mirror" })
      const partial = yield* CardRefundPayments.refund({
        partnerId,
        id: paymentRequestId,
        amount: { value: 25, currencyCode: "USD" },
      })
      assert.strictEqual(partial.status, "Completed")
      const partly = yield* Payments.get(partnerId, paymentRequestId)
      assert.deepStrictEqual([partly.status, partly.refundedAmount], ["Paid", Money.make(2_500, "USD")])
      yield* CardRefundPayments.refund({ partnerId, id: paymentRequestId })
      const refunded = yield* Payments.get(partnerId, paymentRequestId)
      assert.deepStrictEqual([refunded.status, refunded.refundedAmount], ["Refunded", Money.make(6_000, "USD")])
    }).pipe(
      Effect.provide(
        Layer.mergeAll(
          EventPipeline.layerMemory(),
          UnitOfWork.layerMemory,
          IdGenerator.layerRandom,
          CardCharger.CardCharger.layerSandbox,
          CustomerProviderSandboxes.layerCardProcessorSandbox,
        ),
      ),
    ),
  )
})
