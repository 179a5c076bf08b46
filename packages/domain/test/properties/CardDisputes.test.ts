/**
 * Card money, its refunds and its disputes reconcile with the payouts. For any
 * sequence of terminal card payments for a company (each available from its
 * processor's availability date), refunds of them asked for, completed and
 * failed, disputes of them opened, moved, won and lost (the processor's
 * notifications repeated and out of order), and payouts taken at any time,
 * decided by the aggregates and carried by the policies:
 * - a disputed payment is never counted twice in a payout: across the
 *   balance and the payouts, a payment counts its amount once, less the
 *   disputed amount and the dispute fee while its dispute is open or lost,
 *   less its refunds pending or completed;
 * - refunds pending or completed never add up to more than their payment;
 * - no entry is in two places (the balance, a payout);
 * - no payout takes card money before its availability date.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import fc from "fast-check"
import * as CardDispute from "../../src/cards-and-charity/CardDispute.ts"
import * as CardPayment from "../../src/cards-and-charity/CardPayment.ts"
import * as CardRefunds from "../../src/cards-and-charity/CardRefunds.ts"
import type * as Ids from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import type { RefundId } from "../../src/payments/TransferEvents.ts"
import * as Balance from "../../src/payouts/Balance.ts"
import * as Ledger from "../../src/payouts/Ledger.ts"
import * as Payout from "../../src/payouts/Payout.ts"
import { PropertyParams } from "../../src/testing/index.ts"
import { makeWorld } from "./PolicyWorld.ts"

const seeded = PropertyParams.propertyParams(38)

const partnerId = "8e2e3f40-5b6c-4d7e-8f90-000000000001" as Ids.PartnerId
const companyId = "8e2e3f40-5b6c-4d7e-8f90-000000000002" as Ids.CompanyId
const payoutAccountId = "8e2e3f40-5b6c-4d7e-8f90-000000000004" as Ids.PayoutAccountId
const payoutIdOf = (n: number) => `8e2e3f40-5b6c-4d7e-8f90-2000000000${String(n).padStart(2, "0")}` as Ids.PayoutId
const cardPaymentIdOf = (n: number) =>
  `8e2e3f40-5b6c-4d7e-8f90-4000000000${String(n).padStart(2, "0")}` as Ids.CardPaymentId
const disputeIdOf = (n: number) => `dp_${n}`
const refundIdOf = (n: number) => `8e2e3f40-5b6c-4d7e-8f90-${String(n).padStart(12, "0")}`
const start = DateTime.toEpochMillis(DateTime.makeUnsafe("2026-03-02T10:00:00.000Z"))
const minute = 60_000

type Step =
  /** A card payment, available `availableAfter` minutes later. */
  | { readonly _tag: "CardPayment"; readonly minorUnits: number; readonly availableAfter: number }
  /** The processor opens (or opens again) the dispute of payment `payment`, for a share of it and a fee. */
  | {
      readonly _tag: "OpenDispute"
      readonly payment: number
      readonly share: number
      readonly fee: number
      readonly status: CardDispute.OpenStatus
    }
  | { readonly _tag: "DisputeStatus"; readonly payment: number; readonly status: CardDispute.OpenStatus }
  | { readonly _tag: "CloseDispute"; readonly payment: number; readonly outcome: CardDispute.Outcome }
  /** A refund of payment `payment` asked for (a share of it), then its outcome. */
  | { readonly _tag: "Refund"; readonly payment: number; readonly share: number }
  | { readonly _tag: "RefundOutcome"; readonly refund: number; readonly completed: boolean }
  | { readonly _tag: "PayOut" }
  | { readonly _tag: "PayoutOutcome"; readonly payout: number; readonly failed: boolean }

const paymentIndex = fc.integer({ min: 0, max: 5 })
const arbitraryStep: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      _tag: fc.constant("CardPayment" as const),
      minorUnits: fc.integer({ min: 1, max: 30_000 }),
      availableAfter: fc.integer({ min: 0, max: 20 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      _tag: fc.constant("OpenDispute" as const),
      payment: paymentIndex,
      share: fc.integer({ min: 1, max: 10_000 }),
      fee: fc.constantFrom(0, 1_500),
      status: fc.constantFrom("NeedsResponse" as const, "UnderReview" as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      _tag: fc.constant("DisputeStatus" as const),
      payment: paymentIndex,
      status: fc.constantFrom("NeedsResponse" as const, "UnderReview" as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      _tag: fc.constant("CloseDispute" as const),
      payment: paymentIndex,
      outcome: fc.constantFrom("Won" as const, "Lost" as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      _tag: fc.constant("Refund" as const),
      payment: paymentIndex,
      share: fc.integer({ min: 1, max: 10_000 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      _tag: fc.constant("RefundOutcome" as const),
      refund: fc.integer({ min: 0, max: 8 }),
      completed: fc.boolean(),
    }),
  },
  { weight: 3, arbitrary: fc.record({ _tag: fc.constant("PayOut" as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      _tag: fc.constant("PayoutOutcome" as const),
      payout: fc.integer({ min: 0, max: 5 }),
      failed: fc.boolean(),
    }),
  },
)
const arbitrarySteps = fc.array(arbitraryStep, { minLength: 10, maxLength: 60 })

const run = (steps: ReadonlyArray<Step>) => {
  const world = makeWorld()
  const payments: Array<{ readonly cardPaymentId: Ids.CardPaymentId; readonly amount: Money.Money }> = []
  const refundsAsked: Array<{ readonly cardPaymentId: Ids.CardPaymentId; readonly refundId: RefundId }> = []
  let payouts = 0
  const payoutTimes: Array<DateTime.Utc> = []
  steps.forEach((step, index) => {
    const at = DateTime.makeUnsafe(start + index * minute)
    switch (step._tag) {
      case "CardPayment": {
        const cardPaymentId = cardPaymentIdOf(payments.length)
        const amount = Money.make(step.minorUnits, "USD")
        payments.push({ cardPaymentId, amount })
        world.handle(CardPayment.aggregate, cardPaymentId, {
          _tag: "RegisterCardPayment",
          cardPaymentId,
          partnerId,
          merchantId: companyId as string as Ids.MerchantId,
          amount,
          last4: "4242",
          brand: "visa",
          externalReference: `terminal-${cardPaymentId}`,
          processorReference: `ch-${cardPaymentId}`,
          company: { companyId, status: "Verified" },
          availableAt: DateTime.makeUnsafe(start + (index + step.availableAfter) * minute),
          at,
        } satisfies CardPayment.RegisterCardPayment)
        break
      }
      case "OpenDispute": {
        const payment = payments[step.payment]
        if (payment === undefined) break
        const disputed = Math.max(1, Math.floor((payment.amount.minorUnits * step.share) / 10_000))
        world.handle(CardDispute.aggregate, disputeIdOf(step.payment), {
          _tag: "OpenCardDispute",
          dispute: {
            disputeId: disputeIdOf(step.payment),
            payment: { cardPaymentId: payment.cardPaymentId, partnerId, companyId },
            amount: Money.make(disputed, "USD"),
            fee: Money.make(step.fee, "USD"),
            reason: "fraudulent",
          },
          paymentAmount: payment.amount,
          status: step.status,
          at,
        } satisfies CardDispute.OpenCardDispute)
        break
      }
      case "Refund": {
        const payment = payments[step.payment]
        if (payment === undefined) break
        const refundId = refundIdOf(index) as RefundId
        const recorded = world.handle(CardRefunds.aggregate, payment.cardPaymentId, {
          _tag: "RefundCardPayment",
          payment: { ...payment, partnerId, companyId, processorReference: `ch-${payment.cardPaymentId}` },
          refundId,
          amount: Money.make(Math.max(1, Math.floor((payment.amount.minorUnits * step.share) / 10_000)), "USD"),
          at,
        } satisfies CardRefunds.RefundCardPayment)
        if (recorded > 0) refundsAsked.push({ cardPaymentId: payment.cardPaymentId, refundId })
        break
      }
      case "RefundOutcome": {
        const asked = refundsAsked[step.refund]
        if (asked === undefined) break
        world.handle(CardRefunds.aggregate, asked.cardPaymentId, {
          _tag: "RecordCardRefundOutcome",
          refundId: asked.refundId,
          outcome: step.completed ? { _tag: "Completed" } : { _tag: "Failed", reason: "expired_card" },
          at,
        } satisfies CardRefunds.RecordCardRefundOutcome)
        break
      }
      case "DisputeStatus":
        world.handle(CardDispute.aggregate, disputeIdOf(step.payment), {
          _tag: "ChangeCardDisputeStatus",
          disputeId: disputeIdOf(step.payment),
          status: step.status,
          at,
        } satisfies CardDispute.ChangeCardDisputeStatus)
        break
      case "CloseDispute":
        world.handle(CardDispute.aggregate, disputeIdOf(step.payment), {
          _tag: "CloseCardDispute",
          disputeId: disputeIdOf(step.payment),
          outcome: step.outcome,
          at,
        } satisfies CardDispute.CloseCardDispute)
        break
      case "PayOut": {
        const paid = world.handle(Balance.aggregate, companyId, {
          _tag: "PayOutBalance",
          companyId,
          payoutId: payoutIdOf(payouts),
          currency: "USD",
          minimumMinorUnits: 1,
          intervalMillis: 0,
          payoutAccountId,
          accountNumberMasked: "****4321",
          at,
        } satisfies Balance.PayOutBalance)
        if (paid > 0) {
          payouts++
          payoutTimes.push(at)
        }
        break
      }
      case "PayoutOutcome":
        world.handle(Payout.aggregate, payoutIdOf(step.payout), {
          _tag: "RecordPayoutOutcome",
          payoutId: payoutIdOf(step.payout),
          outcome: step.failed ? { status: "Failed", returnCode: "R03" } : { status: "Settled" },
          at,
        } satisfies Payout.RecordPayoutOutcome)
        break
    }
  })
  const disputes = payments.map((_, n) => world.state(CardDispute.aggregate, disputeIdOf(n)))
  const refunds = payments.map((payment) => world.state(CardRefunds.aggregate, payment.cardPaymentId))
  const payoutStates = [...Array(payouts).keys()].map((n) => world.state(Payout.aggregate, payoutIdOf(n)))
  return {
    balance: world.state(Balance.aggregate, companyId),
    payments,
    disputes,
    refunds,
    payouts: payoutStates,
    payoutTimes,
  }
}

/** Every entry where money of the company is now: the balance and the payouts not failed. */
const placedEntries = (result: ReturnType<typeof run>): ReadonlyArray<Ledger.LedgerEntry> => [
  ...(result.balance._tag === "Open" ? result.balance.entries : []),
  ...result.payouts.flatMap((payout) =>
    payout._tag === "Initial" || payout._tag === "Failed" ? [] : payout.details.items,
  ),
]

describe("card payments and their disputes, after any sequence of notifications and payouts", () => {
  it("a disputed payment is never counted twice in a payout", () => {
    fc.assert(
      fc.property(arbitrarySteps, (steps) => {
        const result = run(steps)
        const entries = placedEntries(result)
        result.payments.forEach((payment, n) => {
          const dispute = result.disputes[n]!
          const taken =
            dispute._tag === "Initial" || (dispute._tag === "Closed" && dispute.outcome === "Won")
              ? 0
              : dispute.dispute.amount.minorUnits + dispute.dispute.fee.minorUnits
          const refunds = result.refunds[n]!
          const refunded = refunds._tag === "Initial" ? 0 : CardRefunds.heldOf(refunds.refunds)
          const counted = Ledger.sumOf(
            entries.filter((entry) => entry.cardPaymentId === payment.cardPaymentId),
            "USD",
          )
          assert.strictEqual(counted, payment.amount.minorUnits - taken - refunded)
        })
      }),
      seeded(),
    )
  })

  it("refunds pending or completed never add up to more than their payment", () => {
    fc.assert(
      fc.property(arbitrarySteps, (steps) => {
        const result = run(steps)
        result.payments.forEach((payment, n) => {
          const refunds = result.refunds[n]!
          if (refunds._tag !== "Initial")
            assert.isAtMost(CardRefunds.heldOf(refunds.refunds), payment.amount.minorUnits)
        })
      }),
      seeded(),
    )
  })

  it("no entry is in two places", () => {
    fc.assert(
      fc.property(arbitrarySteps, (steps) => {
        const ids = placedEntries(run(steps)).map((entry) => entry.entryId)
        assert.strictEqual(new Set(ids).size, ids.length)
      }),
      seeded(),
    )
  })

  it("no payout takes card money before its availability date", () => {
    fc.assert(
      fc.property(arbitrarySteps, (steps) => {
        const result = run(steps)
        result.payouts.forEach((payout, n) => {
          if (payout._tag === "Initial") return
          for (const item of payout.details.items)
            assert.isTrue(Ledger.isAvailable(item, result.payoutTimes[n]!), `${item.entryId} paid out too soon`)
        })
      }),
      seeded(),
    )
  })
})

describe("the sequences generated", () => {
  it("include disputes won and lost and card money waiting at a payout (the properties are not vacuous)", () => {
    const samples = fc.sample(arbitrarySteps, seeded({ numRuns: 300 })).map(run)
    const outcomes = samples.flatMap((result) =>
      result.disputes.flatMap((dispute) => (dispute._tag === "Closed" ? [dispute.outcome] : [])),
    )
    assert.include(outcomes, "Won")
    assert.include(outcomes, "Lost")
    const paidTypes = samples.flatMap((result) =>
      result.payouts.flatMap((payout) => (payout._tag === "Initial" ? [] : payout.details.items.map((i) => i.type))),
    )
    assert.include(paidTypes, "dispute")
    const refundStatuses = samples.flatMap((result) =>
      result.refunds.flatMap((refunds) => (refunds._tag === "Initial" ? [] : refunds.refunds.map((r) => r.status))),
    )
    for (const status of ["Pending", "Completed", "Failed"]) assert.include(refundStatuses, status)
    assert.isTrue(
      samples.some(
        (result) =>
          result.balance._tag === "Open" &&
          result.payoutTimes.length > 0 &&
          result.balance.entries.some((entry) => !Ledger.isAvailable(entry, result.payoutTimes.at(-1)!)),
      ),
      "some card money waits for its date at a payout",
    )
  })
})
