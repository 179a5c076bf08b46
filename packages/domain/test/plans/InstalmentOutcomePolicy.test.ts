/**
 * Policy: a transfer's outcome reaches the plan instalment it collects (given
 * the transfer's events, when one is recorded, then the plan's command).
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import { fold } from "../../src/kernel/Decider.ts"
import type { CompanyId, PartnerId, PaymentPlanId, PaymentRequestId, TransferId } from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as Transfer from "../../src/payments/Transfer.ts"
import {
  type RefundId,
  TransferFailed,
  TransferInitiated,
  TransferRefunded,
  TransferReturned,
  TransferSettled,
} from "../../src/payments/TransferEvents.ts"
import { policy } from "../../src/plans/InstalmentOutcomePolicy.ts"
import { PolicySpecification } from "../../src/testing/index.ts"

const spec = PolicySpecification.forPolicy(policy)

const transferId = "6c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e50" as TransferId
const paymentPlanId = "6c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e54" as PaymentPlanId
const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
const later = DateTime.makeUnsafe("2026-03-03T10:00:00.000Z")
const amount = Money.make(10_000, "USD")

const initiatedFor = (collects: { paymentPlanId: PaymentPlanId } | { paymentRequestId: PaymentRequestId }) =>
  TransferInitiated.make({
    transferId,
    ...collects,
    ...("paymentPlanId" in collects ? { instalmentNumber: 1 } : {}),
    partnerId: "6c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e52" as PartnerId,
    companyId: "6c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e53" as CompanyId,
    amount,
    senderName: "Jane Payer",
    recipientName: "Acme Dental",
    senderAccountMasked: "****6789",
    recipientAccountMasked: "****0000",
    recipientAddress: {
      streetNumberAndName: "12 Main Street",
      apartmentNumber: "",
      city: "Springfield",
      zipCode: "62701",
      state: "IL",
      country: "US",
    },
    attachments: [],
    description: "Instalment 1",
    at,
  })
const initiated = initiatedFor({ paymentPlanId })
const settled = TransferSettled.make({ transferId, at: later })
const failed = TransferFailed.make({
  transferId,
  returnCode: "R01",
  reason: "insufficient funds",
  at,
})

describe("a transfer's outcome reaches the plan instalment it collects", () => {
  it("a settled transfer makes its plan record the instalment Settled", () => {
    spec
      .given([initiated])
      .when(settled)
      .then({
        id: paymentPlanId,
        command: {
          _tag: "RecordInstalmentOutcome",
          paymentPlanId,
          transferId,
          outcome: { _tag: "Settled" },
          at: later,
        },
      })
  })

  it("a failed transfer makes its plan record the instalment Failed with the bank's return code", () => {
    spec
      .given([initiated])
      .when(failed)
      .then({
        id: paymentPlanId,
        command: {
          _tag: "RecordInstalmentOutcome",
          paymentPlanId,
          transferId,
          outcome: { _tag: "Failed", returnCode: "R01", reason: "insufficient funds" },
          at,
        },
      })
  })

  it("a transfer the rail refused (no ACH return) makes its plan record the instalment Failed with no return code", () => {
    const refused = TransferFailed.make({ transferId, reason: "refused by the rail", at })
    assert.deepStrictEqual(policy.react(refused, fold(Transfer.aggregate, [initiated, refused])), {
      id: paymentPlanId,
      command: {
        _tag: "RecordInstalmentOutcome",
        paymentPlanId,
        transferId,
        outcome: { _tag: "Failed", reason: "refused by the rail" },
        at,
      },
    })
  })

  it("a returned transfer makes its plan record the instalment Returned with the code and its reason", () => {
    spec
      .given([initiated, settled])
      .when(
        TransferReturned.make({
          transferId,
          returnCode: "R10",
          reason: "not authorised",
          at: later,
        }),
      )
      .then({
        id: paymentPlanId,
        command: {
          _tag: "RecordInstalmentOutcome",
          paymentPlanId,
          transferId,
          outcome: { _tag: "Returned", returnCode: "R10", reason: "not authorised" },
          at: later,
        },
      })
  })

  it("a transfer's initiation or refund tells the plan nothing", () => {
    spec.given([]).when(initiated).thenNothingIsIssued()
    spec
      .given([initiated, settled])
      .when(
        TransferRefunded.make({
          transferId,
          refundId: "7c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e60" as RefundId,
          amount,
          totalRefunded: amount,
          isRefunded: true,
          at: later,
        }),
      )
      .thenNothingIsIssued()
  })

  it("a transfer paying a payment request tells no plan anything", () => {
    const paysRequest = initiatedFor({ paymentRequestId: "6c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e51" as PaymentRequestId })
    spec.given([paysRequest]).when(settled).thenNothingIsIssued()
    spec.given([paysRequest]).when(failed).thenNothingIsIssued()
  })
})

describe("events the policy is not subscribed to", () => {
  it("a transfer's initiation issues nothing to its plan", () => {
    assert.isUndefined(policy.react(initiated, fold(Transfer.aggregate, [initiated])))
  })
  it("an outcome of a transfer never initiated issues nothing", () => {
    assert.isUndefined(policy.react(settled, Transfer.initialState))
  })
})
