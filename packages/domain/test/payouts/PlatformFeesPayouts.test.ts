/**
 * Platform fees through the use cases on the in-memory domain: the partner's ACH terms in force when a
 * payment is accepted are recorded on its transfer (a later change does not touch them), the transfer
 * shows its fee, and the company's payout nets it with a `fee` item; a card payment's fee likewise.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as CardPayments from "../../src/cards-and-charity/CardPayments.ts"
import * as Companies from "../../src/companies/Companies.ts"
import * as EventPipeline from "../../src/composition/EventPipeline.ts"
import * as CustomerPreferences from "../../src/customers/CustomerPreferences.ts"
import * as CustomerProviderSandboxes from "../../src/customers/CustomerProviderSandboxes.ts"
import { IdGenerator } from "../../src/infrastructure/IdGenerator.ts"
import { UnitOfWork } from "../../src/infrastructure/UnitOfWork.ts"
import type { CalendarDate } from "../../src/kernel/CalendarDate.ts"
import type { BankAccountId, MerchantId, PartnerId, RegistrationId } from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as CardCharger from "../../src/payments/CardCharger.ts"
import type * as FeeSchedule from "../../src/payments/FeeSchedule.ts"
import * as InAppCardPayments from "../../src/payments/InAppCardPayments.ts"
import * as Payments from "../../src/payments/Payments.ts"
import * as PlatformFees from "../../src/payments/PlatformFees.ts"
import * as Transfers from "../../src/payments/Transfers.ts"
import * as Payouts from "../../src/payouts/Payouts.ts"
import { Fixtures } from "../../src/testing/index.ts"

const partnerId = "0c9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6c" as PartnerId
const payer = "7e57ab1e-0000-4000-8000-00000000c1df" as RegistrationId
const checking = "8c8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6a" as BankAccountId
const usd = (minorUnits: number) => Money.make(minorUnits, "USD")
const schedule: Payouts.PayoutSchedule = { minimumMinorUnits: 100, intervalMillis: 0 }

const layer = () =>
  Layer.mergeAll(
    EventPipeline.layerMemory(),
    UnitOfWork.layerMemory,
    IdGenerator.layerRandom,
    CardCharger.CardCharger.layerSandbox,
    CustomerProviderSandboxes.layerCardProcessorSandbox,
  )

/** 1% + 0.30 a collection; the provider's 0.25 and a 5.00 return fee, borne by the platform. */
const achTerms: FeeSchedule.FeeTerms = {
  percentageBasisPoints: 100,
  fixed: usd(30),
  providerCost: usd(25),
  returnFee: usd(500),
  returnFeePassedOn: false,
}

const company = Effect.gen(function* () {
  yield* TestClock.setTime(Date.parse("2026-03-02T10:00:00.000Z"))
  const { companyId } = yield* Companies.register(
    partnerId,
    Fixtures.companyRegistrationBody({ companyReferenceId: "fees-1", employees: [], locations: [] }),
  )
  yield* Companies.completeKyb(companyId, "Verified")
  yield* Companies.setPayoutAccount(partnerId, companyId, {
    accountHolderName: "Acme Coffee LLC",
    routingNumber: "011000015",
    accountNumber: "000123456789",
    accountType: "Checking",
  })
  yield* Fixtures.registerVerifiedCustomer(partnerId, payer, checking)
  return companyId
})

describe("a partner with an ACH fee schedule", () => {
  it.effect("a payment accepted records the fee in force; the payout nets it with a fee item", () =>
    Effect.gen(function* () {
      const companyId = yield* company
      yield* PlatformFees.set(partnerId, "AchDebit", achTerms)
      const { transferId } = yield* Fixtures.acceptedPaymentRequest(partnerId, companyId, payer, checking)
      // A later change records nothing on the transfer already initiated.
      yield* PlatformFees.set(partnerId, "AchDebit", { ...achTerms, percentageBasisPoints: 500 })
      const view = Transfers.viewOf(yield* Transfers.get({ _tag: "Partner", partnerId }, transferId))
      // 1% of 125.50 = 1.255 -> 1.26 (half up), + 0.30
      assert.deepStrictEqual(view.fee, usd(156))
      yield* Payments.settleTransfer(transferId)
      const [created] = yield* Payouts.payOutDue(companyId, schedule)
      const payout = yield* Payouts.get(partnerId, created!.payoutId)
      assert.deepStrictEqual(payout.amount, usd(12_550 - 156))
      const items = yield* Payouts.items(partnerId, created!.payoutId, { limit: 10 })
      assert.deepStrictEqual(
        items.data.map(({ itemId: _itemId, ...item }) => item),
        [
          { type: "payment", transferId, amount: usd(12_550) },
          { type: "fee", transferId, amount: { minorUnits: -156, currency: "USD" } },
        ],
      )
    }).pipe(Effect.provide(layer())),
  )

  it.effect("a payment request paid by card records the card fee; the balance nets it", () =>
    Effect.gen(function* () {
      const companyId = yield* company
      yield* PlatformFees.set(partnerId, "Card", {
        percentageBasisPoints: 290,
        fixed: usd(30),
        returnFeePassedOn: false,
      })
      yield* CustomerPreferences.saveCardPaymentMethod(partnerId, payer, {
        id: "pm_fees",
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
        amount: { value: 100, currencyCode: "USD" },
        description: "Invoice 7",
        dueDate: "2026-03-15" as CalendarDate,
      })
      yield* InAppCardPayments.pay({ partnerId, registrationId: payer, paymentRequestId, paymentMethodId: "pm_fees" })
      // 2.90% of 100.00 + 0.30
      const balance = yield* Payouts.balance(partnerId, companyId, "USD")
      assert.deepStrictEqual(balance.available, usd(10_000 - 320))
    }).pipe(Effect.provide(layer())),
  )

  it.effect("a terminal card payment for the company records the card fee; the balance nets it", () =>
    Effect.gen(function* () {
      const companyId = yield* company
      yield* PlatformFees.set(partnerId, "Card", {
        percentageBasisPoints: 290,
        fixed: usd(30),
        returnFeePassedOn: false,
      })
      yield* CardPayments.register({
        partnerId,
        merchantId: companyId as string as MerchantId,
        amount: { value: 100, currencyCode: "USD" },
        last4: "4242",
        brand: "visa",
        externalReference: "terminal-fees-1",
      })
      const balance = yield* Payouts.balance(partnerId, companyId, "USD")
      assert.deepStrictEqual(balance.available, usd(10_000 - 320))
    }).pipe(Effect.provide(layer())),
  )
})
