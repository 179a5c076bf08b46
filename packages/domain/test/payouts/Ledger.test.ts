/**
 * Executable specification of the ledger's entry functions, read directly
 * (the policy specs see them through `LedgerPolicy.ts`): the currencies a
 * company's entries are in (each once, sorted), pending money counted per
 * currency, no entry for a transfer never initiated, the return fee passed
 * on, a card payment's entry and fee and when they become available, a card
 * dispute's amount and fee taken when opened and given back when won, and a
 * card refund taken when asked for and given back when it fails. Each entry's
 * id names what caused it, so recording it twice counts once.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import {
  CardDisputeClosed,
  CardDisputeOpened,
  CardDisputeStatusChanged,
} from "../../src/cards-and-charity/CardDisputeEvents.ts"
import {
  CardRefundCompleted,
  CardRefundFailed,
  CardRefundRequested,
} from "../../src/cards-and-charity/CardRefundEvents.ts"
import { fold } from "../../src/kernel/Decider.ts"
import type { CardPaymentId, CompanyId, PartnerId, RegistrationId, TransferId } from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as PaymentRequest from "../../src/payments/PaymentRequest.ts"
import { PaymentRequestPaidByCard } from "../../src/payments/PaymentRequestEvents.ts"
import * as Transfer from "../../src/payments/Transfer.ts"
import {
  type RefundId,
  TransferFailed,
  TransferInitiated,
  TransferReturned,
  TransferSettled,
} from "../../src/payments/TransferEvents.ts"
import * as Ledger from "../../src/payouts/Ledger.ts"
import { Fixtures } from "../../src/testing/index.ts"
import * as PaymentRequestFixtures from "../fixtures/PaymentRequestFixtures.ts"

const transferId = "9d1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e50" as TransferId
const partnerId = "9d1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e52" as PartnerId
const companyId = "9d1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e53" as CompanyId
const cardPaymentId = "9d1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e56" as CardPaymentId
const refundId = "9d1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e58" as RefundId
const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
const later = DateTime.makeUnsafe("2026-03-03T10:00:00.000Z")
const usd = (minorUnits: number) => Money.make(minorUnits, "USD")

const entry = (n: number, currency: Money.CurrencyCode): Ledger.LedgerEntry => ({
  entryId: `${transferId}:${n}`,
  type: "payment",
  transferId,
  amount: { minorUnits: 1_000, currency },
})

describe("a company's entries", () => {
  it("are in the currencies they name, each once, sorted", () => {
    assert.deepStrictEqual(Ledger.currenciesOf([entry(1, "USD"), entry(2, "EUR"), entry(3, "USD"), entry(4, "CAD")]), [
      "CAD",
      "EUR",
      "USD",
    ])
  })
})

describe("a company's pending transfers", () => {
  it("count in their own currency only", () => {
    const transfers = [
      { status: "Pending", amount: Money.make(1_000, "USD") },
      { status: "Pending", amount: Money.make(700, "EUR") },
      { status: "Settled", amount: Money.make(5_000, "USD") },
    ]
    assert.strictEqual(Ledger.pendingOf(transfers, "USD"), 1_000)
    assert.strictEqual(Ledger.pendingOf(transfers, "EUR"), 700)
  })
})

const failedWith = (returnFee: { readonly amount: Money.Money; readonly passedOn: boolean }) =>
  TransferFailed.make({ transferId, returnCode: "R01", reason: "Insufficient funds", returnFee, at: later })

describe("a transfer never initiated", () => {
  it("adds no entry to any ledger", () => {
    const settled = TransferSettled.make({ transferId, at })
    assert.isUndefined(Ledger.entryOfTransferEvent(settled, Transfer.initialState))
  })
  it("adds no return fee, even one passed on", () => {
    assert.isUndefined(Ledger.returnFeeEntryOf(failedWith({ amount: usd(500), passedOn: true }), Transfer.initialState))
  })
})

const initiated = TransferInitiated.make({
  transferId,
  payerRegistrationId: "9d1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e57" as RegistrationId,
  partnerId,
  companyId,
  amount: usd(10_000),
  senderName: "Jane Payer",
  recipientName: "Acme Dental",
  senderAccountMasked: "****6789",
  recipientAddress: Fixtures.recipientAddress,
  attachments: [],
  description: "Invoice 42",
  at,
})

describe("a Pending transfer failed by the bank", () => {
  it("with a return fee passed on: the fee leaves the company's balance as a returnFee entry", () => {
    const failed = failedWith({ amount: usd(500), passedOn: true })
    assert.deepStrictEqual(Ledger.returnFeeEntryOf(failed, fold(Transfer.aggregate, [initiated, failed])), {
      entryId: `${transferId}:returnFee`,
      type: "returnFee",
      transferId,
      amount: { minorUnits: -500, currency: "USD" },
    })
  })
  it("with a return fee of zero passed on: no entry", () => {
    const failed = failedWith({ amount: usd(0), passedOn: true })
    assert.isUndefined(Ledger.returnFeeEntryOf(failed, fold(Transfer.aggregate, [initiated, failed])))
  })
})

describe("a Settled transfer returned by the bank", () => {
  it("with a return fee passed on: the fee leaves the company's balance beside the return", () => {
    const returned = TransferReturned.make({
      transferId,
      returnCode: "R10",
      reason: "Customer advises not authorized",
      returnFee: { amount: usd(500), passedOn: true },
      at: later,
    })
    const state = fold(Transfer.aggregate, [initiated, TransferSettled.make({ transferId, at }), returned])
    assert.deepStrictEqual(Ledger.returnFeeEntryOf(returned, state)?.amount, { minorUnits: -500, currency: "USD" })
  })
})

const paidByCard = (fees: { readonly availableAt?: DateTime.Utc; readonly platformFee?: Money.Money }) =>
  PaymentRequestPaidByCard.make({
    paymentRequestId: PaymentRequestFixtures.paymentRequestId,
    registrationId: PaymentRequestFixtures.payer,
    cardPaymentId,
    paymentMethodId: "card_1",
    brand: "visa",
    last4: "4242",
    processorReference: "ch_1",
    ...fees,
    at,
  })
const requestOf = (state: PaymentRequest.State): PaymentRequest.RequestDetails => {
  assert.notStrictEqual(state._tag, "Initial")
  if (state._tag === "Initial") throw new Error("no request")
  return state.request
}

describe("a Pending payment request paid by card", () => {
  const request = requestOf(fold(PaymentRequest.aggregate, [PaymentRequestFixtures.created]))
  it("with the processor's availability date: its card entry becomes available then", () => {
    assert.deepStrictEqual(Ledger.entryOfPaidByCard(request, paidByCard({ availableAt: later })), {
      entryId: `${cardPaymentId}:card`,
      type: "card",
      cardPaymentId,
      amount: { minorUnits: 10_000, currency: "USD" },
      availableAt: later,
    })
  })
  it("without an availability date: its card entry is available at once (it names no date)", () => {
    const card = Ledger.entryOfPaidByCard(request, paidByCard({}))
    assert.isFalse("availableAt" in card)
    assert.isTrue(Ledger.isAvailable(card, at))
  })
  it("with a platform fee of zero: no fee entry", () => {
    assert.isUndefined(Ledger.cardFeeEntryOf(paidByCard({ platformFee: usd(0), availableAt: later })))
  })
})

const disputeId = "dp_1"
const dispute = (fee: Money.Money) => ({
  disputeId,
  payment: { cardPaymentId, partnerId, companyId },
  amount: usd(4_000),
  fee,
  reason: "fraudulent",
})
const opened = (fee: Money.Money) => CardDisputeOpened.make({ dispute: dispute(fee), status: "NeedsResponse", at })
const closed = (outcome: "Won" | "Lost", fee: Money.Money) =>
  CardDisputeClosed.make({ dispute: dispute(fee), outcome, at: later })

describe("a card dispute opened", () => {
  it("takes the disputed amount from the company's balance at once, as a dispute entry", () => {
    assert.deepStrictEqual(Ledger.disputeEntryOf(opened(usd(1_500))), {
      entryId: `${disputeId}:dispute`,
      type: "dispute",
      cardPaymentId,
      amount: { minorUnits: -4_000, currency: "USD" },
    })
  })
  it("takes the processor's dispute fee beside it, as a fee entry of its own", () => {
    assert.deepStrictEqual(Ledger.disputeFeeEntryOf(opened(usd(1_500))), {
      entryId: `${disputeId}:dispute:fee`,
      type: "fee",
      cardPaymentId,
      amount: { minorUnits: -1_500, currency: "USD" },
    })
  })
  it("with a dispute fee of zero: the amount is taken, no fee entry", () => {
    assert.isDefined(Ledger.disputeEntryOf(opened(usd(0))))
    assert.isUndefined(Ledger.disputeFeeEntryOf(opened(usd(0))))
  })
})

describe("an open card dispute", () => {
  it("whose status changes moves no money", () => {
    const changed = CardDisputeStatusChanged.make({ dispute: dispute(usd(1_500)), status: "UnderReview", at: later })
    assert.isUndefined(Ledger.disputeEntryOf(changed))
    assert.isUndefined(Ledger.disputeFeeEntryOf(changed))
  })
  it("won gives the amount back, under an id of its own", () => {
    assert.deepStrictEqual(Ledger.disputeEntryOf(closed("Won", usd(1_500))), {
      entryId: `${disputeId}:dispute:won`,
      type: "dispute",
      cardPaymentId,
      amount: { minorUnits: 4_000, currency: "USD" },
    })
  })
  it("won gives the fee back, under an id of its own", () => {
    assert.deepStrictEqual(Ledger.disputeFeeEntryOf(closed("Won", usd(1_500))), {
      entryId: `${disputeId}:dispute:fee:won`,
      type: "fee",
      cardPaymentId,
      amount: { minorUnits: 1_500, currency: "USD" },
    })
  })
  it("won with a dispute fee of zero gives no fee entry", () => {
    assert.isUndefined(Ledger.disputeFeeEntryOf(closed("Won", usd(0))))
  })
  it("lost keeps the amount and the fee taken: no entry", () => {
    assert.isUndefined(Ledger.disputeEntryOf(closed("Lost", usd(1_500))))
    assert.isUndefined(Ledger.disputeFeeEntryOf(closed("Lost", usd(1_500))))
  })
})

const refunded = {
  payment: {
    cardPaymentId,
    partnerId,
    companyId,
    amount: usd(10_000),
    processorReference: "ch_1",
  },
  refundId,
  amount: usd(2_500),
}

describe("a card payment refunded", () => {
  it("asked for: the refund's amount leaves the company's balance at once", () => {
    assert.deepStrictEqual(Ledger.cardRefundEntryOf(CardRefundRequested.make({ ...refunded, at })), {
      entryId: `${cardPaymentId}:refund:${refundId}`,
      type: "refund",
      cardPaymentId,
      refundId,
      amount: { minorUnits: -2_500, currency: "USD" },
    })
  })
  it("failed: the amount comes back, under an id of its own", () => {
    const failed = CardRefundFailed.make({ ...refunded, reason: "card closed", at: later })
    assert.deepStrictEqual(Ledger.cardRefundEntryOf(failed), {
      entryId: `${cardPaymentId}:refund:${refundId}:failed`,
      type: "refund",
      cardPaymentId,
      refundId,
      amount: { minorUnits: 2_500, currency: "USD" },
    })
  })
  it("completed: nothing more moves (the amount left when it was asked for)", () => {
    assert.isUndefined(Ledger.cardRefundEntryOf(CardRefundCompleted.make({ ...refunded, at: later })))
  })
})
