/**
 * Events of the Transfer aggregate: one bank-to-bank money movement, as read by
 * GET /Transaction/{transferId}. Account numbers appear in these events only
 * masked ("****6789"): the schema refuses a full number, so one can never be
 * stored. The status an event moves the transfer to is its tag's, in one table
 * (`TransferState.statusOf`; events recorded before carry a `status` field
 * too, which decoding ignores); a refund's events name the refund's status by
 * their tag too: requested is Pending, then Completed or Failed.
 */
import { Schema } from "effect"
import { unionOf } from "../kernel/EventSchema.ts"
import {
  httpsUrlPattern,
  maskedAccountNumberPattern,
  returnCodePattern,
  sandboxUrlPattern,
} from "../kernel/FieldChecks.ts"
import {
  BankAccountId,
  CompanyId,
  PartnerId,
  PaymentPlanId,
  PaymentRequestId,
  RegistrationId,
  TransferId,
  Uuid,
} from "../kernel/Ids.ts"
import { Money } from "../kernel/Money.ts"
import * as FeeSchedule from "./FeeSchedule.ts"

/** Identifies one refund of a transfer (new id from the edge); repeating a refund with the same id changes nothing. */
export const RefundId = Uuid.pipe(Schema.brand("RefundId"))
export type RefundId = typeof RefundId.Type

/** The reimbursement provider a payer applies to (POST /Reimbursement/Create providerId). */
export const ReimbursementProviderId = Uuid.pipe(Schema.brand("ReimbursementProviderId"))
export type ReimbursementProviderId = typeof ReimbursementProviderId.Type

/** "****6789": four asterisks and at most the last four digits of an account number. */
export const MaskedAccountNumber = Schema.String.check(
  Schema.isPattern(maskedAccountNumberPattern, {
    expected: "a masked account number",
    message: 'must be a masked account number such as "****6789"',
  }),
)

export const HttpsUrl = Schema.String.check(
  Schema.isPattern(httpsUrlPattern, { expected: "an https URL", message: "must be an absolute https URL" }),
)

/** An attachment URL as recorded: https, or in the sandbox also http and local hosts. */
export const AttachmentUrl = Schema.String.check(
  Schema.isPattern(sandboxUrlPattern, { expected: "an http(s) URL", message: "must be an absolute http(s) URL" }),
)

export const ReturnCode = Schema.String.check(
  Schema.isPattern(returnCodePattern, { expected: "a return code", message: 'must be a return code such as "R01"' }),
)

/** The statuses a client reads in the transfer's `status` field. */
export const TransferStatus = Schema.Literals(["Pending", "Settled", "Failed", "Returned"])
export type TransferStatus = typeof TransferStatus.Type

export const RecipientAddress = Schema.Struct({
  streetNumberAndName: Schema.String,
  apartmentNumber: Schema.String,
  city: Schema.String,
  zipCode: Schema.String,
  state: Schema.String,
  country: Schema.String,
})
export type RecipientAddress = typeof RecipientAddress.Type

export const Attachment = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  contentType: Schema.String,
})
export type Attachment = typeof Attachment.Type

/**
 * One line of an invoice: `quantity` times `unitAmount` (same currency as the
 * request). The line items of a request add up to its amount exactly.
 */
export const InvoiceLineItem = Schema.Struct({
  description: Schema.String,
  quantity: Schema.Int,
  unitAmount: Money,
})
export type InvoiceLineItem = typeof InvoiceLineItem.Type

/** The invoice a transfer pays, as its payment request stated it (each part when the request had it). */
export const TransferInvoice = Schema.Struct({
  invoiceNumber: Schema.optionalKey(Schema.String),
  lineItems: Schema.optionalKey(Schema.Array(InvoiceLineItem)),
})
export type TransferInvoice = typeof TransferInvoice.Type

/** A refund's id and amount, and the refunded total it brings its transfer (and payment request) to. */
export const refundTotal = { refundId: RefundId, amount: Money, totalRefunded: Money }

/**
 * A refund whose money is back with the payer: its amount, the completed refunds' total and
 * whether it reaches the transfer's amount (`isRefunded`). Declared once for the completion of a
 * refund's credit and for the refunds recorded at once before refunds moved money.
 */
const refundCompletion = { ...refundTotal, isRefunded: Schema.Boolean }

/**
 * A movement (the debit, or naming `refundId` a refund's credit) put off while the rail is
 * unavailable: the `failures`-th failure in a row since `firstFailedAt`, tried again at `retryAt`
 * (`MovementAttempts.ts`). Declared once for the origination's and the status question's deferral.
 */
const deferral = {
  refundId: Schema.optionalKey(RefundId),
  failures: Schema.Int,
  firstFailedAt: Schema.DateTimeUtcFromString,
  retryAt: Schema.DateTimeUtcFromString,
  reason: Schema.String,
}

/** A bank return: its code, the code's description, and the provider's return fee (the platform's expense; `passedOn`: the company's too). */
const bankReturn = {
  returnCode: ReturnCode,
  reason: Schema.String,
  returnFee: Schema.optionalKey(FeeSchedule.ReturnFee),
}

/** The statuses of a refund. */
export const RefundStatus = Schema.Literals(["Pending", "Completed", "Failed"])
export type RefundStatus = typeof RefundStatus.Type

/**
 * Every event of a transfer, by its tag (the codec of its stream). Each names the transfer and the
 * instant `at`.
 */
export const TransferEvent = unionOf(
  { transferId: TransferId },
  {
    /**
     * A transfer was started; it is Pending until the bank settles or fails it.
     * It pays a payment request (`paymentRequestId`) or collects instalment
     * `instalmentNumber` of a payment plan (`paymentPlanId`), or neither. The
     * payer (`payerRegistrationId`) is named on every transfer initiated since the
     * sender's name is sealed for them (`senderName` is the payer's personal data,
     * `PaymentPersonalData.ts`); before, only on a plan's instalment (an older
     * payment request transfer's payer is the request's). A transfer that pays
     * a payment request records the request's invoice (`invoice`, possibly empty),
     * so that reading the transfer needs nothing else; transfers initiated before
     * this field existed lack it.
     */
    TransferInitiated: {
      paymentRequestId: Schema.optionalKey(PaymentRequestId),
      paymentPlanId: Schema.optionalKey(PaymentPlanId),
      instalmentNumber: Schema.optionalKey(Schema.Number),
      /** The charity gift this transfer collects (a donation: `cards-and-charity/Charity.ts`). */
      charityTransactionId: Schema.optionalKey(Uuid),
      /**
       * The platform's fee kept from the amount (a charity gift's fee, or the partner's ACH fee schedule's:
       * `FeeSchedule.platformFeeOf`; absent: none, and on earlier transfers), the schedule that produced it
       * (absent for a charity gift's fee), the provider's cost, and the return fee in force (recorded as
       * `returnFee` on `TransferFailed`/`TransferReturned` with a code).
       */
      ...FeeSchedule.AppliedFees.fields,
      payerRegistrationId: Schema.optionalKey(RegistrationId),
      /** The payer's linked bank account debited (the funding source the provider moves money from). */
      bankAccountId: Schema.optionalKey(BankAccountId),
      partnerId: PartnerId,
      companyId: CompanyId,
      amount: Money,
      /** The payer's name (verified, else their account's): personal, sealed at rest; "[erased]" once the payer is. */
      senderName: Schema.String,
      recipientName: Schema.String,
      senderAccountMasked: MaskedAccountNumber,
      /**
       * The company's payout account, masked, when it had one at initiation (absent: none yet; the wire
       * says `Transfers.noPayoutAccountYet`). Transfers initiated before payout accounts existed say "****0000".
       */
      recipientAccountMasked: Schema.optionalKey(MaskedAccountNumber),
      recipientAddress: RecipientAddress,
      attachments: Schema.Array(Attachment),
      description: Schema.String,
      invoice: Schema.optionalKey(TransferInvoice),
    },
    /** The bank settled the transfer: the money reached the recipient. */
    TransferSettled: {},
    /**
     * The transfer failed before settlement: the bank sent it back with a return code (e.g. "R01",
     * insufficient funds), or the rail refused to originate it (no return code: `reason` is the rail's
     * words, e.g. Dwolla's ValidationError), or the rail stayed unavailable past the outage limit
     * (`MovementAttempts.ts`, no return code).
     */
    TransferFailed: { ...bankReturn, returnCode: Schema.optionalKey(ReturnCode) },
    /**
     * Part or all of a settled transfer was paid back at once (recorded before refunds moved money: read as
     * a refund requested and completed together; no longer recorded).
     */
    TransferRefunded: refundCompletion,
    /** The payer applied to a provider for reimbursement of the settled transfer and has a document to sign. */
    TransferReimbursementApplied: {
      providerId: ReimbursementProviderId,
      signingUrl: HttpsUrl,
      envelopeId: Schema.optionalKey(Schema.String),
    },
    /** The provider reimbursed the payer for the transfer. */
    TransferReimbursed: { providerId: ReimbursementProviderId },
    /**
     * The money-movement provider accepted to move the transfer's money (`MoneyMovement.originateDebit`,
     * idempotency key = the transfer id) and named the movement `providerReference`: its outcomes are
     * matched back by it. A transfer is originated once.
     */
    TransferOriginated: { providerReference: Schema.String },
    /**
     * The settled transfer came back from the payer's bank with an ACH return code
     * (e.g. "R10", not authorised): the money left the company again. `reason` is the
     * code's description in `ReturnCodes.ts`.
     */
    TransferReturned: bankReturn,
    /**
     * A refund of part or all of a settled transfer was asked for: it is Pending until the credit to the
     * payer's account settles (`TransferRefundCompleted`) or fails (`TransferRefundFailed`). Its amount is
     * held: pending and completed refunds together never exceed the transfer's amount.
     */
    TransferRefundRequested: { refundId: RefundId, amount: Money },
    /** The provider accepted to move the refund's money back (`MoneyMovement.originateCredit`, key = the refund id). */
    TransferRefundOriginated: { refundId: RefundId, providerReference: Schema.String },
    /** The refund's credit settled: the money is back with the payer; `isRefunded` once completed refunds reach the amount. */
    TransferRefundCompleted: refundCompletion,
    /**
     * The refund's credit failed (return code and its description, or no code when the rail refused it or
     * stayed unavailable: then `reason` says why): its amount is free to refund again.
     */
    TransferRefundFailed: {
      refundId: RefundId,
      amount: Money,
      returnCode: Schema.optionalKey(ReturnCode),
      reason: Schema.String,
    },
    /**
     * The rail could not be reached to originate the transfer's debit (or, naming `refundId`, a refund's
     * credit): it stays Pending and is tried again at `retryAt` (`MovementAttempts.ts`: the `failures`-th
     * failure in a row since `firstFailedAt`). `reason` is the outage as the adapter described it.
     */
    TransferOriginationDeferred: deferral,
    /**
     * The rail could not be reached to ask where the originated debit (or, naming `refundId`, a refund's
     * credit) stands: it stays Pending and its status is asked again at `retryAt` (`MovementAttempts.ts`,
     * the same backoff as the origination's: the `failures`-th failure in a row since `firstFailedAt`).
     */
    TransferStatusDeferred: deferral,
    /**
     * The rail answered a status question again after an outage (the movement still Pending): the outage
     * is over, its backoff forgotten (a later outage starts its own 72 hours).
     */
    TransferStatusResumed: { refundId: Schema.optionalKey(RefundId) },
  },
)
export type TransferEvent = typeof TransferEvent.Type

/** The transfer event tagged `Tag`. */
export type Of<Tag extends TransferEvent["_tag"]> = Extract<TransferEvent, { readonly _tag: Tag }>

export const {
  TransferInitiated,
  TransferSettled,
  TransferFailed,
  TransferRefunded,
  TransferReimbursementApplied,
  TransferReimbursed,
  TransferOriginated,
  TransferReturned,
  TransferRefundRequested,
  TransferRefundOriginated,
  TransferRefundCompleted,
  TransferRefundFailed,
  TransferOriginationDeferred,
  TransferStatusDeferred,
  TransferStatusResumed,
} = TransferEvent.cases
