/**
 * Executable specification of the ledger policies: a settled transfer becomes
 * a `payment` (or, collecting a plan's instalment, an `instalment`) entry of
 * its company's balance, a refund a negative `refund` entry, a payment request
 * paid by card a `card` entry; a refund asked for a negative entry (given
 * back if it fails), a return a negative `return` entry; initiation and failure before settlement
 * record nothing (pending money is read from the transfers).
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import { CardPaymentRegistered } from "../../src/cards-and-charity/CardPaymentEvents.ts"
import { fold } from "../../src/kernel/Decider.ts"
import type {
  CardPaymentId,
  CompanyId,
  MerchantId,
  PartnerId,
  PaymentPlanId,
  PaymentRequestId,
  RegistrationId,
  TransferId,
} from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as PaymentRequest from "../../src/payments/PaymentRequest.ts"
import { PaymentRequestPaidByCard } from "../../src/payments/PaymentRequestEvents.ts"
import * as Transfer from "../../src/payments/Transfer.ts"
import {
  type RefundId,
  TransferFailed,
  TransferInitiated,
  TransferRefunded,
  TransferRefundFailed,
  TransferRefundRequested,
  TransferReturned,
  TransferSettled,
} from "../../src/payments/TransferEvents.ts"
import * as Ledger from "../../src/payouts/Ledger.ts"
import { cardPolicy, feePolicy, policy, terminalCardPolicy } from "../../src/payouts/LedgerPolicy.ts"
import { Fixtures, PolicySpecification } from "../../src/testing/index.ts"
import * as PaymentRequestFixtures from "../fixtures/PaymentRequestFixtures.ts"

const spec = PolicySpecification.forPolicy(policy)
const cardSpec = PolicySpecification.forPolicy(cardPolicy)

const transferId = "8d1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e50" as TransferId
const partnerId = "8d1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e52" as PartnerId
const companyId = "8d1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e53" as CompanyId
const refundId = "8d1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e54" as RefundId
const planId = "8d1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e55" as PaymentPlanId
const cardPaymentId = "8d1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e56" as CardPaymentId
const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
const later = DateTime.makeUnsafe("2026-03-03T10:00:00.000Z")
const amount = Money.make(10_000, "USD")

const initiated = (pays: { readonly paymentRequestId?: PaymentRequestId; readonly paymentPlanId?: PaymentPlanId }) =>
  TransferInitiated.make({
    transferId,
    ...pays,
    ...(pays.paymentPlanId === undefined ? {} : { instalmentNumber: 1 }),
    payerRegistrationId: "8d1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e57" as RegistrationId,
    partnerId,
    companyId,
    amount,
    senderName: "Jane Payer",
    recipientName: "Acme Dental",
    senderAccountMasked: "****6789",
    recipientAddress: Fixtures.recipientAddress,
    attachments: [],
    description: "Invoice 42",
    at,
  })
const settled = TransferSettled.make({ transferId, at: later })

describe("a transfer paying a payment request", () => {
  const request = initiated({ paymentRequestId: PaymentRequestFixtures.paymentRequestId })
  it("settled: its amount becomes a payment entry of its company", () => {
    spec
      .given([request])
      .when(settled)
      .then({
        id: companyId,
        command: {
          _tag: "RecordLedgerEntry",
          companyId,
          partnerId,
          entry: {
            entryId: `${transferId}:settled`,
            type: "payment",
            transferId,
            amount: { minorUnits: 10_000, currency: "USD" },
          },
          at: later,
        },
      })
  })
  it("refunded: the refund is a negative entry naming the refund", () => {
    spec
      .given([request, settled])
      .when(
        TransferRefunded.make({
          transferId,
          refundId,
          amount: Money.make(2_500, "USD"),
          totalRefunded: Money.make(2_500, "USD"),
          isRefunded: false,
          at: later,
        }),
      )
      .then({
        id: companyId,
        command: {
          _tag: "RecordLedgerEntry",
          companyId,
          partnerId,
          entry: {
            entryId: `${transferId}:refund:${refundId}`,
            type: "refund",
            transferId,
            refundId,
            amount: { minorUnits: -2_500, currency: "USD" },
          },
          at: later,
        },
      })
  })
  it("initiated or failed: nothing is recorded (pending is read from the transfers)", () => {
    spec.given([]).when(request).thenNothingIsIssued()
    spec
      .given([request])
      .when(TransferFailed.make({ transferId, returnCode: "R01", reason: "insufficient funds", at }))
      .thenNothingIsIssued()
  })
})

describe("a transfer collecting a plan's instalment", () => {
  it("settled: its amount becomes an instalment entry", () => {
    spec
      .given([initiated({ paymentPlanId: planId })])
      .when(settled)
      .then({
        id: companyId,
        command: {
          _tag: "RecordLedgerEntry",
          companyId,
          partnerId,
          entry: {
            entryId: `${transferId}:settled`,
            type: "instalment",
            transferId,
            amount: { minorUnits: 10_000, currency: "USD" },
          },
          at: later,
        },
      })
  })
})

describe("a payment request paid by card", () => {
  it("its amount becomes a card entry of its company", () => {
    cardSpec
      .given([PaymentRequestFixtures.created])
      .when(
        PaymentRequestPaidByCard.make({
          paymentRequestId: PaymentRequestFixtures.paymentRequestId,
          registrationId: PaymentRequestFixtures.payer,
          cardPaymentId,
          paymentMethodId: "card_1",
          brand: "visa",
          last4: "4242",
          processorReference: "ch_1",
          at: later,
        }),
      )
      .then({
        id: PaymentRequestFixtures.companyId,
        command: {
          _tag: "RecordLedgerEntry",
          companyId: PaymentRequestFixtures.companyId,
          partnerId: PaymentRequestFixtures.partnerId,
          entry: {
            entryId: `${cardPaymentId}:card`,
            type: "card",
            cardPaymentId,
            amount: { minorUnits: PaymentRequestFixtures.amount.minorUnits, currency: "USD" },
          },
          at: later,
        },
      })
  })
})

describe("a transfer collecting a charity gift, with the platform's fee", () => {
  const feeSpec = PolicySpecification.forPolicy(feePolicy)
  const gift = TransferInitiated.make({
    ...initiated({}),
    charityTransactionId: "8d1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e58",
    platformFee: Money.make(100, "USD"),
  })
  const entryCommand = (entry: Ledger.LedgerEntry) => ({
    id: companyId,
    command: { _tag: "RecordLedgerEntry" as const, companyId, partnerId, entry, at: later },
  })
  const returned = TransferReturned.make({
    transferId,
    returnCode: "R10",
    reason: "not authorized",
    at: later,
  })
  it("settled: its whole amount is a charity entry", () => {
    spec
      .given([gift])
      .when(settled)
      .then(
        entryCommand({
          entryId: `${transferId}:settled`,
          type: "charity",
          transferId,
          amount: { minorUnits: 10_000, currency: "USD" },
        }),
      )
  })
  it("settled: the platform's fee is a fee entry, minus the fee (the company nets what the gift promised)", () => {
    feeSpec
      .given([gift])
      .when(settled)
      .then(
        entryCommand({
          entryId: `${transferId}:fee`,
          type: "fee",
          transferId,
          amount: { minorUnits: -100, currency: "USD" },
        }),
      )
  })
  it("returned: the fee is given back (the money never stayed)", () => {
    feeSpec
      .given([gift, settled])
      .when(returned)
      .then(
        entryCommand({
          entryId: `${transferId}:fee:returned`,
          type: "fee",
          transferId,
          amount: { minorUnits: 100, currency: "USD" },
        }),
      )
  })
  it("refunded: the fee stays (it was earned on a gift that arrived)", () => {
    feeSpec
      .given([gift, settled])
      .when(TransferRefundRequested.make({ transferId, refundId, amount: Money.make(2_500, "USD"), at: later }))
      .thenNothingIsIssued()
  })
  it("a fee of zero, or a transfer not known, issues no fee entry", () => {
    feeSpec
      .given([TransferInitiated.make({ ...gift, platformFee: Money.make(0, "USD") })])
      .when(settled)
      .thenNothingIsIssued()
    assert.isUndefined(feePolicy.react(settled, Transfer.initialState))
    assert.isUndefined(Ledger.feeEntryOf(settled, Transfer.initialState))
  })
  it("a transfer without a fee (a payment) issues no fee entry", () => {
    feeSpec
      .given([initiated({ paymentRequestId: PaymentRequestFixtures.paymentRequestId })])
      .when(settled)
      .thenNothingIsIssued()
  })
})

describe("a card payment registered on a terminal (POST /cardpayment)", () => {
  const terminalSpec = PolicySpecification.forPolicy(terminalCardPolicy)
  const registered = (company: { readonly companyId?: CompanyId }) =>
    CardPaymentRegistered.make({
      cardPaymentId,
      partnerId,
      merchantId: companyId as string as MerchantId,
      amount: Money.make(4_250, "USD"),
      last4: "4242",
      brand: "visa",
      externalReference: "term-1",
      processorReference: "cp_1",
      ...company,
      at: later,
    })
  it("for one of the partner's companies: its amount becomes a card entry of that company at once", () => {
    terminalSpec
      .given([])
      .when(registered({ companyId }))
      .then({
        id: companyId,
        command: {
          _tag: "RecordLedgerEntry",
          companyId,
          partnerId,
          entry: {
            entryId: `${cardPaymentId}:card`,
            type: "card",
            cardPaymentId,
            amount: { minorUnits: 4_250, currency: "USD" },
          },
          at: later,
        },
      })
  })
  it("for a merchant outside the service: nothing reaches a balance", () => {
    terminalSpec.given([]).when(registered({})).thenNothingIsIssued()
  })
})

describe("a settled transfer, refunds as movements and returns", () => {
  const request = initiated({ paymentRequestId: PaymentRequestFixtures.paymentRequestId })
  const entryCommand = (entry: Ledger.LedgerEntry) => ({
    id: companyId,
    command: { _tag: "RecordLedgerEntry" as const, companyId, partnerId, entry, at: later },
  })
  it("a refund asked for takes its amount at once", () => {
    spec
      .given([request, settled])
      .when(TransferRefundRequested.make({ transferId, refundId, amount: Money.make(2_500, "USD"), at: later }))
      .then(
        entryCommand({
          entryId: `${transferId}:refund:${refundId}`,
          type: "refund",
          transferId,
          refundId,
          amount: { minorUnits: -2_500, currency: "USD" },
        }),
      )
  })
  it("a refund whose credit failed gives its amount back", () => {
    const requested = TransferRefundRequested.make({ transferId, refundId, amount: Money.make(2_500, "USD"), at })
    spec
      .given([request, settled, requested])
      .when(
        TransferRefundFailed.make({
          transferId,
          refundId,
          amount: Money.make(2_500, "USD"),
          returnCode: "R03",
          reason: "No account",
          at: later,
        }),
      )
      .then(
        entryCommand({
          entryId: `${transferId}:refund:${refundId}:failed`,
          type: "refund",
          transferId,
          refundId,
          amount: { minorUnits: 2_500, currency: "USD" },
        }),
      )
  })
  it("a return takes the transfer's amount back", () => {
    spec
      .given([request, settled])
      .when(
        TransferReturned.make({
          transferId,
          returnCode: "R10",
          reason: "not authorized",
          at: later,
        }),
      )
      .then(
        entryCommand({
          entryId: `${transferId}:return`,
          type: "return",
          transferId,
          amount: { minorUnits: -10_000, currency: "USD" },
        }),
      )
  })
})

describe("events the ledger policies are not subscribed to", () => {
  const request = initiated({ paymentRequestId: PaymentRequestFixtures.paymentRequestId })
  it("a transfer's initiation, or any event of a transfer never initiated, issues no entry", () => {
    assert.isUndefined(policy.react(request, fold(Transfer.aggregate, [request])))
    assert.isUndefined(policy.react(settled, Transfer.initialState))
  })
  it("a payment request's other events, or a card payment of a request never created, issue no card entry", () => {
    const paidByCard = PaymentRequestPaidByCard.make({
      paymentRequestId: PaymentRequestFixtures.paymentRequestId,
      registrationId: PaymentRequestFixtures.payer,
      cardPaymentId,
      paymentMethodId: "card_1",
      brand: "visa",
      last4: "4242",
      processorReference: "ch_1",
      at: later,
    })
    const state = fold(PaymentRequest.aggregate, [PaymentRequestFixtures.created])
    assert.isUndefined(cardPolicy.react(PaymentRequestFixtures.created, state))
    assert.isUndefined(cardPolicy.react(paidByCard, PaymentRequest.initialState))
    assert.isDefined(cardPolicy.react(paidByCard, state))
  })
})
