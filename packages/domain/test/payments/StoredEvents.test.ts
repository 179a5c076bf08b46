/**
 * Events stored before the status table: each status event of a payment
 * request and of a transfer carried a `status` field, which its tag already
 * said. Such a stored event still decodes (the field is ignored), to the same
 * event as today's form, so replaying the stored events rebuilds the same read
 * models and the same state.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Schema } from "effect"
import { fold } from "../../src/kernel/Decider.ts"
import * as PaymentRequest from "../../src/payments/PaymentRequest.ts"
import { PaymentRequestEvent } from "../../src/payments/PaymentRequestEvents.ts"
import * as PaymentRequestsProjection from "../../src/payments/PaymentRequestsProjection.ts"
import * as Transfer from "../../src/payments/Transfer.ts"
import { TransferEvent } from "../../src/payments/TransferEvents.ts"
import * as TransfersProjection from "../../src/payments/TransfersProjection.ts"

const paymentRequestId = "9d2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e01"
const transferId = "9d2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e09"

/** A payment request's stream as stored before the status table (JSON, `status` on each status event). */
const storedRequest: ReadonlyArray<unknown> = [
  {
    _tag: "PaymentRequestCreated",
    paymentRequestId,
    partnerId: "9d2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e02",
    companyId: "9d2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e04",
    payerRegistrationId: "9d2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e05",
    amount: { minorUnits: 10_000, currency: "USD" },
    description: "Invoice 42: cleaning",
    dueDate: "2026-03-15",
    status: "Pending",
    at: "2026-03-01T10:00:00.000Z",
  },
  {
    _tag: "PaymentRequestAccepted",
    paymentRequestId,
    registrationId: "9d2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e05",
    bankAccountId: "9d2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e07",
    accountNumberMasked: "****6789",
    debitAuthAccepted: false,
    transferId,
    transferDescription: "Invoice 42: cleaning",
    status: "Accepted",
    at: "2026-03-02T10:00:00.000Z",
  },
  { _tag: "PaymentRequestPaid", paymentRequestId, transferId, status: "Paid", at: "2026-03-05T10:00:00.000Z" },
  {
    _tag: "PaymentRequestReturned",
    paymentRequestId,
    transferId,
    returnCode: "R10",
    reason: "Customer advises not authorized",
    status: "Returned",
    at: "2026-03-09T10:00:00.000Z",
  },
]

/** A transfer's stream as stored before the status table. */
const storedTransfer: ReadonlyArray<unknown> = [
  {
    _tag: "TransferInitiated",
    transferId,
    paymentRequestId,
    payerRegistrationId: "9d2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e05",
    partnerId: "9d2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e02",
    companyId: "9d2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e04",
    amount: { minorUnits: 10_000, currency: "USD" },
    senderName: "Jane Payer",
    recipientName: "Acme Dental",
    senderAccountMasked: "****6789",
    recipientAddress: {
      streetNumberAndName: "1 Elm Street",
      apartmentNumber: "2B",
      city: "Portland",
      zipCode: "97201",
      state: "OR",
      country: "US",
    },
    attachments: [],
    description: "Invoice 42: cleaning",
    status: "Pending",
    at: "2026-03-02T10:00:00.000Z",
  },
  { _tag: "TransferSettled", transferId, status: "Settled", at: "2026-03-05T10:00:00.000Z" },
  {
    _tag: "TransferReturned",
    transferId,
    returnCode: "R10",
    reason: "Customer advises not authorized",
    status: "Returned",
    at: "2026-03-09T10:00:00.000Z",
  },
]

/** The same JSON in today's form: no `status` field. */
const withoutStatus = (stored: unknown): unknown => {
  const { status: _, ...today } = stored as Record<string, unknown>
  return today
}

const decodeRequest = Schema.decodeUnknownSync(PaymentRequestEvent)
const decodeTransfer = Schema.decodeUnknownSync(TransferEvent)

const envelope = <StreamType extends string, Event>(streamType: StreamType, event: Event, index: number) => ({
  streamType,
  event,
  eventId: `event-${index}`,
  streamId: `${streamType}-${index}`,
  streamVersion: index + 1,
  globalPosition: index + 1,
  recordedAt: DateTime.makeUnsafe("2026-03-10T00:00:00.000Z"),
  metadata: {},
})

describe("a payment request's events stored with a status field", () => {
  it("decode to the same events as today's form, whose tag gives the same status", () => {
    for (const stored of storedRequest) {
      const event = decodeRequest(stored)
      assert.deepStrictEqual(event, decodeRequest(withoutStatus(stored)))
      assert.notProperty(event, "status")
      assert.strictEqual(PaymentRequest.statusOf(event), (stored as { status: string }).status)
    }
  })

  it("replay to the same state and read model as today's events", () => {
    const stored = storedRequest.map((event) => decodeRequest(event))
    const today = storedRequest.map((event) => decodeRequest(withoutStatus(event)))
    assert.deepStrictEqual(fold(PaymentRequest.aggregate, stored), fold(PaymentRequest.aggregate, today))
    const replay = (events: ReadonlyArray<PaymentRequest.Event>) =>
      events.reduce<PaymentRequestsProjection.PaymentRequestDocument | undefined>(
        (doc, event, index) => PaymentRequestsProjection.apply(doc, envelope("PaymentRequest", event, index)),
        undefined,
      )
    const document = replay(stored)
    assert.deepStrictEqual(document, replay(today))
    assert.strictEqual(document?.status, "Returned")
    assert.deepStrictEqual(
      document?.statusHistory.map((change) => change.status),
      ["Pending", "Accepted", "Paid", "Returned"],
    )
  })
})

describe("a transfer's events stored with a status field", () => {
  it("decode to the same events as today's form, whose tag gives the same status", () => {
    for (const stored of storedTransfer) {
      const event = decodeTransfer(stored)
      assert.deepStrictEqual(event, decodeTransfer(withoutStatus(stored)))
      assert.notProperty(event, "status")
      assert.strictEqual(Transfer.statusOf(event), (stored as { status: string }).status)
    }
  })

  it("replay to the same state and read model as today's events", () => {
    const stored = storedTransfer.map((event) => decodeTransfer(event))
    const today = storedTransfer.map((event) => decodeTransfer(withoutStatus(event)))
    assert.deepStrictEqual(fold(Transfer.aggregate, stored), fold(Transfer.aggregate, today))
    const replay = (events: ReadonlyArray<Transfer.Event>) =>
      events.reduce<TransfersProjection.TransferDocument | undefined>(
        (doc, event, index) => TransfersProjection.apply(doc, envelope("Transfer", event, index)),
        undefined,
      )
    const document = replay(stored)
    assert.deepStrictEqual(document, replay(today))
    assert.strictEqual(document?.status, "Returned")
    assert.strictEqual(Transfer.summary(fold(Transfer.aggregate, stored))?.status, "Returned")
  })
})
