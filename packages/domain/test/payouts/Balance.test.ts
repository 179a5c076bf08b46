/**
 * Executable specification of a company's balance (the CompanyBalance
 * aggregate): entries become available once, a payout takes every available
 * entry of its currency when they reach the minimum and the schedule allows,
 * a negative balance waits for later collections, a failed payout's items come
 * back.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Schema } from "effect"
import { fold } from "../../src/kernel/Decider.ts"
import type {
  CardPaymentId,
  CompanyId,
  PartnerId,
  PayoutAccountId,
  PayoutId,
  TransferId,
} from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import type { RefundId } from "../../src/payments/TransferEvents.ts"
import * as Balance from "../../src/payouts/Balance.ts"
import * as BalanceEvents from "../../src/payouts/BalanceEvents.ts"
import type * as Ledger from "../../src/payouts/Ledger.ts"
import { DeciderSpecification } from "../../src/testing/index.ts"

const { BalanceDeficitObserved, BalancePaidOut, LedgerEntryRecorded, PayoutItemsRestored } =
  BalanceEvents.BalanceEvent.cases

const spec = DeciderSpecification.forAggregate(Balance.aggregate)

const id = (n: number) => `5e2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e${String(n).padStart(2, "0")}`
const partnerId = id(1) as PartnerId
const companyId = id(2) as CompanyId
const payoutAccountId = id(3) as PayoutAccountId
const payoutId = id(4) as PayoutId
const secondPayoutId = id(5) as PayoutId
const transfer = (n: number) => id(10 + n) as TransferId
const refundId = id(30) as RefundId
const at = DateTime.makeUnsafe("2026-03-02T10:00:00.000Z")
const nextDay = DateTime.makeUnsafe("2026-03-03T10:00:00.000Z")
const anHourLater = DateTime.makeUnsafe("2026-03-02T11:00:00.000Z")
const day = 86_400_000

const payment = (n: number, minorUnits: number, currency: Money.CurrencyCode = "USD"): Ledger.LedgerEntry => ({
  entryId: `${transfer(n)}:settled`,
  type: "payment",
  transferId: transfer(n),
  amount: { minorUnits, currency },
})
const refund = (n: number, minorUnits: number): Ledger.LedgerEntry => ({
  entryId: `${transfer(n)}:refund:${refundId}`,
  type: "refund",
  transferId: transfer(n),
  refundId,
  amount: { minorUnits: -minorUnits, currency: "USD" },
})

const recorded = (entry: Ledger.LedgerEntry) => LedgerEntryRecorded.make({ companyId, partnerId, entry, at })
const record = (entry: Ledger.LedgerEntry): Balance.RecordLedgerEntry => ({
  _tag: "RecordLedgerEntry",
  companyId,
  partnerId,
  entry,
  at,
})
const payOut = (overrides: Partial<Balance.PayOutBalance> = {}): Balance.PayOutBalance => ({
  _tag: "PayOutBalance",
  companyId,
  payoutId,
  currency: "USD",
  minimumMinorUnits: 100,
  intervalMillis: day,
  payoutAccountId,
  accountNumberMasked: "****6789",
  at,
  ...overrides,
})
const paidOut = (items: ReadonlyArray<Ledger.LedgerEntry>, minorUnits: number, when = at, payout = payoutId) =>
  BalancePaidOut.make({
    companyId,
    partnerId,
    payoutId: payout,
    amount: Money.make(minorUnits, "USD"),
    items,
    payoutAccountId,
    accountNumberMasked: "****6789",
    at: when,
  })

describe("a company with no ledger yet", () => {
  it("a settled transfer's entry makes its amount available", () => {
    spec
      .given([])
      .when(record(payment(1, 5_000)))
      .then([recorded(payment(1, 5_000))])
  })
  it("nothing is paid out", () => {
    spec.given([]).when(payOut()).thenNothingHappens()
  })
  it("nothing is available", () => {
    assert.strictEqual(Balance.availableOf(Balance.initialState, "USD"), 0)
    assert.strictEqual(Balance.availableAt(Balance.initialState, "USD", at), 0)
  })
  it("a deficit observed does not fit and leaves it unchanged", () => {
    spec.given([]).ignores(observed())
  })
  it("nothing is restored", () => {
    spec
      .given([])
      .when({ _tag: "RestorePayoutItems", companyId, payoutId, items: [payment(1, 5_000)], at })
      .thenNothingHappens()
  })
  it("a payout or a restoration does not fit and leaves it unchanged", () => {
    spec.given([]).ignores(paidOut([payment(1, 5_000)], 5_000))
    spec.given([]).ignores(PayoutItemsRestored.make({ companyId, partnerId, payoutId, items: [payment(1, 5_000)], at }))
  })
})

describe("a company with available entries", () => {
  it("the same entry recorded again changes nothing", () => {
    spec
      .given([recorded(payment(1, 5_000))])
      .when(record(payment(1, 5_000)))
      .thenNothingHappens()
  })
  it("a payout takes every entry of its currency, and its amount is their sum exactly", () => {
    spec
      .given([recorded(payment(1, 5_000)), recorded(payment(2, 2_500)), recorded(refund(1, 1_000))])
      .when(payOut())
      .then([paidOut([payment(1, 5_000), payment(2, 2_500), refund(1, 1_000)], 6_500)])
  })
  it("entries of another currency stay for that currency's payout", () => {
    spec
      .given([recorded(payment(1, 5_000)), recorded(payment(2, 3_000, "EUR"))])
      .when(payOut())
      .then([paidOut([payment(1, 5_000)], 5_000)])
  })
  it("another entry is recorded beside them", () => {
    spec
      .given([recorded(payment(1, 5_000))])
      .when(record(payment(2, 5_000)))
      .then([recorded(payment(2, 5_000))])
  })
  it("entries adding up to the minimum exactly are paid out", () => {
    spec
      .given([recorded(payment(1, 100))])
      .when(payOut())
      .then([paidOut([payment(1, 100)], 100)])
  })
  it("a balance of zero is not paid out, even with a minimum of zero", () => {
    spec
      .given([recorded(payment(1, 3_000)), recorded(refund(1, 3_000))])
      .when(payOut({ minimumMinorUnits: 0 }))
      .thenNothingHappens()
  })
  it("a balance of one minor unit is paid out when the minimum allows it", () => {
    spec
      .given([recorded(payment(1, 1))])
      .when(payOut({ minimumMinorUnits: 0 }))
      .then([paidOut([payment(1, 1)], 1)])
  })
  it("below the minimum nothing is paid out", () => {
    spec
      .given([recorded(payment(1, 99))])
      .when(payOut())
      .thenNothingHappens()
  })
  it("a balance made negative by a refund is not paid out; later collections recover it", () => {
    spec
      .given([recorded(refund(1, 3_000))])
      .when(payOut())
      .thenNothingHappens()
    spec
      .given([recorded(refund(1, 3_000)), recorded(payment(2, 5_000))])
      .when(payOut())
      .then([paidOut([refund(1, 3_000), payment(2, 5_000)], 2_000)])
  })
})

describe("a company paid out recently", () => {
  const history = [recorded(payment(1, 5_000)), paidOut([payment(1, 5_000)], 5_000), recorded(payment(2, 7_000))]
  it("the schedule holds the next payout until the interval has passed", () => {
    spec
      .given(history)
      .when(payOut({ payoutId: secondPayoutId, at: anHourLater }))
      .thenNothingHappens()
  })
  it("after the interval the new entries are paid out, the earlier ones are not again", () => {
    spec
      .given(history)
      .when(payOut({ payoutId: secondPayoutId, at: nextDay }))
      .then([paidOut([payment(2, 7_000)], 7_000, nextDay, secondPayoutId)])
  })
  it("the next payout is due exactly when the interval has passed", () => {
    spec
      .given(history)
      .when(payOut({ payoutId: secondPayoutId, at: nextDay }))
      .then([paidOut([payment(2, 7_000)], 7_000, nextDay, secondPayoutId)])
    spec
      .given(history)
      .when(payOut({ payoutId: secondPayoutId, at: DateTime.subtract(nextDay, { milliseconds: 1 }) }))
      .thenNothingHappens()
  })
  it("a payout of another currency is not held by this one's schedule", () => {
    spec
      .given([...history, recorded(payment(3, 4_000, "EUR"))])
      .when(payOut({ payoutId: secondPayoutId, currency: "EUR", at: anHourLater }))
      .then([
        BalancePaidOut.make({
          companyId,
          partnerId,
          payoutId: secondPayoutId,
          amount: Money.make(4_000, "EUR"),
          items: [payment(3, 4_000, "EUR")],
          payoutAccountId,
          accountNumberMasked: "****6789",
          at: anHourLater,
        }),
      ])
  })
  it("a payout of another currency keeps this one's schedule", () => {
    const eurPaidOut = BalancePaidOut.make({
      companyId,
      partnerId,
      payoutId: secondPayoutId,
      amount: Money.make(4_000, "EUR"),
      items: [payment(3, 4_000, "EUR")],
      payoutAccountId,
      accountNumberMasked: "****6789",
      at: anHourLater,
    })
    spec
      .given([...history, recorded(payment(3, 4_000, "EUR")), eurPaidOut])
      .when(payOut({ payoutId: id(6) as PayoutId, at: DateTime.add(anHourLater, { hours: 1 }) }))
      .thenNothingHappens()
  })
  it("the schedule counts from the latest payout of the currency, not an earlier one", () => {
    const twoPayouts = [...history, paidOut([payment(2, 7_000)], 7_000, nextDay, secondPayoutId)]
    spec
      .given([...twoPayouts, recorded(payment(3, 2_000))])
      .when(payOut({ payoutId: id(6) as PayoutId, at: DateTime.add(nextDay, { hours: 1 }) }))
      .thenNothingHappens()
  })
  it("the available balance no longer counts what was paid out", () => {
    assert.strictEqual(Balance.availableOf(fold(Balance.aggregate, history), "USD"), 7_000)
  })
})

describe("a company whose payout failed", () => {
  const history = [recorded(payment(1, 5_000)), paidOut([payment(1, 5_000)], 5_000)]
  const restore: Balance.RestorePayoutItems = {
    _tag: "RestorePayoutItems",
    companyId,
    payoutId,
    items: [payment(1, 5_000)],
    at: anHourLater,
  }
  it("the payout's items are available again", () => {
    spec
      .given(history)
      .when(restore)
      .then([PayoutItemsRestored.make({ companyId, partnerId, payoutId, items: [payment(1, 5_000)], at: anHourLater })])
  })
  it("only the items not already available again are restored", () => {
    spec
      .given([...history, recorded(payment(2, 2_000))])
      .when({ ...restore, items: [payment(2, 2_000), payment(1, 5_000)] })
      .then([PayoutItemsRestored.make({ companyId, partnerId, payoutId, items: [payment(1, 5_000)], at: anHourLater })])
  })
  it("the restored items count in the available balance again", () => {
    const state = fold(Balance.aggregate, [
      ...history,
      PayoutItemsRestored.make({ companyId, partnerId, payoutId, items: [payment(1, 5_000)], at: anHourLater }),
    ])
    assert.strictEqual(Balance.availableOf(state, "USD"), 5_000)
  })
  it("restoring twice changes nothing the second time", () => {
    spec
      .given([
        ...history,
        PayoutItemsRestored.make({ companyId, partnerId, payoutId, items: [payment(1, 5_000)], at: anHourLater }),
      ])
      .when(restore)
      .thenNothingHappens()
  })
})

describe("the snapshot", () => {
  it("a state survives its JSON codec unchanged", () => {
    const state = fold(Balance.aggregate, [recorded(payment(1, 5_000)), paidOut([payment(1, 5_000)], 5_000)])
    const codec = Balance.aggregate.snapshot!.state
    const json = Schema.encodeSync(codec)(state)
    assert.deepStrictEqual(Schema.decodeUnknownSync(codec)(JSON.parse(JSON.stringify(json))), state)
  })
})

describe("a company whose card money waits for the processor's availability date", () => {
  const card = (n: number, minorUnits: number, availableAt: DateTime.Utc): Ledger.LedgerEntry => ({
    entryId: `${id(40 + n)}:card`,
    type: "card",
    cardPaymentId: id(40 + n) as CardPaymentId,
    amount: { minorUnits, currency: "USD" },
    availableAt,
  })
  const waiting = card(1, 7_000, nextDay)

  it("a payout before the date leaves the card money out", () => {
    spec
      .given([recorded(payment(1, 5_000)), recorded(waiting)])
      .when(payOut())
      .then([paidOut([payment(1, 5_000)], 5_000)])
  })
  it("nothing is paid out while only card money not yet available is there", () => {
    spec
      .given([recorded(waiting)])
      .when(payOut())
      .thenNothingHappens()
  })
  it("a payout from the date on takes the card money", () => {
    spec
      .given([recorded(waiting)])
      .when(payOut({ at: nextDay }))
      .then([paidOut([waiting], 7_000, nextDay)])
  })
  it("the balance available at a time counts only the entries past their date", () => {
    const state = fold(Balance.aggregate, [recorded(payment(1, 5_000)), recorded(waiting)])
    assert.deepStrictEqual(
      [Balance.availableAt(state, "USD", anHourLater), Balance.availableAt(state, "USD", nextDay)],
      [5_000, 12_000],
    )
  })
})

// ---------------------------------------------------------------------------
// Deficits (issue 37 §3): a negative balance past its grace period is debited from the payout account.

const grace = day
const observed = (when = at) =>
  BalanceDeficitObserved.make({ companyId, partnerId, deficit: Money.make(2_000, "USD"), at: when })
const inDeficit = [recorded(payment(1, 3_000)), paidOut([payment(1, 3_000)], 3_000), recorded(refund(1, 2_000))]
const euroRefund: Ledger.LedgerEntry = { ...refund(5, 500), amount: { minorUnits: -500, currency: "EUR" } }
const observedInEuros = (when: DateTime.Utc) =>
  BalanceDeficitObserved.make({ companyId, partnerId, deficit: Money.make(500, "EUR"), at: when })

describe("a company balance in deficit, not yet seen by a payout run", () => {
  it("a payout run records the deficit: its grace period starts", () => {
    spec
      .given(inDeficit)
      .when(payOut({ at, deficitGraceMillis: grace }))
      .then([observed()])
  })
  it("without a grace period configured, the deficit only waits for later collections", () => {
    spec.given(inDeficit).when(payOut({ at })).thenNothingHappens()
  })
  it("a deficit of another currency does not start this one's grace period", () => {
    spec
      .given([...inDeficit, recorded(euroRefund), observedInEuros(at)])
      .when(payOut({ at: nextDay, deficitGraceMillis: grace }))
      .then([observed(nextDay)])
  })
})

describe("a company balance at zero", () => {
  it("is no deficit: a payout run with a grace period configured does nothing", () => {
    spec
      .given([recorded(payment(1, 3_000)), paidOut([payment(1, 3_000)], 3_000)])
      .when(payOut({ at: nextDay, deficitGraceMillis: grace }))
      .thenNothingHappens()
  })
})

describe("a company balance in deficit in two currencies", () => {
  const deficitsOf = (events: ReadonlyArray<Balance.Event>) => {
    const state = fold(Balance.aggregate, events)
    return state._tag === "Open"
      ? (state.deficits ?? []).map((d) => ({ currency: d.currency, since: DateTime.formatIso(d.since) }))
      : undefined
  }
  it("each currency keeps its own deficit and since when", () => {
    assert.deepStrictEqual(deficitsOf([...inDeficit, recorded(euroRefund), observed(at), observedInEuros(nextDay)]), [
      { currency: "USD", since: DateTime.formatIso(at) },
      { currency: "EUR", since: DateTime.formatIso(nextDay) },
    ])
  })
  it("a deficit observed again counts from its latest observation", () => {
    assert.deepStrictEqual(deficitsOf([...inDeficit, observed(at), observed(anHourLater)]), [
      { currency: "USD", since: DateTime.formatIso(anHourLater) },
    ])
  })
})

describe("a company balance in deficit, within its grace period", () => {
  it("a payout run does nothing yet", () => {
    spec
      .given([...inDeficit, observed()])
      .when(payOut({ at: anHourLater, deficitGraceMillis: grace }))
      .thenNothingHappens()
  })
  it("later collections that cover it end the deficit", () => {
    spec
      .given([...inDeficit, observed()])
      .when(record(payment(2, 2_000)))
      .thenState((state) => assert.isTrue(state._tag === "Open" && state.deficits === undefined))
  })
})

describe("a company balance in deficit past its grace period", () => {
  it("a payout run takes its entries as a Debit payout of the deficit: the balance is back at zero", () => {
    spec
      .given([...inDeficit, observed()])
      .when(payOut({ payoutId: secondPayoutId, at: nextDay, deficitGraceMillis: grace }))
      .then([
        BalancePaidOut.make({
          companyId,
          partnerId,
          payoutId: secondPayoutId,
          direction: "Debit",
          amount: Money.make(2_000, "USD"),
          items: [refund(1, 2_000)],
          payoutAccountId,
          accountNumberMasked: "****6789",
          at: nextDay,
        }),
      ])
    const debited = BalancePaidOut.make({
      ...paidOut([refund(1, 2_000)], 2_000, nextDay, secondPayoutId),
      direction: "Debit",
    })
    assert.strictEqual(Balance.availableOf(fold(Balance.aggregate, [...inDeficit, observed(), debited]), "USD"), 0)
  })
  it("a Debit payout is not the currency's last payout: it does not hold the next one", () => {
    const debited = BalancePaidOut.make({
      ...paidOut([refund(1, 2_000)], 2_000, nextDay, secondPayoutId),
      direction: "Debit",
    })
    const oneHourAfter = DateTime.makeUnsafe(DateTime.toEpochMillis(nextDay) + 3_600_000)
    spec
      .given([...inDeficit, observed(), debited, recorded(payment(2, 5_000))])
      .when(payOut({ at: oneHourAfter }))
      .then([paidOut([payment(2, 5_000)], 5_000, oneHourAfter)])
  })
  it("a failed Debit payout gives the entries back: the deficit stays", () => {
    const debited = BalancePaidOut.make({
      ...paidOut([refund(1, 2_000)], 2_000, nextDay, secondPayoutId),
      direction: "Debit",
    })
    const restored = PayoutItemsRestored.make({
      companyId,
      partnerId,
      payoutId: secondPayoutId,
      items: [refund(1, 2_000)],
      at: nextDay,
    })
    assert.strictEqual(
      Balance.availableOf(fold(Balance.aggregate, [...inDeficit, observed(), debited, restored]), "USD"),
      -2_000,
    )
  })
})
