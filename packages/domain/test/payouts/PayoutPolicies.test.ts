/**
 * Executable specification of the two payout policies: a company's balance
 * paid out becomes a Pending payout with the same items, amount and
 * destination, due on the next business day; a failed payout (before or after
 * it was paid) gives its items back to the company's balance. Any other event
 * issues nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import type { CompanyId, PartnerId, PayoutAccountId, PayoutId, TransferId } from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as Balance from "../../src/payouts/Balance.ts"
import { BalanceEvent } from "../../src/payouts/BalanceEvents.ts"
import type * as Ledger from "../../src/payouts/Ledger.ts"
import * as Payout from "../../src/payouts/Payout.ts"
import { policy as creation } from "../../src/payouts/PayoutCreationPolicy.ts"
import { PayoutEvent } from "../../src/payouts/PayoutEvents.ts"
import { policy as outcome } from "../../src/payouts/PayoutOutcomePolicy.ts"
import { PolicySpecification } from "../../src/testing/index.ts"

const { BalancePaidOut, LedgerEntryRecorded } = BalanceEvent.cases
const { PayoutCreated, PayoutFailed, PayoutOriginated, PayoutPaid } = PayoutEvent.cases

const id = (n: number) => `7e2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e${String(n).padStart(2, "0")}`
const partnerId = id(1) as PartnerId
const companyId = id(2) as CompanyId
const payoutAccountId = id(3) as PayoutAccountId
const payoutId = id(4) as PayoutId
const saturday = DateTime.makeUnsafe("2026-03-07T10:00:00.000Z")
const later = DateTime.makeUnsafe("2026-03-10T10:00:00.000Z")
const items: ReadonlyArray<Ledger.LedgerEntry> = [
  {
    entryId: `${id(10)}:settled`,
    type: "payment",
    transferId: id(10) as TransferId,
    amount: { minorUnits: 8_000, currency: "USD" },
  },
  {
    entryId: `${id(11)}:settled`,
    type: "instalment",
    transferId: id(11) as TransferId,
    amount: { minorUnits: 2_000, currency: "USD" },
  },
]
const amount = Money.make(10_000, "USD")

const balancePaidOut = BalancePaidOut.make({
  companyId,
  partnerId,
  payoutId,
  amount,
  items,
  payoutAccountId,
  accountNumberMasked: "****6789",
  at: saturday,
})
const entryRecorded = LedgerEntryRecorded.make({ companyId, partnerId, entry: items[0]!, at: saturday })

const payoutCreated = PayoutCreated.make({
  payoutId,
  companyId,
  partnerId,
  amount,
  items,
  payoutAccountId,
  accountNumberMasked: "****6789",
  arrivalDate: Payout.arrivalDateOf(saturday),
  at: saturday,
})
const originated = PayoutOriginated.make({ payoutId, providerReference: "po_1", at: saturday })
const paid = PayoutPaid.make({ payoutId, at: later })
const failed = PayoutFailed.make({
  payoutId,
  returnCode: "R03",
  reason: Payout.reasonOf("R03"),
  at: later,
})
const restore: Balance.RestorePayoutItems = { _tag: "RestorePayoutItems", companyId, payoutId, items, at: later }

describe("a company's balance paid out", () => {
  const spec = PolicySpecification.forPolicy(creation)
  it("becomes a Pending payout with the same items, amount and destination, arriving on the next business day", () => {
    const command: Payout.CreatePayout = {
      _tag: "CreatePayout",
      payoutId,
      companyId,
      partnerId,
      amount,
      items,
      payoutAccountId,
      accountNumberMasked: "****6789",
      arrivalDate: Payout.arrivalDateOf(saturday),
      at: saturday,
    }
    spec.given([entryRecorded]).when(balancePaidOut).then({ id: payoutId, command })
    assert.strictEqual(command.arrivalDate, "2026-03-09")
  })
  it("as a Debit (a deficit recovered), becomes a Debit payout of the same items and amount", () => {
    const deficit: ReadonlyArray<Ledger.LedgerEntry> = [
      {
        entryId: `${id(12)}:refund`,
        type: "refund",
        transferId: id(12) as TransferId,
        amount: { minorUnits: -2_000, currency: "USD" },
      },
    ]
    const debited = { ...balancePaidOut, direction: "Debit" as const, amount: Money.make(2_000, "USD"), items: deficit }
    spec
      .given([])
      .when(BalancePaidOut.make(debited))
      .then({
        id: payoutId,
        command: {
          _tag: "CreatePayout",
          payoutId,
          companyId,
          partnerId,
          direction: "Debit",
          amount: Money.make(2_000, "USD"),
          items: deficit,
          payoutAccountId,
          accountNumberMasked: "****6789",
          arrivalDate: Payout.arrivalDateOf(saturday),
          at: saturday,
        },
      })
  })
  it("an entry recorded issues no payout", () => {
    spec.given([]).when(entryRecorded).thenNothingIsIssued()
    assert.isUndefined(creation.react(entryRecorded, Balance.initialState))
  })
})

describe("a payout that fails", () => {
  const spec = PolicySpecification.forPolicy(outcome)
  it("before it was paid, gives its items back to the company's balance", () => {
    spec.given([payoutCreated, originated]).when(failed).then({ id: companyId, command: restore })
  })
  it("after it was paid (returned), gives its items back too", () => {
    spec.given([payoutCreated, originated, paid]).when(failed).then({ id: companyId, command: restore })
  })
  it("being paid, or created, gives nothing back", () => {
    spec.given([payoutCreated]).when(paid).thenNothingIsIssued()
    spec.given([]).when(payoutCreated).thenNothingIsIssued()
    assert.isUndefined(outcome.react(paid, { _tag: "Pending", details: { ...payoutCreated, createdAt: saturday } }))
  })
  it("a failure of a payout never created gives nothing back", () => {
    assert.isUndefined(outcome.react(failed, Payout.initialState))
  })
})
