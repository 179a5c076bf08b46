/**
 * The commands of the PaymentRequest aggregate (`PaymentRequest.ts`): what a
 * partner, a payer, the scheduler and the Transfer's outcome ask of a request.
 */
import type { DateTime } from "effect"
import type * as CalendarDate from "../kernel/CalendarDate.ts"
import type { CommandFor } from "../kernel/Decider.ts"
import type {
  BankAccountId,
  CompanyId,
  PartnerId,
  PaymentRequestId,
  RegistrationId,
  TransferId,
} from "../kernel/Ids.ts"
import type * as Metadata from "../kernel/Metadata.ts"
import type * as Money from "../kernel/Money.ts"
import type * as AuthorizationEvidence from "./AuthorizationEvidence.ts"
import type * as FeeSchedule from "./FeeSchedule.ts"
import type { CardCharge, Of, PaymentRequestEvent } from "./PaymentRequestEvents.ts"
import type { InvoiceLineItem, RefundId } from "./TransferEvents.ts"
import type * as WhoMayCollect from "./WhoMayCollect.ts"

export interface CreatePaymentRequest {
  readonly _tag: "CreatePaymentRequest"
  readonly paymentRequestId: PaymentRequestId
  readonly partnerId: PartnerId
  /** Resolved by the edge when the partner gave a CompanyReferenceId instead. */
  readonly companyId: CompanyId
  /** The company's KYB status (read by the edge): only a Verified company collects (`WhoMayCollect`). */
  readonly companyStatus: WhoMayCollect.CompanyStatus
  readonly payerRegistrationId: RegistrationId
  readonly amount: Money.Money
  readonly description: string
  /** Not before the (UTC) date of `at`. */
  readonly dueDate: CalendarDate.CalendarDate
  /** https URL of a document the service downloads and stores with the request. */
  readonly attachmentUrl?: string
  /** Sandbox: `attachmentUrl` may also be http and name a local host (`Attachments.SandboxUrls`). */
  readonly sandboxAttachmentUrl?: boolean
  readonly enableAutoPay?: boolean
  readonly autoPayLimit?: Money.Money
  readonly enableDebitAuth?: boolean
  /**
   * The most a debit authorization may collect for this request, set by the partner (wire:
   * `debitAuthLimit`). Not the authorization's own limit, which the payer sets (`DebitAuth`).
   */
  readonly debitCeiling?: Money.Money
  /** Invoice number: 1 to 64 characters, no surrounding blanks. */
  readonly invoiceNumber?: string
  /** Invoice lines (1 to 100), each positive, in the amount's currency, adding up to the amount exactly. */
  readonly lineItems?: ReadonlyArray<InvoiceLineItem>
  /** The partner's metadata (`Metadata` rules). */
  readonly metadata?: Metadata.Metadata
  readonly at: DateTime.Utc
}

export interface AcceptPaymentRequest {
  readonly _tag: "AcceptPaymentRequest"
  readonly paymentRequestId: PaymentRequestId
  /** Who accepts: must be the request's payer. */
  readonly registrationId: RegistrationId
  /** The payer's KYC status (read by the edge): only a Verified payer accepts (`WhoMayCollect`). */
  readonly payerKyc: WhoMayCollect.KycStatus
  readonly bankAccountId: BankAccountId
  /** The linked account's number, masked by the edge ("****6789"). */
  readonly accountNumberMasked: string
  /** True only when the request offered a debit authorization. */
  readonly acceptDebitAuth: boolean
  /** Description of the transfer; when blank the request's description is used. */
  readonly transferDescription: string
  /** New id from the edge for the transfer that pays this request. */
  readonly transferId: TransferId
  /** The request that carried the acceptance (address and user agent), recorded as the authorization's evidence. */
  readonly client?: AuthorizationEvidence.ClientContext
  readonly at: DateTime.Utc
}

/**
 * The service collects a due autopay / debit-authorization request by itself
 * (the scheduler, on or after the due date). The edge gives what the decision
 * needs but the request does not hold: the payer's designated account and,
 * for a debit authorization, the payer's authorization for the company.
 */
export interface TryAutoCollection {
  readonly _tag: "TryAutoCollection"
  readonly paymentRequestId: PaymentRequestId
  /** The (UTC) day of the collection; the due date must not be after it. */
  readonly today: CalendarDate.CalendarDate
  /** The payer's designated account (masked by the edge), or undefined when the payer has none usable. */
  readonly account?: { readonly bankAccountId: BankAccountId; readonly accountNumberMasked: string }
  /** The payer's debit authorization for the request's company, if any (only read for a debit-authorization request). */
  readonly debitAuth?: { readonly active: boolean; readonly limit: Money.Money }
  /** True when an unauthorized return turned the payer's autopay off for the request's company (`Customer.autoPayAllowedFor`). */
  readonly autoPayRevoked?: boolean
  /**
   * The evidence of the payer's autopay designation of `account`, if recorded: an autopay collection
   * carries it as its acceptance's authorization (the payer authorized this debit by designating it).
   */
  readonly autopayAuthorization?: AuthorizationEvidence.AuthorizationEvidence
  /** Both sides' verification today (read by the edge): money moves only between verified parties. */
  readonly parties: WhoMayCollect.Parties
  /** New id from the edge for the transfer, used only when the request is collected. */
  readonly transferId: TransferId
  readonly at: DateTime.Utc
}

/** The payer (`registrationId`, who must be the request's) paid in the app with a saved card, which the card processor charged. */
export interface PayWithCard extends CardCharge {
  readonly _tag: "PayWithCard"
  readonly paymentRequestId: PaymentRequestId
  /** The payer's KYC status (read by the edge): only a Verified payer pays (`WhoMayCollect`). */
  readonly payerKyc: WhoMayCollect.KycStatus
  /** The request that carried the payer's authorization of the charge, recorded as its evidence. */
  readonly client?: AuthorizationEvidence.ClientContext
  /** The evidence recorded when the payer paid (a payment completed after 3-D Secure; `client` absent). */
  readonly authorization?: AuthorizationEvidence.AuthorizationEvidence
  /** When the processor makes the money available to the company (absent: at once). */
  readonly availableAt?: DateTime.Utc | undefined
  /** The partner's card fee schedule in force and what it takes (`PlatformFees.appliedFor`; absent: none). */
  readonly platformFee?: Money.Money
  readonly feeSchedule?: FeeSchedule.AppliedSchedule
  readonly providerCost?: Money.Money
  readonly at: DateTime.Utc
}

/** The partner replaces the request's metadata, whatever its status. */
export interface SetPaymentRequestMetadata
  extends CommandFor<"SetPaymentRequestMetadata", Of<"PaymentRequestMetadataSet">> {
  /** Who sets it: must be the partner that created the request. */
  readonly partnerId: PartnerId
}

export interface CancelPaymentRequest {
  readonly _tag: "CancelPaymentRequest"
  readonly paymentRequestId: PaymentRequestId
  /** Who cancels: must be the partner that created the request. */
  readonly partnerId: PartnerId
  readonly at: DateTime.Utc
}

/** The transfer paying the request settled (the Transfer's TransferSettled): what `PaymentRequestPaid` records. */
export type RecordTransferSettled = CommandFor<"RecordTransferSettled", Of<"PaymentRequestPaid">>

/**
 * The transfer paying the request failed (the Transfer's TransferFailed: the rail's return code, e.g. "R01",
 * absent when the rail refused it, and the reason): what `PaymentRequestFailed` records.
 */
export type RecordTransferFailed = CommandFor<"RecordTransferFailed", Of<"PaymentRequestFailed">>

/** The transfer paying the request was returned after settlement (the Transfer's TransferReturned). */
export type RecordTransferReturned = CommandFor<"RecordTransferReturned", Of<"PaymentRequestReturned">>

export interface RefundPaymentRequest {
  readonly _tag: "RefundPaymentRequest"
  readonly paymentRequestId: PaymentRequestId
  /** New id from the edge (the same id as the transfer's refund); a repeat changes nothing. */
  readonly refundId: RefundId
  /** Omitted: refund everything not refunded yet. */
  readonly amount?: Money.Money
  readonly at: DateTime.Utc
}

/** The events of this aggregate. */
export type Event = PaymentRequestEvent

export type Command =
  | CreatePaymentRequest
  | AcceptPaymentRequest
  | CancelPaymentRequest
  | RecordTransferSettled
  | RecordTransferFailed
  | RecordTransferReturned
  | RefundPaymentRequest
  | TryAutoCollection
  | PayWithCard
  | SetPaymentRequestMetadata
