/**
 * The `transfers` read model agrees with the Transfer aggregate: after any
 * history of commands (settlement, failure, return, origination, partial and
 * full refunds with their credits completing or failing, repeated refunds,
 * reimbursement), the document says what the aggregate's state says, field by
 * field; it is refunded only once completed refunds paid everything back.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import type {
  CompanyId,
  PartnerId,
  PaymentPlanId,
  PaymentRequestId,
  RegistrationId,
  TransferId,
} from "../../src/kernel/Ids.ts"
import * as Transfer from "../../src/payments/Transfer.ts"
import type { RefundId, ReimbursementProviderId } from "../../src/payments/TransferEvents.ts"
import { projection, type TransferDocument } from "../../src/payments/TransfersProjection.ts"
import { PropertyParams } from "../../src/testing/index.ts"
import { documentOf, history, iso, type Timed, usd, uuid } from "./RandomHistory.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(42)

const repeatedRefundId = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f" as RefundId
/** The refund ids of a history (few, so that outcomes name refunds that exist). */
const refundIds = [
  repeatedRefundId,
  "4c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f" as RefundId,
  "5c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f" as RefundId,
]
const providers = ["1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e"].map(
  (id) => id as ReimbursementProviderId,
)

interface Initiated {
  readonly transferId: TransferId
  readonly amount: number
}

const arbitraryInitiate = fc
  .record({
    transferId: uuid,
    partnerId: uuid,
    companyId: uuid,
    payer: uuid,
    /** What the transfer pays: nothing named, a payment request, or a plan's instalment. */
    pays: fc.oneof(
      fc.constant({}),
      uuid.map((id) => ({ paymentRequestId: id as PaymentRequestId })),
      fc.record({ paymentPlanId: uuid, instalmentNumber: fc.integer({ min: 1, max: 24 }) }).map((plan) => ({
        paymentPlanId: plan.paymentPlanId as PaymentPlanId,
        instalmentNumber: plan.instalmentNumber,
      })),
    ),
    amount: fc.integer({ min: 100, max: 100_000 }),
    attachments: fc.integer({ min: 0, max: 2 }),
  })
  .map((r): { readonly transfer: Initiated; readonly initiate: Timed<Transfer.Command> } => ({
    transfer: { transferId: r.transferId as TransferId, amount: r.amount },
    initiate: (at) => ({
      _tag: "InitiateTransfer",
      transferId: r.transferId as TransferId,
      ...r.pays,
      payerRegistrationId: r.payer as RegistrationId,
      partnerId: r.partnerId as PartnerId,
      companyId: r.companyId as CompanyId,
      parties: { companyStatus: "Verified", payerKyc: "Verified" },
      amount: usd(r.amount),
      senderName: "Ada Lovelace",
      recipientName: "Acme Coffee",
      senderAccountMasked: "****6789",
      recipientAccountMasked: "****4321",
      recipientAddress: {
        streetNumberAndName: "100 Main St",
        apartmentNumber: "",
        city: "San Francisco",
        zipCode: "94105",
        state: "CA",
        country: "US",
      },
      attachments: Array.from({ length: r.attachments }, (_, n) => ({
        id: `att-${n}`,
        name: `invoice-${n}.pdf`,
        contentType: "application/pdf",
      })),
      description: "Invoice 42",
      at,
    }),
  }))

const arbitraryCommand = (transfer: Initiated): fc.Arbitrary<Timed<Transfer.Command>> => {
  const transferId = transfer.transferId
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constant<Timed<Transfer.Command>>((at) => ({ _tag: "SettleTransfer", transferId, at })),
    },
    {
      weight: 1,
      arbitrary: fc.constant<Timed<Transfer.Command>>((at) => ({
        _tag: "FailTransfer",
        transferId,
        returnCode: "R01",
        reason: "Insufficient funds",
        at,
      })),
    },
    {
      weight: 6,
      arbitrary: fc
        .record({
          refundId: fc.constantFrom(...refundIds),
          amount: fc.oneof(
            fc.integer({ min: 1, max: Math.max(1, Math.floor(transfer.amount / 3)) }),
            fc.constant(transfer.amount),
          ),
        })
        .map(
          ({ refundId, amount }): Timed<Transfer.Command> =>
            (at) => ({ _tag: "RefundTransfer", transferId, refundId: refundId as RefundId, amount: usd(amount), at }),
        ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...providers).map(
        (providerId): Timed<Transfer.Command> =>
          (at) => ({
            _tag: "ApplyForReimbursement",
            transferId,
            providerId,
            signingUrl: "https://sign.example.com/envelopes/1",
            at,
          }),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constant<Timed<Transfer.Command>>((at) => ({ _tag: "CompleteReimbursement", transferId, at })),
    },
    {
      weight: 1,
      arbitrary: fc.constant<Timed<Transfer.Command>>((at) => ({
        _tag: "RecordOutcome",
        transferId,
        outcome: { _tag: "Returned", returnCode: "R10" },
        at,
      })),
    },
    {
      weight: 1,
      arbitrary: fc.constant<Timed<Transfer.Command>>((at) => ({
        _tag: "RecordOrigination",
        transferId,
        providerReference: "ref-1",
        at,
      })),
    },
    {
      weight: 4,
      arbitrary: fc
        .record({
          refundId: fc.constantFrom(...refundIds),
          outcome: fc.constantFrom<Transfer.Outcome>({ _tag: "Settled" }, { _tag: "Failed", returnCode: "R03" }),
        })
        .map(
          ({ refundId, outcome }): Timed<Transfer.Command> =>
            (at) => ({ _tag: "RecordRefundOutcome", transferId, refundId, outcome, at }),
        ),
    },
  )
}

const arbitraryHistory = arbitraryInitiate.chain(({ transfer, initiate }) =>
  fc.array(arbitraryCommand(transfer), { minLength: 3, maxLength: 12 }).map((commands) => {
    const { events, state } = history(Transfer.aggregate, [initiate, ...commands])
    return { transfer, events, state }
  }),
)

type InitiatedState = Exclude<Transfer.State, { readonly _tag: "Initial" }>

const property = (check: (state: InitiatedState, document: TransferDocument) => void) =>
  fc.assert(
    fc.property(arbitraryHistory, ({ transfer, events, state }) => {
      const document = documentOf(projection, "Transfer", transfer.transferId, events)
      if (state._tag === "Initial" || document === undefined) throw new Error("an initiated transfer has a document")
      check(state, document)
    }),
    seeded(),
  )

describe("the transfer document, after any history", () => {
  it("says the status the aggregate has, with when it settled or failed", () =>
    property((state, document) => {
      assert.strictEqual(document.status, state._tag)
      const settled = state._tag === "Settled" || state._tag === "Returned"
      const ended = state._tag === "Failed" || state._tag === "Returned"
      assert.strictEqual(document.settledAt, settled ? iso(state.settledAt) : undefined)
      assert.strictEqual(document.failedAt, state._tag === "Failed" ? iso(state.failedAt) : undefined)
      assert.strictEqual(document.returnedAt, state._tag === "Returned" ? iso(state.returnedAt) : undefined)
      assert.strictEqual(document.returnCode, ended ? state.returnCode : undefined)
      assert.strictEqual(document.failureReason, ended ? state.reason : undefined)
      assert.strictEqual(document.providerReference, state.providerReference)
    }))

  it("says what the transfer moves, from whom to whom, as the aggregate recorded it", () =>
    property((state, document) => {
      const details = state.details
      assert.strictEqual(document.transferId, details.transferId)
      assert.strictEqual(document.partnerId, details.partnerId)
      assert.strictEqual(document.companyId, details.companyId)
      assert.strictEqual(document.paymentRequestId, details.paymentRequestId)
      assert.strictEqual(document.paymentPlanId, details.paymentPlanId)
      assert.strictEqual(document.instalmentNumber, details.instalmentNumber)
      assert.strictEqual(document.payerRegistrationId, details.payerRegistrationId)
      assert.deepStrictEqual(document.amount, details.amount)
      assert.strictEqual(document.senderName, details.senderName)
      assert.strictEqual(document.recipientName, details.recipientName)
      assert.strictEqual(document.senderAccountMasked, details.senderAccountMasked)
      assert.strictEqual(document.recipientAccountMasked, details.recipientAccountMasked)
      assert.deepStrictEqual(document.recipientAddress, details.recipientAddress)
      assert.deepStrictEqual(document.attachments, details.attachments)
      assert.strictEqual(document.description, details.description)
      assert.strictEqual(document.createdAt, iso(details.initiatedAt))
    }))

  it("says the refunded amount the aggregate has, the sum of every completed refund, partial ones included", () =>
    property((state, document) => {
      const summary = Transfer.summary(state)
      assert.deepStrictEqual(document.refundedAmount, summary?.refundedAmount)
      assert.strictEqual(
        document.refundedAmount.minorUnits,
        Transfer.refundsOf(state)
          .filter((refund) => refund.status === "Completed")
          .reduce((total, refund) => total + refund.amount.minorUnits, 0),
      )
    }))

  it("lists the refunds the aggregate has, each with its amount and status", () =>
    property((state, document) => {
      assert.deepStrictEqual(
        (document.refunds ?? []).map((refund) => [refund.refundId, refund.amount.minorUnits, refund.status]),
        Transfer.refundsOf(state).map((refund) => [refund.refundId, refund.amount.minorUnits, refund.status]),
      )
    }))

  it("says a transfer is refunded only when the aggregate has paid all of it back", () =>
    property((state, document) => {
      assert.strictEqual(document.isRefunded, Transfer.summary(state)?.isRefunded)
      assert.strictEqual(
        document.isRefunded,
        (state._tag === "Settled" || state._tag === "Returned") &&
          state.refundedAmount.minorUnits === state.details.amount.minorUnits,
      )
    }))

  it("says the reimbursement the aggregate has: applied, with which provider and where to sign, and reimbursed", () =>
    property((state, document) => {
      const reimbursement =
        state._tag === "Settled" || state._tag === "Returned" ? state.reimbursement : { _tag: "NotApplied" as const }
      assert.strictEqual(document.appliedForReimbursement, reimbursement._tag !== "NotApplied")
      assert.strictEqual(document.isReimbursed, reimbursement._tag === "Reimbursed")
      assert.strictEqual(
        document.reimbursementProviderId,
        reimbursement._tag === "NotApplied" ? undefined : reimbursement.providerId,
      )
      assert.strictEqual(
        document.signingUrl,
        reimbursement._tag === "NotApplied" ? undefined : reimbursement.signingUrl,
      )
    }))
})
