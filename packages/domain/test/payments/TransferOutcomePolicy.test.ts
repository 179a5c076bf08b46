/** Policy: a transfer's outcome reaches the payment request it pays (given the transfer's events, when one is recorded, then the request's command). */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import { fold } from "../../src/kernel/Decider.ts"
import type { CompanyId, PartnerId, PaymentRequestId, TransferId } from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as Transfer from "../../src/payments/Transfer.ts"
import {
  type RefundId,
  type ReimbursementProviderId,
  TransferFailed,
  TransferInitiated,
  TransferRefundCompleted,
  TransferRefunded,
  TransferRefundRequested,
  TransferReimbursementApplied,
  TransferReturned,
  TransferSettled,
} from "../../src/payments/TransferEvents.ts"
import { policy } from "../../src/payments/TransferOutcomePolicy.ts"
import { Fixtures, PolicySpecification } from "../../src/testing/index.ts"

const spec = PolicySpecification.forPolicy(policy)

const transferId = "6c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e50" as TransferId
const paymentRequestId = "6c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e51" as PaymentRequestId
const refundId = "7c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e60" as RefundId
const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
const later = DateTime.makeUnsafe("2026-03-03T10:00:00.000Z")
const amount = Money.make(10_000, "USD")

const initiatedFor = (paysRequest: boolean) =>
  TransferInitiated.make({
    transferId,
    ...(paysRequest ? { paymentRequestId } : {}),
    partnerId: "6c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e52" as PartnerId,
    companyId: "6c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e53" as CompanyId,
    amount,
    senderName: "Jane Payer",
    recipientName: "Acme Dental",
    senderAccountMasked: "****6789",
    recipientAccountMasked: "****4321",
    recipientAddress: Fixtures.recipientAddress,
    attachments: [],
    description: "Invoice 42",
    at,
  })
const initiated = initiatedFor(true)
const settled = TransferSettled.make({ transferId, at: later })
const failed = TransferFailed.make({
  transferId,
  returnCode: "R01",
  reason: "insufficient funds",
  at,
})
const refunded = TransferRefunded.make({
  transferId,
  refundId,
  amount: Money.make(4_000, "USD"),
  totalRefunded: Money.make(4_000, "USD"),
  isRefunded: false,
  at: later,
})

describe("a transfer's outcome reaches the payment request it pays", () => {
  it("a settled transfer makes its payment request record the settlement", () => {
    spec
      .given([initiated])
      .when(settled)
      .then({
        id: paymentRequestId,
        command: { _tag: "RecordTransferSettled", paymentRequestId, transferId, at: later },
      })
  })

  it("a failed transfer makes its payment request record the failure with the bank's return code", () => {
    spec
      .given([initiated])
      .when(failed)
      .then({
        id: paymentRequestId,
        command: {
          _tag: "RecordTransferFailed",
          paymentRequestId,
          transferId,
          returnCode: "R01",
          reason: "insufficient funds",
          at,
        },
      })
  })

  it("a transfer the rail refused (no return code) makes its payment request record the failure without one", () => {
    spec
      .given([initiated])
      .when(TransferFailed.make({ transferId, reason: "refused by the rail", at }))
      .then({
        id: paymentRequestId,
        command: { _tag: "RecordTransferFailed", paymentRequestId, transferId, reason: "refused by the rail", at },
      })
  })

  it("a refund of the transfer refunds its payment request by the same amount", () => {
    spec
      .given([initiated, settled])
      .when(refunded)
      .then({
        id: paymentRequestId,
        command: {
          _tag: "RefundPaymentRequest",
          paymentRequestId,
          refundId,
          amount: Money.make(4_000, "USD"),
          at: later,
        },
      })
  })

  it("a returned transfer makes its payment request record the return with the code and its reason", () => {
    spec
      .given([initiated, settled])
      .when(TransferReturned.make({ transferId, returnCode: "R10", reason: "not authorised", at }))
      .then({
        id: paymentRequestId,
        command: {
          _tag: "RecordTransferReturned",
          paymentRequestId,
          transferId,
          returnCode: "R10",
          reason: "not authorised",
          at,
        },
      })
  })

  it("a refund reaches the payment request once completed, not while Pending", () => {
    spec
      .given([initiated, settled])
      .when(TransferRefundRequested.make({ transferId, refundId, amount: Money.make(4_000, "USD"), at: later }))
      .thenNothingIsIssued()
    spec
      .given([
        initiated,
        settled,
        TransferRefundRequested.make({ transferId, refundId, amount: Money.make(4_000, "USD"), at: later }),
      ])
      .when(
        TransferRefundCompleted.make({
          transferId,
          refundId,
          amount: Money.make(4_000, "USD"),
          totalRefunded: Money.make(4_000, "USD"),
          isRefunded: false,
          at: later,
        }),
      )
      .then({
        id: paymentRequestId,
        command: {
          _tag: "RefundPaymentRequest",
          paymentRequestId,
          refundId,
          amount: Money.make(4_000, "USD"),
          at: later,
        },
      })
  })

  it("the transfer's own steps (initiation, reimbursement) tell the payment request nothing", () => {
    spec.given([]).when(initiated).thenNothingIsIssued()
    spec
      .given([initiated, failed])
      .when(
        TransferReimbursementApplied.make({
          transferId,
          providerId: "8c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e70" as ReimbursementProviderId,
          signingUrl: "https://sign.example.com/envelopes/abc123",
          at: later,
        }),
      )
      .thenNothingIsIssued()
  })

  it("a transfer that pays no payment request issues nothing", () => {
    spec
      .given([initiatedFor(false)])
      .when(settled)
      .thenNothingIsIssued()
  })
})

describe("events the policy is not subscribed to", () => {
  it("a step of the transfer alone (its initiation) issues nothing", () => {
    assert.isUndefined(policy.react(initiated, fold(Transfer.aggregate, [initiated])))
  })
  it("an outcome of a transfer never initiated issues nothing", () => {
    assert.isUndefined(policy.react(settled, Transfer.initialState))
  })
})
