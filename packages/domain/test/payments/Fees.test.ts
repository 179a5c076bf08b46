/**
 * Platform fees, provider costs and return fees (packages/domain/docs/Fees.md): the rounding rule
 * (`FeeSchedule.platformFeeOf`), the partner's terms per rail (`PartnerFees`), the facts a transfer
 * records from the terms in force at initiation, and the ledger entries they make.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import fc from "fast-check"
import type {
  CardPaymentId,
  CompanyId,
  PartnerId,
  PaymentRequestId,
  RegistrationId,
  TransferId,
} from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as FeeSchedule from "../../src/payments/FeeSchedule.ts"
import * as PartnerFees from "../../src/payments/PartnerFees.ts"
import type * as PaymentRequestEvents from "../../src/payments/PaymentRequestEvents.ts"
import * as Transfer from "../../src/payments/Transfer.ts"
import * as Ledger from "../../src/payouts/Ledger.ts"
import { DeciderSpecification, Fixtures, PropertyParams } from "../../src/testing/index.ts"

const seeded = PropertyParams.propertyParams(2026_11_28)

const usd = (minorUnits: number) => Money.make(minorUnits, "USD")
const partnerId = "9a1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e01" as PartnerId
const companyId = "9a1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e02" as CompanyId
const transferId = "9a1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e03" as TransferId
const payer = "9a1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e04" as RegistrationId
const at = DateTime.makeUnsafe("2026-11-28T10:00:00.000Z")

const terms = (overrides: Partial<FeeSchedule.FeeTerms> = {}): FeeSchedule.FeeTerms => ({
  percentageBasisPoints: 290,
  fixed: usd(30),
  providerCost: usd(25),
  returnFee: usd(500),
  returnFeePassedOn: true,
  ...overrides,
})

describe("a platform fee (percentage half up, plus the fixed part, within the amount)", () => {
  it("is the percentage of the amount rounded half up plus the fixed part", () => {
    // 2.90% of 100.00 = 2.90, + 0.30
    assert.deepStrictEqual(FeeSchedule.platformFeeOf(terms(), usd(10_000)), usd(320))
    // 1.50% of 0.33 = 0.495 cent -> 0 (below half a cent), no fixed part
    assert.deepStrictEqual(
      FeeSchedule.platformFeeOf({ ...FeeSchedule.none, percentageBasisPoints: 150 }, usd(33)),
      usd(0),
    )
    assert.deepStrictEqual(
      FeeSchedule.platformFeeOf({ ...FeeSchedule.none, percentageBasisPoints: 150 }, usd(100)),
      usd(2), // 1.5 -> 2
    )
    assert.deepStrictEqual(
      FeeSchedule.platformFeeOf({ ...FeeSchedule.none, percentageBasisPoints: 149 }, usd(100)),
      usd(1), // 1.49 -> 1
    )
  })
  it("never exceeds the amount", () =>
    assert.deepStrictEqual(FeeSchedule.platformFeeOf(terms({ fixed: usd(500) }), usd(100)), usd(100)))
  it("counts the fixed part only in its own currency", () =>
    assert.deepStrictEqual(
      FeeSchedule.platformFeeOf(terms({ percentageBasisPoints: 0, fixed: Money.make(30, "EUR") }), usd(10_000)),
      usd(0),
    ))
  it("is zero without terms", () =>
    assert.deepStrictEqual(FeeSchedule.platformFeeOf(FeeSchedule.none, usd(10_000)), usd(0)))
  it("is, for any amount and terms, between zero and the amount, and exactly the rounded percentage plus the fixed part", () =>
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: Money.maxMinorUnits }),
        fc.integer({ min: 0, max: FeeSchedule.maxBasisPoints }),
        fc.integer({ min: 0, max: 100_000 }),
        (amount, bps, fixed) => {
          const fee = FeeSchedule.platformFeeOf(terms({ percentageBasisPoints: bps, fixed: usd(fixed) }), usd(amount))
          assert.isAtLeast(fee.minorUnits, 0)
          assert.isAtMost(fee.minorUnits, amount)
          const exact = (BigInt(amount) * BigInt(bps) * 2n + 10_000n) / 20_000n
          assert.strictEqual(fee.minorUnits, Math.min(amount, Number(exact) + fixed))
        },
      ),
      seeded(),
    ))
})

const spec = DeciderSpecification.forAggregate(PartnerFees.aggregate)
const set = (rail: FeeSchedule.Rail, given: FeeSchedule.FeeTerms): PartnerFees.SetFeeSchedule => ({
  _tag: "SetFeeSchedule",
  partnerId,
  rail,
  terms: given,
  at,
})
const scheduleSet = (rail: FeeSchedule.Rail, given: FeeSchedule.FeeTerms) =>
  PartnerFees.FeeScheduleSet.make({ partnerId, rail, terms: given, at })

describe("a partner with no fee terms", () => {
  it("has none on every rail", () =>
    spec
      .given([])
      .when(set("Card", FeeSchedule.none))
      .thenState((state) => {
        assert.deepStrictEqual(PartnerFees.termsOf(state, "AchDebit"), FeeSchedule.none)
      }))
  it("SetFeeSchedule records FeeScheduleSet for the rail", () =>
    spec
      .given([])
      .when(set("AchDebit", terms()))
      .then([scheduleSet("AchDebit", terms())]))
  it("SetFeeSchedule with bad terms is refused naming each field, and nothing is recorded", () =>
    spec
      .given([])
      .when(set("AchDebit", terms({ percentageBasisPoints: 10_001, fixed: usd(-1), returnFee: usd(0.5) })))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [
          { field: "percentageBasisPoints", message: "must be a whole number of basis points from 0 to 10000" },
          { field: "fixed", message: "must be zero or more whole minor units" },
          { field: "returnFee", message: "must be zero or more whole minor units" },
        ],
      }))
})

describe("a partner with fee terms on a rail", () => {
  it("SetFeeSchedule with the same terms does nothing", () =>
    spec
      .given([scheduleSet("AchDebit", terms())])
      .when(set("AchDebit", terms()))
      .thenNothingHappens())
  it("SetFeeSchedule with other terms replaces them; the other rail keeps its own", () =>
    spec
      .given([scheduleSet("AchDebit", terms()), scheduleSet("Card", terms({ percentageBasisPoints: 300 }))])
      .when(set("AchDebit", terms({ percentageBasisPoints: 100 })))
      .thenState((state) => {
        assert.strictEqual(PartnerFees.termsOf(state, "AchDebit").percentageBasisPoints, 100)
        assert.strictEqual(PartnerFees.termsOf(state, "Card").percentageBasisPoints, 300)
      }))
})

const initiate = (fees: FeeSchedule.AppliedFees): Transfer.InitiateTransfer => ({
  _tag: "InitiateTransfer",
  transferId,
  paymentRequestId: "9a1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e05" as PaymentRequestId,
  ...fees,
  payerRegistrationId: payer,
  partnerId,
  companyId,
  parties: { companyStatus: "Verified", payerKyc: "Verified" },
  amount: usd(10_000),
  senderName: "Jane Payer",
  recipientName: "Acme Dental",
  senderAccountMasked: "****6789",
  recipientAccountMasked: "****4321",
  recipientAddress: Fixtures.recipientAddress,
  attachments: [],
  description: "Invoice 42",
  at,
})

/** The transfer's events from initiation under `given` terms through `then`. */
const story = (given: FeeSchedule.FeeTerms, ...then: ReadonlyArray<Transfer.Command>) => {
  let state = Transfer.initialState
  const events: Array<Transfer.Event> = []
  for (const command of [initiate(FeeSchedule.appliedFeesOf("AchDebit", given, usd(10_000))), ...then]) {
    const decision = Transfer.decide(command, state)
    assert.strictEqual(decision._tag, "Success")
    if (decision._tag !== "Success") break
    for (const event of decision.success) {
      state = Transfer.evolve(state, event)
      events.push(event)
    }
  }
  return { state, events }
}
const fail: Transfer.FailTransfer = { _tag: "FailTransfer", transferId, returnCode: "R01", reason: "NSF", at }
const settle: Transfer.SettleTransfer = { _tag: "SettleTransfer", transferId, at }
const returned: Transfer.RecordOutcome = {
  _tag: "RecordOutcome",
  transferId,
  outcome: { _tag: "Returned", returnCode: "R10" },
  at,
}

describe("a collection initiated under the partner's ACH terms", () => {
  it("records its fee, the schedule that produced it, the provider's cost and the return fee in force", () => {
    const [event] = story(terms()).events
    assert.strictEqual(event?._tag, "TransferInitiated")
    if (event?._tag !== "TransferInitiated") return
    assert.deepStrictEqual(event.platformFee, usd(320))
    assert.deepStrictEqual(event.feeSchedule, { rail: "AchDebit", percentageBasisPoints: 290, fixed: usd(30) })
    assert.deepStrictEqual(event.providerCost, usd(25))
    assert.deepStrictEqual(event.returnFeeTerms, { amount: usd(500), passedOn: true })
  })
  it("records nothing of fees without terms", () => {
    const [event] = story(FeeSchedule.none).events
    assert.isFalse(event !== undefined && ("platformFee" in event || "feeSchedule" in event || "providerCost" in event))
  })
  it("failed by the bank with a code, records the return fee on TransferFailed", () => {
    const failed = story(terms(), fail).events.at(-1)
    assert.strictEqual(failed?._tag, "TransferFailed")
    assert.deepStrictEqual(failed?._tag === "TransferFailed" ? failed.returnFee : undefined, {
      amount: usd(500),
      passedOn: true,
    })
  })
  it("returned after settlement, records the return fee on TransferReturned", () => {
    const last = story(terms({ returnFeePassedOn: false }), settle, returned).events.at(-1)
    assert.strictEqual(last?._tag, "TransferReturned")
    assert.deepStrictEqual(last?._tag === "TransferReturned" ? last.returnFee : undefined, {
      amount: usd(500),
      passedOn: false,
    })
  })
})

const transferSpec = DeciderSpecification.forAggregate(Transfer.aggregate)
const initiatedUnder = (given: FeeSchedule.FeeTerms) => story(given).events[0]!

describe("a Pending transfer initiated under a return fee", () => {
  it("FailTransfer with a code records TransferFailed with the return fee in force at initiation", () =>
    transferSpec
      .given([initiatedUnder(terms())])
      .when(fail)
      .then([
        {
          _tag: "TransferFailed",
          transferId,
          returnCode: "R01",
          reason: "NSF",
          returnFee: { amount: usd(500), passedOn: true },
          at,
        },
      ]))
  it("a rail's refusal (no return code) records no return fee", () =>
    transferSpec
      .given([initiatedUnder(terms())])
      .when({ _tag: "RecordOutcome", transferId, outcome: { _tag: "Refused", reason: "refused" }, at })
      .then([{ _tag: "TransferFailed", transferId, reason: "refused", at }]))
})

describe("the company's ledger of a collection with fees", () => {
  it("settled: the fee leaves the balance beside the amount", () => {
    const { state, events } = story(terms(), settle)
    assert.deepStrictEqual(Ledger.feeEntryOf(events.at(-1)!, state)?.amount, { minorUnits: -320, currency: "USD" })
  })
  it("returned: the fee comes back, and a return fee passed on leaves the balance as its own entry", () => {
    const { state, events } = story(terms(), settle, returned)
    const last = events.at(-1)!
    assert.deepStrictEqual(Ledger.feeEntryOf(last, state)?.amount, { minorUnits: 320, currency: "USD" })
    assert.deepStrictEqual(Ledger.returnFeeEntryOf(last, state), {
      entryId: `${transferId}:returnFee`,
      type: "returnFee",
      transferId,
      amount: { minorUnits: -500, currency: "USD" },
    })
  })
  it("a return fee the platform bears makes no entry", () => {
    const { state, events } = story(terms({ returnFeePassedOn: false }), fail)
    assert.isUndefined(Ledger.returnFeeEntryOf(events.at(-1)!, state))
  })
  it("a card payment's fee leaves the balance with the payment's money, from its availability date", () => {
    const availableAt = DateTime.makeUnsafe("2026-11-30T00:00:00.000Z")
    const paid = {
      _tag: "PaymentRequestPaidByCard",
      cardPaymentId: "9a1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e06" as CardPaymentId,
      platformFee: usd(320),
      availableAt,
    } as PaymentRequestEvents.Of<"PaymentRequestPaidByCard">
    assert.deepStrictEqual(Ledger.cardFeeEntryOf(paid), {
      entryId: "9a1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e06:fee",
      type: "fee",
      cardPaymentId: paid.cardPaymentId,
      amount: { minorUnits: -320, currency: "USD" },
      availableAt,
    })
    const { platformFee: _fee, ...withoutFee } = paid
    assert.isUndefined(Ledger.cardFeeEntryOf(withoutFee as PaymentRequestEvents.Of<"PaymentRequestPaidByCard">))
  })
})
