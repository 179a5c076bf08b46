/**
 * Executable specification of the Payout aggregate: created Pending with
 * items adding up to its amount, originated once under the provider's
 * reference, Paid when the movement settles, Failed with the return code's
 * description when it fails or is returned (also after Paid), and every
 * outcome recorded once whatever its path.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import * as CompanyPayoutAccount from "../../src/companies/CompanyPayoutAccount.ts"
import type { CalendarDate } from "../../src/kernel/CalendarDate.ts"
import { fold } from "../../src/kernel/Decider.ts"
import type { CompanyId, PartnerId, PayoutAccountId, PayoutId, TransferId } from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import type * as Ledger from "../../src/payouts/Ledger.ts"
import * as Payout from "../../src/payouts/Payout.ts"
import { PayoutEvent } from "../../src/payouts/PayoutEvents.ts"
import { DeciderSpecification } from "../../src/testing/index.ts"

const {
  PayoutCreated,
  PayoutFailed,
  PayoutOriginated,
  PayoutOriginationDeferred,
  PayoutPaid,
  PayoutStatusDeferred,
  PayoutStatusResumed,
} = PayoutEvent.cases

const spec = DeciderSpecification.forAggregate(Payout.aggregate)

const id = (n: number) => `6e2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e${String(n).padStart(2, "0")}`
const partnerId = id(1) as PartnerId
const companyId = id(2) as CompanyId
const payoutAccountId = id(3) as PayoutAccountId
const payoutId = id(4) as PayoutId
const at = DateTime.makeUnsafe("2026-03-06T10:00:00.000Z") // a Friday
const later = DateTime.makeUnsafe("2026-03-09T10:00:00.000Z")

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
    amount: { minorUnits: 3_000, currency: "USD" },
  },
  {
    entryId: `${id(10)}:refund:x`,
    type: "refund",
    transferId: id(10) as TransferId,
    amount: { minorUnits: -1_000, currency: "USD" },
  },
]
const amount = Money.make(10_000, "USD")
const arrivalDate = "2026-03-09" as CalendarDate

const create: Payout.CreatePayout = {
  _tag: "CreatePayout",
  payoutId,
  companyId,
  partnerId,
  amount,
  items,
  payoutAccountId,
  accountNumberMasked: "****6789",
  arrivalDate: arrivalDate,
  at,
}
const created = PayoutCreated.make({
  payoutId,
  companyId,
  partnerId,
  amount,
  items,
  payoutAccountId,
  accountNumberMasked: "****6789",
  arrivalDate: arrivalDate,
  at,
})
const originated = PayoutOriginated.make({ payoutId, providerReference: "po_123", at })
const paid = PayoutPaid.make({ payoutId, at: later })
const outcome = (value: Payout.RecordPayoutOutcome["outcome"]): Payout.RecordPayoutOutcome => ({
  _tag: "RecordPayoutOutcome",
  payoutId,
  outcome: value,
  at: later,
})
const itemsIssue = { field: "items", message: "must be entries of the payout's currency adding up to its amount" }
const failedWith = (returnCode: string) =>
  PayoutFailed.make({
    payoutId,
    returnCode,
    reason: Payout.reasonOf(returnCode),
    ...(CompanyPayoutAccount.isAccountLevel(returnCode) ? { accountLevel: true as const } : {}),
    at: later,
  })

describe("no payout yet", () => {
  it("creating one records it Pending with its items", () => {
    spec.given([]).when(create).then([created])
  })
  it("items that do not add up to the amount are refused", () => {
    spec
      .given([])
      .when({ ...create, amount: Money.make(10_001, "USD") })
      .thenFails({ _tag: "ValidationFailed", issues: [itemsIssue] })
  })
  it("no items, or items of another currency, are refused", () => {
    spec
      .given([])
      .when({ ...create, items: [] })
      .thenFails({ _tag: "ValidationFailed", issues: [itemsIssue] })
    spec
      .given([])
      .when({
        ...create,
        items: items.map((item) => ({ ...item, amount: { ...item.amount, currency: "EUR" as const } })),
      })
      .thenFails({ _tag: "ValidationFailed" })
  })
  it("items adding up to the amount except one of another currency are refused", () => {
    spec
      .given([])
      .when({
        ...create,
        items: [
          ...items,
          {
            entryId: `${id(12)}:settled`,
            type: "payment",
            transferId: id(12) as TransferId,
            amount: Money.make(500, "EUR"),
          },
        ],
      })
      .thenFails({ _tag: "ValidationFailed", issues: [itemsIssue] })
  })
  it("a payout of nothing, or less, is refused naming its amount", () => {
    const refund = (minorUnits: number): Ledger.LedgerEntry => ({
      ...items[2]!,
      amount: { minorUnits, currency: "USD" },
    })
    spec
      .given([])
      .when({ ...create, amount: Money.make(0, "USD"), items: [items[1]!, refund(-3_000)] })
      .thenFails({ _tag: "ValidationFailed", issues: [{ field: "amount", message: "must be greater than zero" }] })
    spec
      .given([])
      .when({ ...create, amount: { minorUnits: -1_000, currency: "USD" }, items: [refund(-1_000)] })
      .thenFails({ _tag: "ValidationFailed", issues: [{ field: "amount", message: "must be greater than zero" }] })
  })
  it("a payout of one minor unit is created", () => {
    const one: Ledger.LedgerEntry = { ...items[0]!, amount: { minorUnits: 1, currency: "USD" } }
    spec
      .given([])
      .when({ ...create, amount: Money.make(1, "USD"), items: [one] })
      .then([PayoutCreated.make({ ...created, amount: Money.make(1, "USD"), items: [one] })])
  })
  it("an origination for it is refused as not found", () => {
    spec
      .given([])
      .when({ _tag: "RecordPayoutOrigination", payoutId, providerReference: "po_123", at })
      .thenFails({ _tag: "NotFound", entity: "Payout" })
  })
  it("it has no status", () => {
    assert.strictEqual(Payout.statusOf(Payout.initialState), undefined)
  })
  it("an origination, a payment or a failure does not fit and leaves it unchanged", () => {
    spec.given([]).ignores(originated)
    spec.given([]).ignores(paid)
    spec.given([]).ignores(failedWith("R03"))
  })
  it("an outcome for it is refused as not found", () => {
    spec
      .given([])
      .when(outcome({ status: "Settled" }))
      .thenFails({ _tag: "NotFound" })
  })
})

describe("a Pending payout", () => {
  it("creating it again is refused as already existing", () => {
    spec.given([created]).when(create).thenFails({ _tag: "AlreadyExists", entity: "Payout" })
  })
  it("a second creation does not fit and leaves it unchanged", () => {
    spec.given([created]).ignores(PayoutCreated.make({ ...created, amount: Money.make(1, "USD") }))
  })
  it("is Pending", () => {
    assert.strictEqual(Payout.statusOf(fold(Payout.aggregate, [created])), "Pending")
  })
  it("records the provider's reference once", () => {
    spec
      .given([created])
      .when({ _tag: "RecordPayoutOrigination", payoutId, providerReference: "po_123", at })
      .then([originated])
    spec
      .given([created, originated])
      .when({ _tag: "RecordPayoutOrigination", payoutId, providerReference: "po_123", at })
      .thenNothingHappens()
  })
  it("another reference for an originated payout is refused", () => {
    spec
      .given([created, originated])
      .when({ _tag: "RecordPayoutOrigination", payoutId, providerReference: "po_999", at })
      .thenFails({
        _tag: "IllegalTransition",
        entity: "Payout",
        state: "Pending",
        command: "RecordPayoutOrigination",
        reason: "the payout was already originated under another reference",
      })
  })
  it("a movement still pending changes nothing", () => {
    spec
      .given([created, originated])
      .when(outcome({ status: "Pending" }))
      .thenNothingHappens()
  })
  it("a settled movement makes it Paid", () => {
    spec
      .given([created, originated])
      .when(outcome({ status: "Settled" }))
      .then([paid])
  })
  it("a failed movement makes it Failed with the return code's description", () => {
    spec
      .given([created, originated])
      .when(outcome({ status: "Failed", returnCode: "R03" }))
      .then([failedWith("R03")])
    assert.include(Payout.reasonOf("R03"), "ccount")
  })
  it("a returned movement makes it Failed too", () => {
    spec
      .given([created, originated])
      .when(outcome({ status: "Returned", returnCode: "R02" }))
      .then([failedWith("R02")])
  })
  it("a failure for an account-level reason says so (its account will be Errored)", () => {
    spec
      .given([created, originated])
      .when(outcome({ status: "Failed", returnCode: "R03" }))
      .then([{ ...failedWith("R03"), accountLevel: true }])
  })
  it("a failure for another reason (insufficient funds) leaves the account alone", () => {
    spec
      .given([created, originated])
      .when(outcome({ status: "Failed", returnCode: "R01" }))
      .then([PayoutFailed.make({ payoutId, returnCode: "R01", reason: Payout.reasonOf("R01"), at: later })])
  })
  it("a refusal by the rail makes it Failed at once, with no return code and the rail's words", () => {
    spec
      .given([created])
      .when(outcome({ status: "Refused", code: "ValidationError", reason: "  Receiver exceeds\n limit. " }))
      .then([PayoutFailed.make({ payoutId, reason: "Receiver exceeds limit.", at: later })])
  })
  it("a refusal of the destination by the rail is account-level", () => {
    spec
      .given([created])
      .when(
        outcome({
          status: "Refused",
          code: CompanyPayoutAccount.destinationRefusedCode,
          reason: "Invalid destination funding source.",
        }),
      )
      .then([
        PayoutFailed.make({
          payoutId,
          reason: "Invalid destination funding source.",
          accountLevel: true,
          at: later,
        }),
      ])
  })
})

describe("a Paid payout", () => {
  it("keeps the provider's reference: another one is refused", () => {
    spec
      .given([created, originated, paid])
      .when({ _tag: "RecordPayoutOrigination", payoutId, providerReference: "po_999", at })
      .thenFails({ _tag: "IllegalTransition", state: "Paid" })
  })
  it("is Paid", () => {
    assert.strictEqual(Payout.statusOf(fold(Payout.aggregate, [created, originated, paid])), "Paid")
  })
  it("a failed movement (not a return) changes nothing", () => {
    spec
      .given([created, originated, paid])
      .when(outcome({ status: "Failed", returnCode: "R03" }))
      .thenNothingHappens()
  })
  it("a payment again does not fit and leaves it unchanged", () => {
    spec.given([created, originated, paid]).ignores(PayoutPaid.make({ payoutId, at }))
  })
  it("settling again changes nothing", () => {
    spec
      .given([created, originated, paid])
      .when(outcome({ status: "Settled" }))
      .thenNothingHappens()
  })
  it("a return after payment makes it Failed (its money comes back)", () => {
    spec
      .given([created, originated, paid])
      .when(outcome({ status: "Returned", returnCode: "R16" }))
      .then([failedWith("R16")])
  })
})

describe("a Failed payout", () => {
  it("every later outcome changes nothing", () => {
    const history = [created, originated, failedWith("R03")]
    spec
      .given(history)
      .when(outcome({ status: "Settled" }))
      .thenNothingHappens()
    spec
      .given(history)
      .when(outcome({ status: "Failed", returnCode: "R03" }))
      .thenNothingHappens()
    assert.strictEqual(Payout.statusOf(fold(Payout.aggregate, history)), "Failed")
  })
  it("keeps the provider's reference: another one is refused", () => {
    spec
      .given([created, originated, paid, failedWith("R16")])
      .when({ _tag: "RecordPayoutOrigination", payoutId, providerReference: "po_999", at })
      .thenFails({ _tag: "IllegalTransition", state: "Failed" })
  })
  it("a payment or another failure does not fit and leaves it unchanged", () => {
    const history = [created, originated, failedWith("R03")]
    spec.given(history).ignores(paid)
    spec.given(history).ignores(failedWith("R02"))
  })
})

describe("a failure's reason", () => {
  it("is the ACH table's description, ours for a replaced payout account, else names the provider's code", () => {
    assert.strictEqual(Payout.reasonOf("R03"), "No account / unable to locate account")
    assert.include(Payout.reasonOf(Payout.accountChangedCode), "payout account was replaced")
    assert.strictEqual(Payout.reasonOf("XYZ1"), "failed with code XYZ1")
  })
})

describe("the arrival date", () => {
  it("is the next business day: Friday's payout arrives on Monday, Tuesday's on Wednesday", () => {
    assert.strictEqual(Payout.arrivalDateOf(at), "2026-03-09")
    assert.strictEqual(Payout.arrivalDateOf(DateTime.makeUnsafe("2026-03-10T23:00:00.000Z")), "2026-03-11")
  })
  it("a Thursday's payout arrives on Friday; Saturday's and Sunday's on Monday", () => {
    assert.strictEqual(Payout.arrivalDateOf(DateTime.makeUnsafe("2026-03-05T10:00:00.000Z")), "2026-03-06")
    assert.strictEqual(Payout.arrivalDateOf(DateTime.makeUnsafe("2026-03-07T10:00:00.000Z")), "2026-03-09")
    assert.strictEqual(Payout.arrivalDateOf(DateTime.makeUnsafe("2026-03-08T23:59:59.999Z")), "2026-03-09")
  })
  it("holds before 1970 too: Friday 1969-12-26's payout arrives on Monday 1969-12-29", () => {
    assert.strictEqual(Payout.arrivalDateOf(DateTime.makeUnsafe("1969-12-26T10:00:00.000Z")), "1969-12-29")
    assert.strictEqual(Payout.arrivalDateOf(DateTime.makeUnsafe("1969-12-24T10:00:00.000Z")), "1969-12-25")
  })
})

describe("a Pending payout not originated, the rail unavailable", () => {
  const unavailable = (when: DateTime.Utc): Payout.RecordPayoutUnavailable => ({
    _tag: "RecordPayoutUnavailable",
    payoutId,
    reason: "create transfer: Dwolla answered 503",
    jitter: 0,
    at: when,
  })
  const plus = (base: DateTime.Utc, millis: number) => DateTime.makeUnsafe(DateTime.toEpochMillis(base) + millis)
  it("is deferred with backoff (not left to the next payout cycle)", () => {
    spec
      .given([created])
      .when(unavailable(later))
      .then([
        PayoutOriginationDeferred.make({
          payoutId,
          failures: 1,
          firstFailedAt: later,
          retryAt: plus(later, 15_000),
          reason: "create transfer: Dwolla answered 503",
          at: later,
        }),
      ])
  })
  it("fails after 72 hours of outage, no return code, saying so", () => {
    const deferred = PayoutOriginationDeferred.make({
      payoutId,
      failures: 40,
      firstFailedAt: later,
      retryAt: plus(later, 72 * 3_600_000),
      reason: "timeout",
      at: later,
    })
    const now = plus(later, 72 * 3_600_000)
    spec
      .given([created, deferred])
      .when(unavailable(now))
      .then([
        PayoutFailed.make({
          payoutId,
          reason: "the rail stayed unavailable for 72 hours (last: create transfer: Dwolla answered 503)",
          at: now,
        }),
      ])
  })
  it("an outage once originated changes nothing (the movement exists)", () => {
    spec.given([created, originated]).when(unavailable(later)).thenNothingHappens()
  })
})

describe("a Pending payout originated, the rail unavailable when asked where it stands", () => {
  const outage = "transfer status: Dwolla answered 503"
  const unavailable = (when: DateTime.Utc, jitter = 0): Payout.RecordPayoutStatusUnavailable => ({
    _tag: "RecordPayoutStatusUnavailable",
    payoutId,
    reason: outage,
    jitter,
    at: when,
  })
  const plus = (base: DateTime.Utc, millis: number) => DateTime.makeUnsafe(DateTime.toEpochMillis(base) + millis)
  const deferred = (failures: number, firstFailedAt: DateTime.Utc, retryAt: DateTime.Utc) =>
    PayoutStatusDeferred.make({ payoutId, failures, firstFailedAt, retryAt, reason: outage, at: firstFailedAt })
  it("the status question is deferred with the origination's backoff (not asked at every poll)", () => {
    spec
      .given([created, originated])
      .when(unavailable(later))
      .then([deferred(1, later, plus(later, 15_000))])
  })
  it("unavailable again: the wait doubles, counted from the first failure", () => {
    const now = plus(later, 30_000)
    spec
      .given([created, originated, deferred(1, later, now)])
      .when(unavailable(now, 0.999_999))
      .then([
        PayoutStatusDeferred.make({
          payoutId,
          failures: 2,
          firstFailedAt: later,
          retryAt: plus(now, 59_999),
          reason: outage,
          at: now,
        }),
      ])
  })
  it("fails after 72 hours of outage, no return code, saying so", () => {
    const now = plus(later, 72 * 3_600_000)
    spec
      .given([created, originated, deferred(40, later, now)])
      .when(unavailable(now))
      .then([
        PayoutFailed.make({
          payoutId,
          reason: `the rail stayed unavailable for 72 hours (last: ${outage})`,
          at: now,
        }),
      ])
  })
  it("answered after an outage: the outage ends (a later one counts its own 72 hours)", () => {
    spec
      .given([created, originated, deferred(3, later, plus(later, 60_000))])
      .when({ _tag: "RecordPayoutStatusAnswered", payoutId, at: plus(later, 60_000) })
      .then([PayoutStatusResumed.make({ payoutId, at: plus(later, 60_000) })])
  })
  it("answered without an outage: nothing changes (no event per poll)", () => {
    spec
      .given([created, originated])
      .when({ _tag: "RecordPayoutStatusAnswered", payoutId, at: later })
      .thenNothingHappens()
  })
  it("a status outage before origination changes nothing (its origination has its own backoff)", () => {
    spec.given([created]).when(unavailable(later)).thenNothingHappens()
  })
  it("after the outage ended, the next one counts from its own first failure", () => {
    const resumed = PayoutStatusResumed.make({ payoutId, at: plus(later, 60_000) })
    const next = plus(later, 3_600_000)
    spec
      .given([created, originated, deferred(3, later, plus(later, 60_000)), resumed])
      .when(unavailable(next))
      .then([deferred(1, next, plus(next, 15_000))])
  })
  it("answered again after the outage ended: nothing changes", () => {
    const resumed = PayoutStatusResumed.make({ payoutId, at: plus(later, 60_000) })
    spec
      .given([created, originated, deferred(3, later, plus(later, 60_000)), resumed])
      .when({ _tag: "RecordPayoutStatusAnswered", payoutId, at: plus(later, 120_000) })
      .thenNothingHappens()
  })
})

describe("a payout no longer Pending, or none, and the rail unavailable", () => {
  const plus = (base: DateTime.Utc, millis: number) => DateTime.makeUnsafe(DateTime.toEpochMillis(base) + millis)
  const statusUnavailable: Payout.RecordPayoutStatusUnavailable = {
    _tag: "RecordPayoutStatusUnavailable",
    payoutId,
    reason: "transfer status: Dwolla answered 503",
    jitter: 0,
    at: later,
  }
  const originationUnavailable: Payout.RecordPayoutUnavailable = {
    ...statusUnavailable,
    _tag: "RecordPayoutUnavailable",
  }
  const attempts = { failures: 1, firstFailedAt: later, retryAt: plus(later, 15_000), reason: "timeout", at: later }
  it("an outage or an answer for a payout never created is refused as not found", () => {
    spec.given([]).when(statusUnavailable).thenFails({ _tag: "NotFound", entity: "Payout" })
    spec.given([]).when(originationUnavailable).thenFails({ _tag: "NotFound", entity: "Payout" })
    spec
      .given([])
      .when({ _tag: "RecordPayoutStatusAnswered", payoutId, at: later })
      .thenFails({ _tag: "NotFound", entity: "Payout" })
  })
  it("a status outage of a Paid or Failed payout changes nothing (its outcome is known)", () => {
    spec.given([created, originated, paid]).when(statusUnavailable).thenNothingHappens()
    spec
      .given([created, originated, failedWith("R01")])
      .when(statusUnavailable)
      .thenNothingHappens()
  })
  it("a deferral or a resumption does not fit a Paid payout, or none, and leaves it unchanged", () => {
    for (const given of [[], [created, originated, paid]]) {
      spec.given(given).ignores(PayoutOriginationDeferred.make({ payoutId, ...attempts }))
      spec.given(given).ignores(PayoutStatusDeferred.make({ payoutId, ...attempts }))
      spec.given(given).ignores(PayoutStatusResumed.make({ payoutId, at: later }))
    }
  })
})

describe("a Debit payout (a deficit recovered from the payout account)", () => {
  const debitItems: ReadonlyArray<Ledger.LedgerEntry> = [
    { ...items[2]!, amount: { minorUnits: -1_000, currency: "USD" } },
  ]
  const debit: Payout.CreatePayout = {
    ...create,
    direction: "Debit",
    amount: Money.make(1_000, "USD"),
    items: debitItems,
  }
  it("is created when its items add up to minus its amount, and says it is a Debit", () => {
    spec
      .given([])
      .when(debit)
      .then([
        PayoutCreated.make({ ...created, direction: "Debit", amount: Money.make(1_000, "USD"), items: debitItems }),
      ])
  })
  it("items adding up to its amount (a credit's) are refused", () => {
    const credits: ReadonlyArray<Ledger.LedgerEntry> = [
      { ...items[0]!, amount: { minorUnits: 1_000, currency: "USD" } },
    ]
    spec
      .given([])
      .when({ ...debit, items: credits })
      .thenFails({ _tag: "ValidationFailed", issues: [itemsIssue] })
  })
})
