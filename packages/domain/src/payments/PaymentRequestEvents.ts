/**
 * Events of the PaymentRequest aggregate: a partner asks a payer to pay one of
 * the partner's companies. The creation event carries the tenancy (partnerId,
 * companyId) and the payer; later events carry the paymentRequestId and what
 * changed, and the instant `at`. The status an event moves the request to is
 * its tag's, in one table (`PaymentRequestState.statusOf`): events recorded
 * before carry a `status` field too, which decoding ignores. The payloads
 * the state and the views hold (`Acceptance`, `CardCharge`) are declared once
 * here and spread into their events.
 */
import { Schema } from "effect"
import { CalendarDate } from "../kernel/CalendarDate.ts"
import { unionOf } from "../kernel/EventSchema.ts"
import {
  BankAccountId,
  CardPaymentId,
  CompanyId,
  PartnerId,
  PaymentRequestId,
  RegistrationId,
  TransferId,
} from "../kernel/Ids.ts"
import { Metadata } from "../kernel/Metadata.ts"
import { Money } from "../kernel/Money.ts"
import { AuthorizationEvidence } from "./AuthorizationEvidence.ts"
import * as FeeSchedule from "./FeeSchedule.ts"
import { AttachmentUrl, InvoiceLineItem, MaskedAccountNumber, ReturnCode, refundTotal } from "./TransferEvents.ts"

/** The statuses a client reads (webhook Data.Status, payment status). */
export const PaymentRequestStatus = Schema.Literals([
  "Pending",
  "Accepted",
  "Paid",
  "Failed",
  "Cancelled",
  "Refunded",
  "Returned",
])
export type PaymentRequestStatus = typeof PaymentRequestStatus.Type

/**
 * How a Pending request was collected without the payer accepting it by hand:
 * autopay (the payer's designated account, within `autoPayLimit`), or the
 * payer's standing debit authorization for the company.
 */
export const AutoCollectionMethod = Schema.Literals(["AutoPay", "DebitAuth"])
export type AutoCollectionMethod = typeof AutoCollectionMethod.Type

/**
 * Why the service could not collect a due autopay / debit-authorization
 * request by itself (it stays Pending, for the payer to accept; a reminder
 * may be sent):
 * - `OverAutoPayLimit`: the amount is above the request's autoPayLimit;
 * - `OverDebitAuthLimit`: above the payer's debit authorization limit or the request's ceiling (`debitAuthLimit`);
 * - `NoDebitAuthorization`: the payer holds no Active debit authorization for the company;
 * - `NoDesignatedAccount`: the payer has no default account and no earlier acceptance with a still linked account;
 * - `CompanyNotVerified`: the company's KYB is not Verified (`WhoMayCollect.ts`);
 * - `PayerNotVerified`: the payer's KYC is not Verified (`WhoMayCollect.ts`).
 */
export const AutoCollectionSkipReason = Schema.Literals([
  "OverAutoPayLimit",
  "OverDebitAuthLimit",
  "NoDebitAuthorization",
  "NoDesignatedAccount",
  "CompanyNotVerified",
  "PayerNotVerified",
  /** The payer's bank returned a debit to the company as unauthorized: autopay for it is off until designated again. */
  "AutoPayRevoked",
])
export type AutoCollectionSkipReason = typeof AutoCollectionSkipReason.Type

/**
 * How the payer accepted: who, from which bank account (masked), whether the
 * debit authorization the request offered was granted too, and the transfer
 * that pays the request.
 */
export const Acceptance = Schema.Struct({
  registrationId: RegistrationId,
  bankAccountId: BankAccountId,
  accountNumberMasked: MaskedAccountNumber,
  debitAuthAccepted: Schema.Boolean,
  transferId: TransferId,
  transferDescription: Schema.String,
})
export type Acceptance = typeof Acceptance.Type

/** The saved card a request was paid with in the app, and the processor's charge of it. */
export const CardCharge = Schema.Struct({
  registrationId: RegistrationId,
  cardPaymentId: CardPaymentId,
  paymentMethodId: Schema.String,
  brand: Schema.String,
  last4: Schema.String,
  processorReference: Schema.String,
})
export type CardCharge = typeof CardCharge.Type

/**
 * Every event of a payment request, by its tag (the codec of its stream). Each names the request and
 * the instant `at`.
 */
export const PaymentRequestEvent = unionOf(
  { paymentRequestId: PaymentRequestId },
  {
    /**
     * A partner asked a payer to pay one of its companies. `autoPayLimit` is present
     * when autopay was enabled, `debitAuthLimit` when a debit authorization was
     * offered (the request's ceiling, `debitCeiling` in the decider: the recorded
     * name stays, as stored events keep theirs); never both.
     */
    PaymentRequestCreated: {
      partnerId: PartnerId,
      companyId: CompanyId,
      payerRegistrationId: RegistrationId,
      amount: Money,
      description: Schema.String,
      dueDate: CalendarDate,
      attachmentUrl: Schema.optionalKey(AttachmentUrl),
      autoPayLimit: Schema.optionalKey(Money),
      debitAuthLimit: Schema.optionalKey(Money),
      /** The partner's invoice number, when the request is an invoice. */
      invoiceNumber: Schema.optionalKey(Schema.String),
      /** The invoice's lines; they add up to `amount`. */
      lineItems: Schema.optionalKey(Schema.Array(InvoiceLineItem)),
      /** The partner's metadata, when set on create. */
      metadata: Schema.optionalKey(Metadata),
    },
    /**
     * The payer accepted, choosing the bank account to pay from; the transfer
     * `transferId` is to be initiated. `debitAuthAccepted` is true when the payer
     * also granted the debit authorization the request offered.
     */
    PaymentRequestAccepted: {
      ...Acceptance.fields,
      /** Present when the service collected the request by itself (autopay or debit authorization) on its due date. */
      collectedBy: Schema.optionalKey(AutoCollectionMethod),
      /** The payer's authorization (a manual Accept through the interface; absent on older events and automatic collections). */
      authorization: Schema.optionalKey(AuthorizationEvidence),
    },
    /** The partner cancelled the request before the payer accepted it. */
    PaymentRequestCancelled: {},
    /** The transfer paying the request settled. */
    PaymentRequestPaid: { transferId: TransferId },
    /**
     * The transfer paying the request failed (e.g. return code "R01", insufficient funds), or the rail
     * refused it (no return code; `reason` says why).
     */
    PaymentRequestFailed: { transferId: TransferId, returnCode: Schema.optionalKey(ReturnCode), reason: Schema.String },
    /** Part of the paid amount was refunded (its amount and the refunded total); the request stays Paid. Not a status change. */
    PaymentRequestPartiallyRefunded: refundTotal,
    /** A refund brought the refunded total to the paid amount: the request is Refunded. */
    PaymentRequestRefunded: refundTotal,
    /**
     * The service could not collect a due autopay / debit-authorization request
     * by itself; it stays Pending. Recorded once: the service does not try again
     * (the payer can still accept it). Not a status change.
     */
    PaymentRequestAutoCollectionSkipped: {
      payerRegistrationId: RegistrationId,
      collection: AutoCollectionMethod,
      reason: AutoCollectionSkipReason,
      dueDate: CalendarDate,
    },
    /**
     * The payer paid the request in the app with one of their saved cards; the
     * card processor charged it (`processorReference`), so the request is Paid at
     * once (no transfer). The card payment is `cardPaymentId`.
     */
    PaymentRequestPaidByCard: {
      ...CardCharge.fields,
      /**
       * When the card processor makes the money available to the company (its balance transaction's
       * availability date); absent on payments recorded before availability was known: available at once.
       */
      availableAt: Schema.optionalKey(Schema.DateTimeUtcFromString),
      /** The platform's fee of this card payment (the partner's card fee schedule), and the processor's cost. */
      ...FeeSchedule.CollectionFees.fields,
      /**
       * The request's partner and company, for the platform's books, which post `providerCost` against
       * them (`Postings.ts`); present with a provider cost (absent on older payments: nothing posted).
       */
      partnerId: Schema.optionalKey(PartnerId),
      companyId: Schema.optionalKey(CompanyId),
      /** The payer's authorization of the charge (absent on payments recorded before it was). */
      authorization: Schema.optionalKey(AuthorizationEvidence),
    },
    /**
     * The transfer that paid the request came back after settlement with an ACH return code (e.g. "R10",
     * the payer says the debit was not authorised; `reason` is the code's description): the request is
     * Returned, final.
     */
    PaymentRequestReturned: { transferId: TransferId, returnCode: ReturnCode, reason: Schema.String },
    /** The partner replaced the request's metadata (`PUT /Payment/{id}/Metadata`); any status. */
    PaymentRequestMetadataSet: { metadata: Metadata },
  },
)
export type PaymentRequestEvent = typeof PaymentRequestEvent.Type

/** The payment request event tagged `Tag`. */
export type Of<Tag extends PaymentRequestEvent["_tag"]> = Extract<PaymentRequestEvent, { readonly _tag: Tag }>

export const {
  PaymentRequestCreated,
  PaymentRequestAccepted,
  PaymentRequestCancelled,
  PaymentRequestPaid,
  PaymentRequestFailed,
  PaymentRequestPartiallyRefunded,
  PaymentRequestRefunded,
  PaymentRequestAutoCollectionSkipped,
  PaymentRequestPaidByCard,
  PaymentRequestReturned,
  PaymentRequestMetadataSet,
} = PaymentRequestEvent.cases
