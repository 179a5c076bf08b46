/**
 * Executable specification of a card payment's dispute (the CardDispute
 * aggregate): opened once with its amount and fee, its status while open,
 * decided Won or Lost once; the processor's repeated and late notifications
 * change nothing. Decision table: packages/domain/docs/CardPaymentAndCharity.md.
 */
import { describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import * as CardDispute from "../../src/cards-and-charity/CardDispute.ts"
import type { CardPaymentId, CompanyId, PartnerId, PaymentRequestId } from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import { DeciderSpecification } from "../../src/testing/index.ts"

const spec = DeciderSpecification.forAggregate(CardDispute.aggregate)

const id = (n: number) => `6e2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e${String(n).padStart(2, "0")}`
const at = DateTime.makeUnsafe("2026-03-02T10:00:00.000Z")
const later = DateTime.makeUnsafe("2026-03-09T10:00:00.000Z")
const disputeId = "dp_1MtJUT2eZvKYlo2CNaw2HvEv"

const dispute: CardDispute.Dispute = {
  disputeId,
  payment: {
    cardPaymentId: id(1) as CardPaymentId,
    paymentRequestId: id(2) as PaymentRequestId,
    partnerId: id(3) as PartnerId,
    companyId: id(4) as CompanyId,
  },
  amount: Money.make(2_550, "USD"),
  fee: Money.make(1_500, "USD"),
  reason: "fraudulent",
}

const open = (overrides: Partial<CardDispute.OpenCardDispute> = {}): CardDispute.OpenCardDispute => ({
  _tag: "OpenCardDispute",
  dispute,
  paymentAmount: Money.make(2_550, "USD"),
  status: "NeedsResponse",
  at,
  ...overrides,
})
const changeStatus = (status: CardDispute.OpenStatus): CardDispute.ChangeCardDisputeStatus => ({
  _tag: "ChangeCardDisputeStatus",
  disputeId,
  status,
  at: later,
})
const close = (outcome: CardDispute.Outcome): CardDispute.CloseCardDispute => ({
  _tag: "CloseCardDispute",
  disputeId,
  outcome,
  at: later,
})

const opened = CardDispute.CardDisputeOpened.make({ dispute, status: "NeedsResponse", at })
const underReview = CardDispute.CardDisputeStatusChanged.make({ dispute, status: "UnderReview", at: later })
const closed = (outcome: CardDispute.Outcome) => CardDispute.CardDisputeClosed.make({ dispute, outcome, at: later })

describe("a card payment not disputed", () => {
  it("the processor's dispute opens it with its amount, fee and reason", () => {
    spec.given([]).when(open()).then([opened])
  })
  it("a dispute of more than the payment is refused, naming the amount", () => {
    spec
      .given([])
      .when(open({ paymentAmount: Money.make(2_000, "USD") }))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "amount", message: "must be at most the payment's amount" }],
      })
  })
  it("a dispute in another currency than the payment's is refused", () => {
    spec
      .given([])
      .when(open({ paymentAmount: Money.make(2_550, "EUR") }))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "amount", message: "must be in the payment's currency" }],
      })
  })
  it("a dispute without a reason is refused", () => {
    spec
      .given([])
      .when(open({ dispute: { ...dispute, reason: " " } }))
      .thenFails({ _tag: "ValidationFailed", issues: [{ field: "reason", message: "must not be empty" }] })
  })
  it("an amount of nothing, less, or a fraction of a minor unit is refused, naming the amount", () => {
    const issues = [{ field: "amount", message: "must be a positive whole number of minor units" }]
    for (const minorUnits of [0, -100, 10.5]) {
      spec
        .given([])
        .when(open({ dispute: { ...dispute, amount: { minorUnits, currency: "USD" } } }))
        .thenFails({ _tag: "ValidationFailed", issues })
    }
  })
  it("a negative fee or a fraction of a minor unit is refused, naming the fee", () => {
    const issues = [{ field: "fee", message: "must be zero or a positive whole number of minor units" }]
    for (const minorUnits of [-1, 0.5]) {
      spec
        .given([])
        .when(open({ dispute: { ...dispute, fee: { minorUnits, currency: "USD" } } }))
        .thenFails({ _tag: "ValidationFailed", issues })
    }
  })
  it("a fee of zero is accepted (the processor charged none)", () => {
    const free = { ...dispute, fee: Money.make(0, "USD") }
    spec
      .given([])
      .when(open({ dispute: free }))
      .then([CardDispute.CardDisputeOpened.make({ dispute: free, status: "NeedsResponse", at })])
  })
  it("a fee in another currency than the amount's is refused, naming the fee", () => {
    spec
      .given([])
      .when(open({ dispute: { ...dispute, fee: Money.make(1_500, "EUR") } }))
      .thenFails({ _tag: "ValidationFailed", issues: [{ field: "fee", message: "must be in the amount's currency" }] })
  })
  it("a status for a dispute never opened is NotFound", () => {
    spec.given([]).when(changeStatus("UnderReview")).thenFails({ _tag: "NotFound", entity: "CardDispute" })
  })
  it("an outcome for a dispute never opened is NotFound", () => {
    spec.given([]).when(close("Won")).thenFails({ _tag: "NotFound", entity: "CardDispute" })
  })
})

describe("an open dispute", () => {
  it("the processor's repeated opening changes nothing", () => {
    spec.given([opened]).when(open()).thenNothingHappens()
  })
  it("moves to UnderReview when the processor says so", () => {
    spec.given([opened]).when(changeStatus("UnderReview")).then([underReview])
  })
  it("the same status again changes nothing", () => {
    spec.given([opened]).when(changeStatus("NeedsResponse")).thenNothingHappens()
  })
  it("is won", () => {
    spec
      .given([opened, underReview])
      .when(close("Won"))
      .then([closed("Won")])
  })
  it("is lost", () => {
    spec
      .given([opened])
      .when(close("Lost"))
      .then([closed("Lost")])
  })
})

describe("a decided dispute", () => {
  it("the same outcome again changes nothing", () => {
    spec
      .given([opened, closed("Lost")])
      .when(close("Lost"))
      .thenNothingHappens()
  })
  it("a contrary outcome is refused: the outcome is final", () => {
    spec
      .given([opened, closed("Lost")])
      .when(close("Won"))
      .thenFails({
        _tag: "IllegalTransition",
        entity: "CardDispute",
        state: "Lost",
        reason: "the dispute was already lost",
      })
  })
  it("a late status changes nothing", () => {
    spec
      .given([opened, closed("Won")])
      .when(changeStatus("UnderReview"))
      .thenNothingHappens()
  })
  it("a late opening changes nothing", () => {
    spec
      .given([opened, closed("Won")])
      .when(open())
      .thenNothingHappens()
  })
  it("ignores a status change that does not fit", () => {
    spec.given([opened, closed("Won")]).ignores(underReview)
  })
  it("ignores a second opening or another outcome recorded after it", () => {
    spec.given([opened, closed("Won")]).ignores(opened)
    spec.given([opened, closed("Won")]).ignores(closed("Lost"))
  })
})

describe("a dispute under review", () => {
  it("the same status again changes nothing (its status is the latest one)", () => {
    spec.given([opened, underReview]).when(changeStatus("UnderReview")).thenNothingHappens()
  })
  it("ignores a second opening (its status stays)", () => {
    spec.given([opened, underReview]).ignores(opened)
  })
})

describe("no dispute yet", () => {
  it("ignores a status change or an outcome recorded before its opening", () => {
    spec.given([]).ignores(underReview)
    spec.given([]).ignores(closed("Won"))
  })
})
