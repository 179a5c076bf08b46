/**
 * Executable specification of the PaymentRequest aggregate: creation (with
 * autopay or a debit authorization, never both), acceptance by the payer,
 * cancellation before acceptance only, the transfer's outcome, refunds, and
 * the status history the PAYMENT_REQUEST_STATUS_CHANGED webhook is built from.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Schema } from "effect"
import fc from "fast-check"
import type { CalendarDate } from "../../src/kernel/CalendarDate.ts"
import { fold } from "../../src/kernel/Decider.ts"
import type { BankAccountId, CardPaymentId, PartnerId, RegistrationId, TransferId } from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as PaymentRequest from "../../src/payments/PaymentRequest.ts"
import {
  PaymentRequestAccepted,
  PaymentRequestCancelled,
  PaymentRequestCreated,
  type PaymentRequestEvent,
  PaymentRequestFailed,
  PaymentRequestPaid,
  PaymentRequestPartiallyRefunded,
  PaymentRequestRefunded,
  PaymentRequestReturned,
} from "../../src/payments/PaymentRequestEvents.ts"
import {
  type RefundId,
  type ReimbursementProviderId,
  TransferFailed,
  TransferRefundCompleted,
  TransferRefunded,
  TransferRefundRequested,
  TransferReimbursed,
  TransferReturned,
  TransferSettled,
} from "../../src/payments/TransferEvents.ts"
import * as TransferOutcomePolicy from "../../src/payments/TransferOutcomePolicy.ts"
import { DeciderSpecification, PropertyParams } from "../../src/testing/index.ts"
import {
  acceptedByHand,
  amount,
  bankAccountId,
  create,
  created,
  id,
  partnerId,
  payer,
  paymentRequestId,
  transferId,
  usd,
} from "../fixtures/PaymentRequestFixtures.ts"
import { statusHistory } from "../fixtures/PaymentRequestStatusHistory.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(2026112632)

const spec = DeciderSpecification.forAggregate(PaymentRequest.aggregate)

const otherPartnerId = id(3) as PartnerId
const stranger = id(6) as RegistrationId
const otherTransferId = id(10) as TransferId
const otherBankAccountId = id(8) as BankAccountId
const refundIds = [11, 12, 13, 14].map((n) => id(n) as RefundId)
const [refund1, refund2] = refundIds as [RefundId, RefundId]
const later = DateTime.makeUnsafe("2026-03-02T10:00:00.000Z")

const createdWithDebitAuth = PaymentRequestCreated.make({ ...created, debitAuthLimit: usd(50_000) })

const acceptBy = (
  registrationId: RegistrationId,
  overrides: Partial<PaymentRequest.AcceptPaymentRequest> = {},
): PaymentRequest.AcceptPaymentRequest => ({
  _tag: "AcceptPaymentRequest",
  paymentRequestId,
  registrationId,
  payerKyc: "Verified",
  bankAccountId,
  accountNumberMasked: "****6789",
  acceptDebitAuth: false,
  transferDescription: "Dental invoice",
  transferId,
  at: later,
  ...overrides,
})
const accepted = PaymentRequestAccepted.make({ ...acceptedByHand, transferDescription: "Dental invoice", at: later })

const cancelBy = (who: PartnerId): PaymentRequest.CancelPaymentRequest => ({
  _tag: "CancelPaymentRequest",
  paymentRequestId,
  partnerId: who,
  at: later,
})
const cancelled = PaymentRequestCancelled.make({ paymentRequestId, at: later })

const settledWith = (transfer: TransferId): PaymentRequest.RecordTransferSettled => ({
  _tag: "RecordTransferSettled",
  paymentRequestId,
  transferId: transfer,
  at: later,
})
const paid = PaymentRequestPaid.make({ paymentRequestId, transferId, at: later })

const failedWith = (transfer: TransferId, returnCode = "R01"): PaymentRequest.RecordTransferFailed => ({
  _tag: "RecordTransferFailed",
  paymentRequestId,
  transferId: transfer,
  returnCode,
  reason: "insufficient funds",
  at: later,
})
const failed = PaymentRequestFailed.make({
  paymentRequestId,
  transferId,
  returnCode: "R01",
  reason: "insufficient funds",
  at: later,
})

const refund = (refundId: RefundId, minorUnits?: number): PaymentRequest.RefundPaymentRequest => ({
  _tag: "RefundPaymentRequest",
  paymentRequestId,
  refundId,
  ...(minorUnits === undefined ? {} : { amount: usd(minorUnits) }),
  at: later,
})
const partiallyRefunded = (refundId: RefundId, minorUnits: number, total: number) =>
  PaymentRequestPartiallyRefunded.make({
    paymentRequestId,
    refundId,
    amount: usd(minorUnits),
    totalRefunded: usd(total),
    at: later,
  })
const refunded = (refundId: RefundId, minorUnits: number) =>
  PaymentRequestRefunded.make({
    paymentRequestId,
    refundId,
    amount: usd(minorUnits),
    totalRefunded: amount,
    at: later,
  })

const r10Reason = "Customer advises originator is not known and/or not authorized to debit the account"
const returnedWith = (transfer: TransferId): PaymentRequest.RecordTransferReturned => ({
  _tag: "RecordTransferReturned",
  paymentRequestId,
  transferId: transfer,
  returnCode: "R10",
  reason: r10Reason,
  at: later,
})
const returned = PaymentRequestReturned.make({
  paymentRequestId,
  transferId,
  returnCode: "R10",
  reason: r10Reason,
  at: later,
})

const illegal = (state: string) => ({ _tag: "IllegalTransition", entity: "PaymentRequest", state })

// ---------------------------------------------------------------------------

describe("no payment request yet", () => {
  it("a company whose KYB has not completed cannot create one (COMPANY_NOT_VERIFIED)", () => {
    spec
      .given([])
      .when({ ...create, companyStatus: "Unverified" })
      .thenFails({ _tag: "RuleViolated", code: "COMPANY_NOT_VERIFIED" })
  })
  it("a company whose KYB was Rejected cannot create one (COMPANY_REJECTED)", () => {
    spec
      .given([])
      .when({ ...create, companyStatus: "Rejected" })
      .thenFails({ _tag: "RuleViolated", code: "COMPANY_REJECTED" })
  })
  it("create records a Pending request with its partner, company and payer", () => {
    spec.given([]).when(create).then([created])
    spec
      .given([])
      .when(create)
      .thenState((state) => assert.strictEqual(PaymentRequest.status(state), "Pending"))
  })
  it("create with autopay records the autopay limit; the limit may be below the amount", () => {
    spec
      .given([])
      .when({
        ...create,
        enableAutoPay: true,
        autoPayLimit: usd(5_000),
        attachmentUrl: "https://files.example.com/a.pdf",
      })
      .then([
        PaymentRequestCreated.make({
          ...created,
          autoPayLimit: usd(5_000),
          attachmentUrl: "https://files.example.com/a.pdf",
        }),
      ])
  })
  it("create in the sandbox accepts an http attachment URL on a local host", () => {
    spec
      .given([])
      .when({ ...create, attachmentUrl: "http://127.0.0.1:8080/invoice.pdf", sandboxAttachmentUrl: true })
      .then([PaymentRequestCreated.make({ ...created, attachmentUrl: "http://127.0.0.1:8080/invoice.pdf" })])
    spec
      .given([])
      .when({ ...create, attachmentUrl: "ftp://127.0.0.1/invoice.pdf", sandboxAttachmentUrl: true })
      .thenFails({
        _tag: "ValidationFailed",
        issues: [
          {
            field: "attachmentUrl",
            message: "must be an absolute http or https URL such as http://localhost:8080/file.pdf",
          },
        ],
      })
  })
  it("create outside the sandbox refuses an attachment URL on a local host", () => {
    spec
      .given([])
      .when({ ...create, attachmentUrl: "https://127.0.0.1/invoice.pdf" })
      .thenFails({
        _tag: "ValidationFailed",
        issues: [
          { field: "attachmentUrl", message: "must be an absolute https URL such as https://example.com/file.pdf" },
        ],
      })
  })
  it("create with a debit authorization records the debit authorization limit", () => {
    spec
      .given([])
      .when({ ...create, enableDebitAuth: true, debitCeiling: usd(50_000), enableAutoPay: false })
      .then([createdWithDebitAuth])
  })
  it("a due date on the day of creation is allowed", () => {
    spec
      .given([])
      .when({ ...create, dueDate: "2026-03-01" as CalendarDate })
      .then([PaymentRequestCreated.make({ ...created, dueDate: "2026-03-01" as CalendarDate })])
  })
  it("create refuses autopay together with a debit authorization, naming both fields", () => {
    const message = "autopay and a debit authorization cannot both be enabled: choose one"
    spec
      .given([])
      .when({ ...create, enableAutoPay: true, autoPayLimit: usd(1), enableDebitAuth: true, debitCeiling: usd(1) })
      .thenFails({
        _tag: "ValidationFailed",
        issues: [
          { field: "enableAutoPay", message },
          { field: "enableDebitAuth", message },
        ],
      })
  })
  it("create refuses a limit without its enable flag, and an enable flag without its limit", () => {
    spec
      .given([])
      .when({ ...create, autoPayLimit: usd(1), enableDebitAuth: true })
      .thenFails({
        _tag: "ValidationFailed",
        issues: [
          { field: "autoPayLimit", message: "is only allowed when enableAutoPay is true" },
          { field: "debitAuthLimit", message: "is required when enableDebitAuth is true" },
        ],
      })
  })
  it("create refuses every bad field at once", () => {
    spec
      .given([])
      .when({
        ...create,
        amount: usd(0),
        description: "x".repeat(501),
        dueDate: "2026-02-28" as CalendarDate,
        attachmentUrl: "http://files.example.com/a.pdf",
        enableAutoPay: true,
        autoPayLimit: Money.make(0, "EUR"),
      })
      .thenFails({
        _tag: "ValidationFailed",
        issues: [
          { field: "amount", message: "must be greater than zero" },
          { field: "description", message: "must be at most 500 characters" },
          { field: "dueDate", message: "must not be before the creation date 2026-03-01" },
          { field: "attachmentUrl", message: "must be an absolute https URL such as https://example.com/file.pdf" },
          { field: "autoPayLimit", message: "must be greater than zero" },
          { field: "autoPayLimit", message: "must be in USD, the currency of the amount" },
        ],
      })
  })
  it("create refuses a blank description", () => {
    spec
      .given([])
      .when({ ...create, description: "   " })
      .thenFails({ _tag: "ValidationFailed", issues: [{ field: "description", message: "must not be empty" }] })
  })
  it("every other command is refused as NotFound", () => {
    const commands: ReadonlyArray<PaymentRequest.Command> = [
      acceptBy(payer),
      cancelBy(partnerId),
      settledWith(transferId),
      failedWith(transferId),
      returnedWith(transferId),
      refund(refund1),
      {
        _tag: "PayWithCard",
        paymentRequestId,
        registrationId: payer,
        payerKyc: "Verified",
        cardPaymentId: id(15) as CardPaymentId,
        paymentMethodId: "card_1",
        brand: "visa",
        last4: "4242",
        processorReference: "ch_1",
        at: later,
      },
      {
        _tag: "TryAutoCollection",
        paymentRequestId,
        today: "2026-03-15" as CalendarDate,
        account: { bankAccountId, accountNumberMasked: "****6789" },
        parties: { companyStatus: "Verified", payerKyc: "Verified" },
        transferId,
        at: later,
      },
    ]
    for (const command of commands)
      spec.given([]).when(command).thenFails({ _tag: "NotFound", entity: "PaymentRequest" })
  })
})

describe("an invoice on a new payment request (limits on both sides)", () => {
  const line = (quantity: number, minorUnits: number) => ({
    description: "Cleaning",
    quantity,
    unitAmount: usd(minorUnits),
  })
  const creates = (command: PaymentRequest.CreatePaymentRequest) =>
    spec
      .given([])
      .when(command)
      .thenState((state) => assert.strictEqual(state._tag, "Pending"))
  const refusedOn = (command: PaymentRequest.CreatePaymentRequest, field: string, message: string) =>
    spec
      .given([])
      .when(command)
      .thenFails({ _tag: "ValidationFailed", issues: [{ field, message }] })
  const numberMessage = "must be 1 to 64 characters, without leading or trailing blanks"
  it("an invoice number of 1 to 64 characters is kept; an empty, blank-edged or longer one is refused", () => {
    creates({ ...create, invoiceNumber: "I" })
    creates({ ...create, invoiceNumber: "I".repeat(64) })
    refusedOn({ ...create, invoiceNumber: "" }, "invoiceNumber", numberMessage)
    refusedOn({ ...create, invoiceNumber: "   " }, "invoiceNumber", numberMessage)
    refusedOn({ ...create, invoiceNumber: " INV-1" }, "invoiceNumber", numberMessage)
    refusedOn({ ...create, invoiceNumber: "I".repeat(65) }, "invoiceNumber", numberMessage)
  })
  it("1 to 100 lines are accepted; none or 101 are refused", () => {
    creates({ ...create, lineItems: [line(1, 10_000)] })
    creates({ ...create, lineItems: Array.from({ length: 100 }, () => line(1, 100)) })
    refusedOn({ ...create, lineItems: [] }, "lineItems", "must have 1 to 100 lines")
    refusedOn(
      { ...create, amount: usd(10_100), lineItems: Array.from({ length: 101 }, () => line(1, 100)) },
      "lineItems",
      "must have 1 to 100 lines",
    )
  })
  it("a quantity from 1 to 1,000,000 is accepted; 0 and 1,000,001 are refused", () => {
    const quantityMessage = "must be a whole number from 1 to 1000000"
    creates({ ...create, amount: usd(1_000_000), lineItems: [line(1_000_000, 1)] })
    refusedOn({ ...create, lineItems: [line(0, 10_000)] }, "lineItems[0].quantity", quantityMessage)
    refusedOn(
      { ...create, amount: usd(1_000_001), lineItems: [line(1_000_001, 1)] },
      "lineItems[0].quantity",
      quantityMessage,
    )
  })
  it("a line's unit amount must be above zero, naming the line", () => {
    refusedOn({ ...create, lineItems: [line(1, 0)] }, "lineItems[0].unitAmount", "must be greater than zero")
  })
  it("lines that do not add up to the amount are refused, saying both", () => {
    refusedOn({ ...create, lineItems: [line(3, 3_000)] }, "lineItems", "add up to 90.00 USD, not the amount 100.00")
  })
})

describe("a Pending payment request", () => {
  it("a payer whose KYC is not Verified cannot accept it (CUSTOMER_NOT_VERIFIED)", () => {
    for (const payerKyc of ["NotStarted", "Pending", "Rejected"] as const)
      spec
        .given([created])
        .when(acceptBy(payer, { payerKyc }))
        .thenFails({ _tag: "RuleViolated", code: "CUSTOMER_NOT_VERIFIED" })
  })
  it("creating it again is refused as AlreadyExists", () => {
    spec.given([created]).when(create).thenFails({ _tag: "AlreadyExists", entity: "PaymentRequest" })
  })
  it("the payer accepting it moves it to Accepted, naming the transfer and the masked account", () => {
    spec.given([created]).when(acceptBy(payer)).then([accepted])
  })
  it("a blank transfer description falls back to the request's description", () => {
    spec
      .given([created])
      .when(acceptBy(payer, { transferDescription: " " }))
      .then([PaymentRequestAccepted.make({ ...accepted, transferDescription: "Invoice 42: cleaning" })])
  })
  it("the payer can grant the debit authorization the request offers", () => {
    spec
      .given([createdWithDebitAuth])
      .when(acceptBy(payer, { acceptDebitAuth: true }))
      .then([PaymentRequestAccepted.make({ ...accepted, debitAuthAccepted: true })])
  })
  it("granting a debit authorization the request does not offer is refused", () => {
    spec
      .given([created])
      .when(acceptBy(payer, { acceptDebitAuth: true }))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "acceptDebitAuth", message: "this payment request does not offer a debit authorization" }],
      })
  })
  it("accept refuses a full account number", () => {
    spec
      .given([created])
      .when(acceptBy(payer, { accountNumberMasked: "123456789" }))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [
          {
            field: "accountNumberMasked",
            message: 'must be a masked account number such as "****6789" (never the full number)',
          },
        ],
      })
  })
  it("accept refuses a transfer description longer than 500 characters", () => {
    spec
      .given([created])
      .when(acceptBy(payer, { transferDescription: "x".repeat(501) }))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "transferDescription", message: "must be at most 500 characters" }],
      })
  })
  it("anyone but the payer is refused (NOT_THE_PAYER)", () => {
    spec.given([created]).when(acceptBy(stranger)).thenFails({
      _tag: "RuleViolated",
      code: "NOT_THE_PAYER",
      reason: "only the payer can accept this payment request",
    })
  })
  it("the partner cancelling it moves it to Cancelled", () => {
    spec.given([created]).when(cancelBy(partnerId)).then([cancelled])
  })
  it("another partner cannot cancel it (NOT_THE_PARTNER)", () => {
    spec.given([created]).when(cancelBy(otherPartnerId)).thenFails({
      _tag: "RuleViolated",
      code: "NOT_THE_PARTNER",
      reason: "only the partner that created the request can cancel it",
    })
  })
  it("transfer outcomes and refunds are refused: no transfer pays it yet", () => {
    spec
      .given([created])
      .when(settledWith(transferId))
      .thenFails({ ...illegal("Pending"), reason: "the payment request was not accepted, so no transfer pays it" })
    spec.given([created]).when(failedWith(transferId)).thenFails(illegal("Pending"))
    spec.given([created]).when(refund(refund1)).thenFails(illegal("Pending"))
  })
})

describe("a Cancelled payment request", () => {
  it("cancelling it again changes nothing", () => {
    spec.given([created, cancelled]).when(cancelBy(partnerId)).thenNothingHappens()
  })
  it("accepting it is refused", () => {
    spec
      .given([created, cancelled])
      .when(acceptBy(payer))
      .thenFails({ ...illegal("Cancelled"), reason: "a cancelled payment request cannot be accepted" })
  })
  it("transfer outcomes and refunds are refused", () => {
    spec.given([created, cancelled]).when(settledWith(transferId)).thenFails(illegal("Cancelled"))
    spec.given([created, cancelled]).when(failedWith(transferId)).thenFails(illegal("Cancelled"))
    spec.given([created, cancelled]).when(refund(refund1)).thenFails(illegal("Cancelled"))
  })
})

describe("an Accepted payment request", () => {
  it("accepting it again with the same bank account changes nothing", () => {
    spec
      .given([created, accepted])
      .when(acceptBy(payer, { transferId: otherTransferId }))
      .thenNothingHappens()
  })
  it("accepting it again with another bank account is refused", () => {
    spec
      .given([created, accepted])
      .when(acceptBy(payer, { bankAccountId: otherBankAccountId }))
      .thenFails({
        ...illegal("Accepted"),
        reason: "the payment request was already accepted with another bank account",
      })
  })
  it("cancelling it is refused (cancel after accept is 409)", () => {
    spec
      .given([created, accepted])
      .when(cancelBy(partnerId))
      .thenFails({ ...illegal("Accepted"), reason: "a payment request cannot be cancelled after it was accepted" })
  })
  it("its transfer settling moves it to Paid", () => {
    spec.given([created, accepted]).when(settledWith(transferId)).then([paid])
  })
  it("its transfer failing moves it to Failed with the return code", () => {
    spec.given([created, accepted]).when(failedWith(transferId)).then([failed])
  })
  it("the outcome of another transfer is refused (TRANSFER_MISMATCH)", () => {
    spec
      .given([created, accepted])
      .when(settledWith(otherTransferId))
      .thenFails({ _tag: "RuleViolated", code: "TRANSFER_MISMATCH" })
    spec
      .given([created, accepted])
      .when(failedWith(otherTransferId))
      .thenFails({ _tag: "RuleViolated", code: "TRANSFER_MISMATCH" })
  })
  it("a malformed return code is refused", () => {
    spec
      .given([created, accepted])
      .when(failedWith(transferId, ""))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "returnCode", message: 'must be 2 to 8 upper-case letters or digits, such as "R01"' }],
      })
  })
  it("a failure without its reason is refused", () => {
    spec
      .given([created, accepted])
      .when({ ...failedWith(transferId), reason: "" })
      .thenFails({ _tag: "ValidationFailed", issues: [{ field: "reason", message: "must not be empty" }] })
  })
  it("a refund is refused before the money arrived", () => {
    spec
      .given([created, accepted])
      .when(refund(refund1))
      .thenFails({ ...illegal("Accepted"), reason: "only a paid payment request can be refunded" })
  })
})

describe("a Paid payment request", () => {
  const paidHistory = [created, accepted, paid]
  it("its transfer settling again changes nothing; failing is refused", () => {
    spec.given(paidHistory).when(settledWith(transferId)).thenNothingHappens()
    spec
      .given(paidHistory)
      .when(failedWith(transferId))
      .thenFails({ ...illegal("Paid"), reason: "the transfer already settled; pay money back with a refund" })
  })
  it("accepting it again changes nothing; cancelling it is refused", () => {
    spec.given(paidHistory).when(acceptBy(payer)).thenNothingHappens()
    spec.given(paidHistory).when(cancelBy(partnerId)).thenFails(illegal("Paid"))
  })
  it("a partial refund is recorded and it stays Paid", () => {
    spec
      .given(paidHistory)
      .when(refund(refund1, 3_000))
      .then([partiallyRefunded(refund1, 3_000, 3_000)])
    spec
      .given(paidHistory)
      .when(refund(refund1, 3_000))
      .thenState((state) => assert.strictEqual(PaymentRequest.status(state), "Paid"))
  })
  it("a refund without an amount refunds what remains and moves it to Refunded", () => {
    spec
      .given([...paidHistory, partiallyRefunded(refund1, 3_000, 3_000)])
      .when(refund(refund2))
      .then([refunded(refund2, 7_000)])
  })
  it("refunds reaching the paid amount move it to Refunded", () => {
    spec
      .given([...paidHistory, partiallyRefunded(refund1, 3_000, 3_000)])
      .when(refund(refund2, 7_000))
      .thenState((state) => assert.strictEqual(PaymentRequest.status(state), "Refunded"))
  })
  it("a refund above what remains is refused", () => {
    spec
      .given([...paidHistory, partiallyRefunded(refund1, 3_000, 3_000)])
      .when(refund(refund2, 7_001))
      .thenFails({
        _tag: "RuleViolated",
        code: "REFUND_EXCEEDS_PAYMENT",
        reason: "refunds would total 10001 minor units, more than the 10000 paid",
      })
  })
  it("repeating a refund changes nothing; reusing its id for another amount is refused", () => {
    const history = [...paidHistory, partiallyRefunded(refund1, 3_000, 3_000)]
    spec.given(history).when(refund(refund1, 3_000)).thenNothingHappens()
    spec.given(history).when(refund(refund1)).thenNothingHappens()
    spec.given(history).when(refund(refund1, 2_000)).thenFails({
      _tag: "RuleViolated",
      code: "REFUND_ID_REUSED",
      reason: "this refund id was already used for another amount",
    })
  })
  it("a refund of nothing is refused, naming the amount", () => {
    spec
      .given(paidHistory)
      .when(refund(refund1, 0))
      .thenFails({ _tag: "ValidationFailed", issues: [{ field: "amount", message: "must be greater than zero" }] })
  })
  it("a refund in another currency is refused", () => {
    spec
      .given(paidHistory)
      .when({ ...refund(refund1), amount: Money.make(100, "EUR") })
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "amount", message: "must be in USD, the currency of the amount" }],
      })
  })
})

describe("a Paid payment request whose transfer is returned", () => {
  const paidHistory = [created, accepted, paid]
  it("becomes Returned with the return code and its reason", () => {
    spec.given(paidHistory).when(returnedWith(transferId)).then([returned])
    spec
      .given(paidHistory)
      .when(returnedWith(transferId))
      .thenState((state) => assert.strictEqual(PaymentRequest.status(state), "Returned"))
  })
  it("a partially refunded one is returned too", () => {
    spec
      .given([...paidHistory, partiallyRefunded(refund1, 3_000, 3_000)])
      .when(returnedWith(transferId))
      .then([returned])
  })
  it("a fully refunded one is returned too", () => {
    spec
      .given([...paidHistory, refunded(refund1, 10_000)])
      .when(returnedWith(transferId))
      .then([returned])
    spec
      .given([...paidHistory, refunded(refund1, 10_000)])
      .when(returnedWith(transferId))
      .thenState((state) => assert.strictEqual(PaymentRequest.status(state), "Returned"))
  })
  it("another transfer's return is refused", () => {
    spec
      .given(paidHistory)
      .when(returnedWith(otherTransferId))
      .thenFails({ _tag: "RuleViolated", code: "TRANSFER_MISMATCH" })
  })
})

describe("an Accepted payment request told of a return", () => {
  it("a return before its settlement is refused", () => {
    spec
      .given([created, accepted])
      .when(returnedWith(transferId))
      .thenFails({ ...illegal("Accepted"), reason: "the transfer has not settled yet" })
  })
})

describe("a Returned payment request", () => {
  const returnedHistory = [created, accepted, paid, returned]
  it("the return again, the settlement again and a refund completing after it change nothing", () => {
    spec.given(returnedHistory).when(returnedWith(transferId)).thenNothingHappens()
    spec.given(returnedHistory).when(settledWith(transferId)).thenNothingHappens()
    spec.given(returnedHistory).when(refund(refund1, 1_000)).thenNothingHappens()
  })
  it("failing and cancelling are refused", () => {
    spec.given(returnedHistory).when(failedWith(transferId)).thenFails(illegal("Returned"))
    spec.given(returnedHistory).when(cancelBy(partnerId)).thenFails(illegal("Returned"))
  })
})

describe("a Failed payment request", () => {
  const failedHistory = [created, accepted, failed]
  it("its transfer failing again changes nothing", () => {
    spec.given(failedHistory).when(failedWith(transferId, "R02")).thenNothingHappens()
  })
  it("settling, cancelling and refunding are refused", () => {
    spec
      .given(failedHistory)
      .when(settledWith(transferId))
      .thenFails({ ...illegal("Failed"), reason: "the transfer already failed" })
    spec.given(failedHistory).when(cancelBy(partnerId)).thenFails(illegal("Failed"))
    spec.given(failedHistory).when(refund(refund1)).thenFails(illegal("Failed"))
  })
  it("a return of its transfer is refused: it never settled", () => {
    spec
      .given(failedHistory)
      .when(returnedWith(transferId))
      .thenFails({ ...illegal("Failed"), reason: "the transfer already failed" })
  })
})

describe("a Refunded payment request", () => {
  const refundedHistory = [created, accepted, paid, refunded(refund1, 10_000)]
  it("repeating the last refund changes nothing; a new refund is refused", () => {
    spec.given(refundedHistory).when(refund(refund1)).thenNothingHappens()
    spec
      .given(refundedHistory)
      .when(refund(refund2, 1))
      .thenFails({ ...illegal("Refunded"), reason: "the payment request is already fully refunded" })
  })
  it("its transfer settling again changes nothing; cancelling is refused", () => {
    spec.given(refundedHistory).when(settledWith(transferId)).thenNothingHappens()
    spec.given(refundedHistory).when(cancelBy(partnerId)).thenFails(illegal("Refunded"))
  })
})

describe("an acceptance granting the request's debit authorization", () => {
  const requestOf = (events: ReadonlyArray<PaymentRequestEvent>) => {
    const state = fold(PaymentRequest.aggregate, events)
    if (state._tag === "Initial") throw new Error("no request")
    return state.request
  }
  it("grants the payer's authorization for the request's company, up to the request's ceiling", () => {
    const grantingAcceptance = PaymentRequestAccepted.make({ ...accepted, debitAuthAccepted: true })
    assert.deepStrictEqual(PaymentRequest.debitAuthGrantOf(requestOf([createdWithDebitAuth]), grantingAcceptance), {
      partnerId,
      registrationId: payer,
      companyId: created.companyId,
      limit: usd(50_000),
    })
  })
  it("grants nothing when the request offers no debit authorization", () => {
    const grantingAcceptance = PaymentRequestAccepted.make({ ...accepted, debitAuthAccepted: true })
    assert.isUndefined(PaymentRequest.debitAuthGrantOf(requestOf([created]), grantingAcceptance))
  })
  it("grants nothing when the payer did not accept the debit authorization", () => {
    assert.isUndefined(PaymentRequest.debitAuthGrantOf(requestOf([createdWithDebitAuth]), accepted))
  })
  it("grants nothing when the service collected the request with an existing authorization", () => {
    const collected = PaymentRequestAccepted.make({ ...accepted, debitAuthAccepted: true, collectedBy: "DebitAuth" })
    assert.isUndefined(PaymentRequest.debitAuthGrantOf(requestOf([createdWithDebitAuth]), collected))
  })
})

describe("the status history (PAYMENT_REQUEST_STATUS_CHANGED)", () => {
  it("lists every status with its time, and the masked account number once known", () => {
    const history = statusHistory([
      created,
      accepted,
      paid,
      partiallyRefunded(refund1, 3_000, 3_000),
      refunded(refund2, 7_000),
    ])
    assert.deepStrictEqual(
      history.map((change) => [change.status, change.accountNumberMasked, DateTime.formatIso(change.timestamp)]),
      [
        ["Pending", undefined, "2026-03-01T10:00:00.000Z"],
        ["Accepted", "****6789", "2026-03-02T10:00:00.000Z"],
        ["Paid", "****6789", "2026-03-02T10:00:00.000Z"],
        ["Refunded", "****6789", "2026-03-02T10:00:00.000Z"],
      ],
    )
    assert.isTrue(history.every((change) => change.paymentRequestId === paymentRequestId))
  })
  it("a change before the acceptance names no account", () => {
    assert.deepStrictEqual(statusHistory([created]), [{ paymentRequestId, status: "Pending", timestamp: created.at }])
  })
})

describe("the transfer policy for returns and refunds moving money", () => {
  it("a returned transfer returns the request it pays", () => {
    assert.deepStrictEqual(
      TransferOutcomePolicy.fromTransferEvent(
        paymentRequestId,
        TransferReturned.make({ transferId, returnCode: "R10", reason: r10Reason, at: later }),
      ),
      returnedWith(transferId),
    )
  })
  it("a refund refunds the request once completed, not while Pending", () => {
    assert.isUndefined(
      TransferOutcomePolicy.fromTransferEvent(
        paymentRequestId,
        TransferRefundRequested.make({ transferId, refundId: refund1, amount: usd(3_000), at: later }),
      ),
    )
    assert.deepStrictEqual(
      TransferOutcomePolicy.fromTransferEvent(
        paymentRequestId,
        TransferRefundCompleted.make({
          transferId,
          refundId: refund1,
          amount: usd(3_000),
          totalRefunded: usd(3_000),
          isRefunded: false,
          at: later,
        }),
      ),
      refund(refund1, 3_000),
    )
  })
})

describe("the transfer policy", () => {
  it("turns the transfer's settlement, failure and refunds into commands for the request it pays", () => {
    assert.deepStrictEqual(
      TransferOutcomePolicy.fromTransferEvent(paymentRequestId, TransferSettled.make({ transferId, at: later })),
      settledWith(transferId),
    )
    assert.deepStrictEqual(
      TransferOutcomePolicy.fromTransferEvent(
        paymentRequestId,
        TransferFailed.make({
          transferId,
          returnCode: "R01",
          reason: "insufficient funds",
          at: later,
        }),
      ),
      failedWith(transferId),
    )
    assert.deepStrictEqual(
      TransferOutcomePolicy.fromTransferEvent(
        paymentRequestId,
        TransferRefunded.make({
          transferId,
          refundId: refund1,
          amount: usd(3_000),
          totalRefunded: usd(3_000),
          isRefunded: false,
          at: later,
        }),
      ),
      refund(refund1, 3_000),
    )
    assert.isUndefined(
      TransferOutcomePolicy.fromTransferEvent(
        paymentRequestId,
        TransferReimbursed.make({ transferId, providerId: id(20) as ReimbursementProviderId, at: later }),
      ),
    )
  })
})

describe("an event that does not fit the state leaves it unchanged", () => {
  it("a second creation, even with other terms", () => {
    spec.given([created]).ignores(created)
    spec.given([created]).ignores(PaymentRequestCreated.make({ ...created, amount: usd(1), description: "Other" }))
    spec.given([created, accepted]).ignores(PaymentRequestCreated.make({ ...created, amount: usd(1) }))
  })
  it("an acceptance of a request that is not Pending", () => {
    spec.given([]).ignores(accepted)
    spec.given([created, cancelled]).ignores(accepted)
    spec.given([created, accepted, paid]).ignores(accepted)
  })
  it("a cancellation of a request that is not Pending", () => {
    spec.given([created, accepted]).ignores(cancelled)
    spec.given([created, accepted, paid]).ignores(cancelled)
  })
  it("a payment or a failure of a request that is not Accepted (a Cancelled request is never Paid)", () => {
    spec.given([created, cancelled]).ignores(paid)
    spec.given([created]).ignores(paid)
    spec.given([created, cancelled]).ignores(failed)
    spec.given([created, accepted, paid]).ignores(failed)
  })
  it("a refund or a return of a request that was never Paid", () => {
    spec.given([created, accepted]).ignores(partiallyRefunded(refund1, 100, 100))
    spec.given([created, accepted]).ignores(refunded(refund1, 10_000))
    spec.given([created, accepted]).ignores(returned)
    spec.given([created, accepted, failed]).ignores(returned)
  })
})

// ---------------------------------------------------------------------------
// Properties over generated command sequences
// ---------------------------------------------------------------------------

const instant = fc.integer({ min: 1_772_000_000_000, max: 1_800_000_000_000 }).map((ms) => DateTime.makeUnsafe(ms))
const command: fc.Arbitrary<PaymentRequest.Command> = fc.oneof(
  fc.constantFrom<PaymentRequest.Command>(
    create,
    { ...create, enableDebitAuth: true, debitCeiling: usd(50_000) },
    { ...create, amount: usd(0) },
  ),
  fc
    .record({
      at: instant,
      registrationId: fc.constantFrom(payer, payer, payer, stranger),
      bankAccountId: fc.constantFrom(bankAccountId, otherBankAccountId),
      acceptDebitAuth: fc.boolean(),
      transferId: fc.constantFrom(transferId, otherTransferId),
    })
    .map(({ registrationId, ...rest }) => acceptBy(registrationId, rest)),
  fc
    .record({ at: instant, partnerId: fc.constantFrom(partnerId, partnerId, otherPartnerId) })
    .map(({ at, partnerId: who }) => ({ ...cancelBy(who), at })),
  fc
    .record({ at: instant, transferId: fc.constantFrom(transferId, transferId, otherTransferId) })
    .map(({ at, transferId: t }) => ({ ...settledWith(t), at })),
  fc
    .record({
      at: instant,
      transferId: fc.constantFrom(transferId, otherTransferId),
      code: fc.constantFrom("R01", "?"),
    })
    .map(({ at, transferId: t, code }) => ({ ...failedWith(t, code), at })),
  {
    weight: 4,
    arbitrary: fc
      .record({
        at: instant,
        refundId: fc.constantFrom(...refundIds),
        amount: fc.option(
          fc.record({
            minorUnits: fc.oneof(
              fc.integer({ min: 0, max: 12_000 }),
              fc.constantFrom(1, 2_999, 3_000, 5_000, 7_000, 7_001, 9_999, 10_000, 10_001),
            ),
            currency: fc.constantFrom<Money.CurrencyCode>("USD", "USD", "USD", "EUR"),
          }),
          { nil: undefined },
        ),
      })
      .map(
        ({ at, refundId, amount: money }): PaymentRequest.RefundPaymentRequest => ({
          _tag: "RefundPaymentRequest",
          paymentRequestId,
          refundId,
          ...(money === undefined ? {} : { amount: money }),
          at,
        }),
      ),
  },
)
// Start most sequences somewhere along the lifecycle, so that refunds and late commands are exercised often.
const lifecycle: ReadonlyArray<PaymentRequest.Command> = [create, acceptBy(payer), settledWith(transferId)]
const commands = fc
  .tuple(fc.integer({ min: 0, max: lifecycle.length }), fc.array(command, { maxLength: 30 }))
  .map(([reached, rest]) => [...lifecycle.slice(0, reached), ...rest])

/** Runs a sequence, calling `step` with each accepted decision and the states around it. */
const runSequence = (
  sequence: ReadonlyArray<PaymentRequest.Command>,
  step: (events: ReadonlyArray<PaymentRequestEvent>, before: PaymentRequest.State, after: PaymentRequest.State) => void,
): PaymentRequest.State => {
  let state = PaymentRequest.initialState
  for (const cmd of sequence) {
    const decision = PaymentRequest.decide(cmd, state)
    if (decision._tag === "Failure") continue
    const next = fold(PaymentRequest.aggregate, decision.success, state)
    step(decision.success, state, next)
    state = next
  }
  return state
}

describe("properties of payment requests", () => {
  it("a cancelled payment request is never accepted and an accepted one is never cancelled", () => {
    fc.assert(
      fc.property(commands, (sequence) => {
        let wasCancelled = false
        let wasAccepted = false
        runSequence(sequence, (events, _before, after) => {
          for (const event of events) {
            if (event._tag === "PaymentRequestAccepted") {
              assert.isFalse(wasCancelled, "a cancelled request was accepted")
              wasAccepted = true
            }
            if (event._tag === "PaymentRequestCancelled") {
              assert.isFalse(wasAccepted, "an accepted request was cancelled")
              wasCancelled = true
            }
          }
          if (wasCancelled) assert.strictEqual(after._tag, "Cancelled")
        })
      }),
      seeded({ numRuns: 300 }),
    )
  })

  it("replaying the stored (JSON-encoded) events decide emitted reproduces the state", () => {
    const encode = Schema.encodeSync(PaymentRequest.aggregate.events)
    const decode = Schema.decodeUnknownSync(PaymentRequest.aggregate.events)
    fc.assert(
      fc.property(commands, (sequence) => {
        const stored: Array<string> = []
        const state = runSequence(sequence, (events) => {
          for (const event of events) stored.push(JSON.stringify(encode(event)))
        })
        const replayed = fold(
          PaymentRequest.aggregate,
          stored.map((json) => decode(JSON.parse(json))),
        )
        assert.deepStrictEqual(replayed, state)
      }),
      seeded({ numRuns: 200 }),
    )
  })

  it("refunds never exceed the paid amount", () => {
    fc.assert(
      fc.property(commands, (sequence) => {
        let refundedSum = 0
        runSequence(sequence, (events, _before, after) => {
          for (const event of events) {
            if (event._tag === "PaymentRequestPartiallyRefunded" || event._tag === "PaymentRequestRefunded") {
              assert.isAbove(event.amount.minorUnits, 0)
              assert.strictEqual(event.amount.currency, "USD")
              refundedSum += event.amount.minorUnits
              assert.strictEqual(event.totalRefunded.minorUnits, refundedSum)
            }
          }
          if (after._tag !== "Initial") assert.isAtMost(refundedSum, after.request.amount.minorUnits)
          if (after._tag === "Refunded") assert.strictEqual(refundedSum, after.request.amount.minorUnits)
          if (after._tag === "Paid" || after._tag === "Refunded")
            assert.strictEqual(after.refundedAmount.minorUnits, refundedSum)
        })
      }),
      seeded({ numRuns: 300 }),
    )
  })

  it("every status change emits exactly one status event, and the history ends at the current status", () => {
    fc.assert(
      fc.property(commands, (sequence) => {
        const all: Array<PaymentRequestEvent> = []
        let changes = 0
        const state = runSequence(sequence, (events, before, after) => {
          all.push(...events)
          const statusEvents = events.filter((event) => PaymentRequest.statusOf(event) !== undefined)
          if (PaymentRequest.status(before) === PaymentRequest.status(after)) assert.strictEqual(statusEvents.length, 0)
          else {
            changes += 1
            assert.strictEqual(statusEvents.length, 1)
            assert.strictEqual(PaymentRequest.statusOf(statusEvents[0]!), PaymentRequest.status(after))
          }
        })
        const history = statusHistory(all)
        assert.strictEqual(history.length, changes)
        assert.strictEqual(history.at(-1)?.status, PaymentRequest.status(state))
      }),
      seeded({ numRuns: 200 }),
    )
  })
})
