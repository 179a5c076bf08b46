/**
 * The PaymentRequest aggregate: a partner asks a payer (a customer identified
 * by a registration id) to pay one of the partner's companies. The payer
 * accepts it with a bank account, which starts a Transfer; the transfer's
 * outcome makes the request Paid or Failed, and a return after settlement
 * makes it Returned; a paid request can be refunded, partially and
 * cumulatively, until Refunded. The partner can cancel it only
 * while it is Pending.
 *
 * Same-day autopay and debit-authorization collection: a Pending request
 * offering autopay (`autoPayLimit`) or a debit authorization (up to the
 * request's `debitCeiling`) is collected by the service itself on its due date with
 * `TryAutoCollection` (the guard `autoCollectionRefusal` decides whether it
 * may be: Accepted exactly like a manual acceptance, or Skipped once with a
 * reason). The payer can also pay in the app with a saved card
 * (`PayWithCard`): the request is Paid at once, without a transfer.
 *
 * An invoice: optional `invoiceNumber` and `lineItems` whose total is the amount.
 *
 * Cross-aggregate rule: the request never reads the Transfer. The application
 * initiates the transfer named in PaymentRequestAccepted, and the pure policy
 * `fromTransferEvent` turns that transfer's events into RecordTransferSettled,
 * RecordTransferFailed and RefundPaymentRequest commands.
 *
 * State machine: packages/domain/docs/PaymentRequest.md.
 */

import { DateTime, type Result } from "effect"
import * as CalendarDate from "../kernel/CalendarDate.ts"
import { type Aggregate, accept, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import {
  AlreadyExists,
  type DomainError,
  IllegalTransition,
  NotFound,
  RuleViolated,
  ValidationFailed,
} from "../kernel/DomainError.ts"
import * as FieldChecks from "../kernel/FieldChecks.ts"
import type {
  BankAccountId,
  CardPaymentId,
  CompanyId,
  PartnerId,
  PaymentRequestId,
  RegistrationId,
  TransferId,
} from "../kernel/Ids.ts"
import * as Metadata from "../kernel/Metadata.ts"
import * as Money from "../kernel/Money.ts"
import * as AuthorizationEvidence from "./AuthorizationEvidence.ts"
import type * as FeeSchedule from "./FeeSchedule.ts"
import {
  type AutoCollectionMethod,
  type AutoCollectionSkipReason,
  type PaymentRequestAccepted,
  type PaymentRequestCreated,
  PaymentRequestEvent,
  type PaymentRequestStatus,
} from "./PaymentRequestEvents.ts"
import type { InvoiceLineItem, RefundId, TransferEvent } from "./TransferEvents.ts"
import * as WhoMayCollect from "./WhoMayCollect.ts"

export type { PaymentRequestStatus } from "./PaymentRequestEvents.ts"

// ---------------------------------------------------------------------------
// Commands

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

/** The payer paid in the app with a saved card, which the card processor charged. */
export interface PayWithCard {
  readonly _tag: "PayWithCard"
  readonly paymentRequestId: PaymentRequestId
  /** Who pays: must be the request's payer. */
  readonly registrationId: RegistrationId
  /** The payer's KYC status (read by the edge): only a Verified payer pays (`WhoMayCollect`). */
  readonly payerKyc: WhoMayCollect.KycStatus
  readonly cardPaymentId: CardPaymentId
  readonly paymentMethodId: string
  readonly brand: string
  readonly last4: string
  readonly processorReference: string
  /** The request that carried the payer's authorization of the charge, recorded as its evidence. */
  readonly client?: AuthorizationEvidence.ClientContext
  /** When the processor makes the money available to the company (absent: at once). */
  readonly availableAt?: DateTime.Utc | undefined
  /** The partner's card fee schedule in force and what it takes (`PlatformFees.appliedFor`; absent: none). */
  readonly platformFee?: Money.Money
  readonly feeSchedule?: FeeSchedule.AppliedSchedule
  readonly providerCost?: Money.Money
  readonly at: DateTime.Utc
}

/** The partner replaces the request's metadata, whatever its status. */
export interface SetPaymentRequestMetadata {
  readonly _tag: "SetPaymentRequestMetadata"
  readonly paymentRequestId: PaymentRequestId
  /** Who sets it: must be the partner that created the request. */
  readonly partnerId: PartnerId
  readonly metadata: Metadata.Metadata
  readonly at: DateTime.Utc
}

export interface CancelPaymentRequest {
  readonly _tag: "CancelPaymentRequest"
  readonly paymentRequestId: PaymentRequestId
  /** Who cancels: must be the partner that created the request. */
  readonly partnerId: PartnerId
  readonly at: DateTime.Utc
}

export interface RecordTransferSettled {
  readonly _tag: "RecordTransferSettled"
  readonly paymentRequestId: PaymentRequestId
  readonly transferId: TransferId
  readonly at: DateTime.Utc
}

export interface RecordTransferFailed {
  readonly _tag: "RecordTransferFailed"
  readonly paymentRequestId: PaymentRequestId
  readonly transferId: TransferId
  /** Return code of the rail, e.g. "R01" (insufficient funds); absent when the rail refused the transfer. */
  readonly returnCode?: string
  readonly reason: string
  readonly at: DateTime.Utc
}

/** The transfer paying the request was returned after settlement (the Transfer's TransferReturned). */
export interface RecordTransferReturned {
  readonly _tag: "RecordTransferReturned"
  readonly paymentRequestId: PaymentRequestId
  readonly transferId: TransferId
  readonly returnCode: string
  readonly reason: string
  readonly at: DateTime.Utc
}

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

// ---------------------------------------------------------------------------
// State

/** What was asked, of whom, for whom: fixed at creation. */
export type RequestDetails = Omit<PaymentRequestCreated, "_tag" | "status" | "at" | "debitAuthLimit"> & {
  /** The partner's ceiling for a debit-authorization collection (recorded as the event's `debitAuthLimit`). */
  readonly debitCeiling?: Money.Money
  readonly createdAt: DateTime.Utc
}

/** How the payer accepted. */
export interface Acceptance {
  readonly registrationId: RegistrationId
  readonly bankAccountId: BankAccountId
  readonly accountNumberMasked: string
  readonly debitAuthAccepted: boolean
  readonly transferId: TransferId
  readonly transferDescription: string
  readonly acceptedAt: DateTime.Utc
}

/** The card a request was paid with in the app. */
export interface CardCharge {
  readonly registrationId: RegistrationId
  readonly cardPaymentId: CardPaymentId
  readonly paymentMethodId: string
  readonly brand: string
  readonly last4: string
  readonly processorReference: string
}

export interface Refund {
  readonly refundId: RefundId
  readonly amount: Money.Money
}

export type State =
  | { readonly _tag: "Initial" }
  | {
      readonly _tag: "Pending"
      readonly request: RequestDetails
      /** Set once the service tried to collect it by itself and could not: it does not try again. */
      readonly autoCollectionSkipped?: AutoCollectionSkipReason
    }
  | { readonly _tag: "Cancelled"; readonly request: RequestDetails; readonly cancelledAt: DateTime.Utc }
  | { readonly _tag: "Accepted"; readonly request: RequestDetails; readonly acceptance: Acceptance }
  | {
      readonly _tag: "Paid"
      readonly request: RequestDetails
      readonly acceptance: Acceptance
      readonly paidAt: DateTime.Utc
      readonly refunds: ReadonlyArray<Refund>
      readonly refundedAmount: Money.Money
    }
  | {
      readonly _tag: "Failed"
      readonly request: RequestDetails
      readonly acceptance: Acceptance
      readonly failedAt: DateTime.Utc
      readonly returnCode?: string
      readonly reason: string
    }
  | {
      readonly _tag: "Refunded"
      readonly request: RequestDetails
      readonly acceptance: Acceptance
      readonly paidAt: DateTime.Utc
      readonly refunds: ReadonlyArray<Refund>
      readonly refundedAmount: Money.Money
      readonly refundedAt: DateTime.Utc
    }
  | {
      readonly _tag: "PaidByCard"
      readonly request: RequestDetails
      readonly card: CardCharge
      readonly paidAt: DateTime.Utc
    }
  | {
      readonly _tag: "Returned"
      readonly request: RequestDetails
      readonly acceptance: Acceptance
      readonly paidAt: DateTime.Utc
      readonly refunds: ReadonlyArray<Refund>
      readonly refundedAmount: Money.Money
      readonly returnedAt: DateTime.Utc
      readonly returnCode: string
      readonly reason: string
    }

export const initialState: State = { _tag: "Initial" }

/** The status a client reads, or undefined when the request does not exist. */
export const status = (state: State): PaymentRequestStatus | undefined =>
  state._tag === "Initial" ? undefined : state._tag === "PaidByCard" ? "Paid" : state._tag

// ---------------------------------------------------------------------------
// Auto-collection (autopay, debit authorization)

/** How a request is collected automatically (autopay or debit authorization), or undefined when it is not. */
export const autoCollectionMethodOf = (request: RequestDetails): AutoCollectionMethod | undefined =>
  request.autoPayLimit !== undefined ? "AutoPay" : request.debitCeiling !== undefined ? "DebitAuth" : undefined

/**
 * True when the service should try to collect the request by itself on
 * `today`: Pending, offering autopay or a debit authorization, due on or
 * before `today`, and not tried before.
 */
export const isDueForAutoCollection = (state: State, today: CalendarDate.CalendarDate): boolean =>
  state._tag === "Pending" &&
  state.autoCollectionSkipped === undefined &&
  autoCollectionMethodOf(state.request) !== undefined &&
  CalendarDate.compare(state.request.dueDate, today) <= 0

/**
 * Whether a due request may be collected, the payer's designated account
 * aside (`TryAutoCollection` checks it last): the reason it may not, or
 * undefined when it may. First, who may collect: a Verified company from a
 * Verified payer (`WhoMayCollect`). Autopay: within `autoPayLimit`.
 * Debit authorization: the amount within the request's `debitCeiling` (the
 * partner's), and an Active authorization whose limit (the payer's, same
 * currency) covers it.
 */
export const autoCollectionRefusal = (
  request: RequestDetails,
  command: Pick<TryAutoCollection, "debitAuth" | "parties" | "autoPayRevoked">,
): AutoCollectionSkipReason | undefined => {
  if (WhoMayCollect.companyRefusal(command.parties.companyStatus) !== undefined) return "CompanyNotVerified"
  if (WhoMayCollect.payerRefusal(command.parties.payerKyc) !== undefined) return "PayerNotVerified"
  const within = (limit: Money.Money) => Money.isWithin(request.amount, limit)
  if (request.autoPayLimit !== undefined) {
    if (command.autoPayRevoked === true) return "AutoPayRevoked"
    return within(request.autoPayLimit) ? undefined : "OverAutoPayLimit"
  }
  // Stryker disable next-line ConditionalExpression: equivalent, a request offering neither autopay nor a debit authorization is refused (NOT_AUTOMATIC) before this is asked (the test narrows the type)
  if (request.debitCeiling === undefined) return undefined
  if (!within(request.debitCeiling)) return "OverDebitAuthLimit"
  if (command.debitAuth === undefined || !command.debitAuth.active) return "NoDebitAuthorization"
  return within(command.debitAuth.limit) ? undefined : "OverDebitAuthLimit"
}

/**
 * The debit authorization a payer grants by accepting a request with `acceptDebitAuth: true`: for
 * the request's company, up to the request's ceiling (`debitCeiling`, the partner's offer). The
 * payer's own acceptance only: the service's collection of a debit-authorization request uses the
 * authorization, it grants nothing. Undefined when the acceptance grants nothing.
 */
export const debitAuthGrantOf = (
  request: RequestDetails,
  accepted: PaymentRequestAccepted,
):
  | {
      readonly partnerId: PartnerId
      readonly registrationId: RegistrationId
      readonly companyId: CompanyId
      readonly limit: Money.Money
    }
  | undefined =>
  accepted.debitAuthAccepted && accepted.collectedBy === undefined && request.debitCeiling !== undefined
    ? {
        partnerId: request.partnerId,
        registrationId: accepted.registrationId,
        companyId: request.companyId,
        limit: request.debitCeiling,
      }
    : undefined

/** The total of invoice lines, in minor units. */
export const lineItemsTotal = (lineItems: ReadonlyArray<InvoiceLineItem>): number =>
  lineItems.reduce((total, item) => total + item.quantity * item.unitAmount.minorUnits, 0)

/** Longest invoice number. */
export const maxInvoiceNumberLength = 64
/** Most invoice lines. */
export const maxLineItems = 100
/** Largest quantity of one invoice line. */
export const maxQuantity = 1_000_000

// ---------------------------------------------------------------------------
// Status history (PAYMENT_REQUEST_STATUS_CHANGED)

/** The new status an event moves the request to, or undefined for an event that keeps the status. */
export const statusOf = (event: PaymentRequestEvent): PaymentRequestStatus | undefined =>
  "status" in event ? event.status : undefined

/** One status change, with what the PAYMENT_REQUEST_STATUS_CHANGED webhook's Data needs. */
export interface StatusChange {
  readonly paymentRequestId: PaymentRequestId
  readonly status: PaymentRequestStatus
  /** Known from acceptance on. */
  readonly accountNumberMasked?: string
  readonly timestamp: DateTime.Utc
}

/** The status history of one request, oldest first, derived from its events alone. */
export const statusHistory = (events: Iterable<PaymentRequestEvent>): ReadonlyArray<StatusChange> => {
  const changes: Array<StatusChange> = []
  let accountNumberMasked: string | undefined
  for (const event of events) {
    if (event._tag === "PaymentRequestAccepted") accountNumberMasked = event.accountNumberMasked
    const next = statusOf(event)
    if (next === undefined) continue
    changes.push({
      paymentRequestId: event.paymentRequestId,
      status: next,
      ...(accountNumberMasked === undefined ? {} : { accountNumberMasked }),
      timestamp: event.at,
    })
  }
  return changes
}

// ---------------------------------------------------------------------------
// Policy: the Transfer's outcome, as commands for the PaymentRequest it pays

/**
 * The command a transfer event implies for the payment request it pays
 * (`paymentRequestId` is the transfer's, from TransferInitiated), or undefined
 * when the event concerns only the transfer.
 */
export const fromTransferEvent = (paymentRequestId: PaymentRequestId, event: TransferEvent): Command | undefined => {
  switch (event._tag) {
    case "TransferSettled":
      return { _tag: "RecordTransferSettled", paymentRequestId, transferId: event.transferId, at: event.at }
    case "TransferFailed":
      return {
        _tag: "RecordTransferFailed",
        paymentRequestId,
        transferId: event.transferId,
        ...(event.returnCode === undefined ? {} : { returnCode: event.returnCode }),
        reason: event.reason,
        at: event.at,
      }
    case "TransferReturned":
      return {
        _tag: "RecordTransferReturned",
        paymentRequestId,
        transferId: event.transferId,
        returnCode: event.returnCode,
        reason: event.reason,
        at: event.at,
      }
    case "TransferRefunded":
    case "TransferRefundCompleted":
      return {
        _tag: "RefundPaymentRequest",
        paymentRequestId,
        refundId: event.refundId,
        amount: event.amount,
        at: event.at,
      }
    // Stryker disable StringLiteral,ConditionalExpression: equivalent, an event no case names returns undefined too (the list keeps the switch exhaustive)
    case "TransferInitiated":
    case "TransferOriginated":
    case "TransferRefundRequested":
    case "TransferRefundOriginated":
    case "TransferRefundFailed":
    case "TransferOriginationDeferred":
    case "TransferStatusDeferred":
    case "TransferStatusResumed":
    case "TransferReimbursementApplied":
    case "TransferReimbursed":
      return undefined
  }
}
// Stryker restore StringLiteral,ConditionalExpression

// ---------------------------------------------------------------------------
// Decide

const illegal = (state: State, command: Command, reason: string) =>
  refuse(new IllegalTransition({ entity: "PaymentRequest", state: state._tag, command: command._tag, reason }))

const notFound = refuse(new NotFound({ entity: "PaymentRequest" }))

const validateLimit = (
  issues: FieldChecks.Issues,
  command: CreatePaymentRequest,
  enabled: boolean | undefined,
  limit: Money.Money | undefined,
  enableField: string,
  limitField: string,
): void => {
  if (limit === undefined) {
    if (enabled === true) issues.push({ field: limitField, message: `is required when ${enableField} is true` })
    return
  }
  if (enabled !== true) issues.push({ field: limitField, message: `is only allowed when ${enableField} is true` })
  FieldChecks.positiveMoney(issues, limitField, limit)
  FieldChecks.sameCurrency(issues, limitField, limit, command.amount)
}

const validateInvoice = (issues: FieldChecks.Issues, command: CreatePaymentRequest): void => {
  const number = command.invoiceNumber
  if (number !== undefined) {
    if (number === "" || number.length > maxInvoiceNumberLength || number !== number.trim())
      issues.push({
        field: "invoiceNumber",
        message: `must be 1 to ${maxInvoiceNumberLength} characters, without leading or trailing blanks`,
      })
  }
  const lines = command.lineItems
  if (lines === undefined) return
  if (lines.length === 0 || lines.length > maxLineItems) {
    issues.push({ field: "lineItems", message: `must have 1 to ${maxLineItems} lines` })
    return
  }
  let valid = true
  lines.forEach((line, index) => {
    const field = `lineItems[${index}]`
    const before = issues.length
    FieldChecks.requiredText(issues, `${field}.description`, line.description, FieldChecks.maxNameLength)
    if (!Number.isInteger(line.quantity) || line.quantity < 1 || line.quantity > maxQuantity)
      issues.push({ field: `${field}.quantity`, message: `must be a whole number from 1 to ${maxQuantity}` })
    FieldChecks.positiveMoney(issues, `${field}.unitAmount`, line.unitAmount)
    FieldChecks.sameCurrency(issues, `${field}.unitAmount`, line.unitAmount, command.amount)
    if (issues.length > before) valid = false
  })
  if (!valid) return
  const total = lineItemsTotal(lines)
  if (total !== command.amount.minorUnits)
    issues.push({
      field: "lineItems",
      message: `add up to ${Money.toDecimalString({ minorUnits: total, currency: command.amount.currency })} ${command.amount.currency}, not the amount ${Money.toDecimalString(command.amount)}`,
    })
}

/**
 * The field validation of CreatePaymentRequest (every bad field named), as the decider applies it; the
 * use case applies it first too, so that no rule checked before the decision (the payer limit) hides a
 * bad field.
 */
export const validateCreate = (command: CreatePaymentRequest): Result.Result<never, ValidationFailed> | undefined => {
  const issues: FieldChecks.Issues = []
  FieldChecks.positiveMoney(issues, "amount", command.amount)
  FieldChecks.requiredText(issues, "description", command.description, FieldChecks.maxTextLength)
  const createdOn = CalendarDate.fromEpochMillis(DateTime.toEpochMillis(command.at))
  if (CalendarDate.compare(command.dueDate, createdOn) < 0)
    issues.push({ field: "dueDate", message: `must not be before the creation date ${createdOn}` })
  if (command.attachmentUrl !== undefined)
    FieldChecks.attachmentUrl(issues, "attachmentUrl", command.attachmentUrl, command.sandboxAttachmentUrl === true)
  if (command.enableAutoPay === true && command.enableDebitAuth === true) {
    const message = "autopay and a debit authorization cannot both be enabled: choose one"
    issues.push({ field: "enableAutoPay", message }, { field: "enableDebitAuth", message })
  }
  validateLimit(issues, command, command.enableAutoPay, command.autoPayLimit, "enableAutoPay", "autoPayLimit")
  validateLimit(issues, command, command.enableDebitAuth, command.debitCeiling, "enableDebitAuth", "debitAuthLimit")
  validateInvoice(issues, command)
  if (command.metadata !== undefined) issues.push(...Metadata.issues("metadata", command.metadata))
  return FieldChecks.refusal(issues)
}

const create = (command: CreatePaymentRequest, state: State): Decision<Event> => {
  if (state._tag !== "Initial") return refuse(new AlreadyExists({ entity: "PaymentRequest" }))
  const invalid = validateCreate(command)
  if (invalid) return invalid
  const unverified = WhoMayCollect.companyRefusal(command.companyStatus)
  if (unverified) return refuse(unverified)
  return accept({
    _tag: "PaymentRequestCreated",
    paymentRequestId: command.paymentRequestId,
    partnerId: command.partnerId,
    companyId: command.companyId,
    payerRegistrationId: command.payerRegistrationId,
    amount: command.amount,
    description: command.description,
    dueDate: command.dueDate,
    ...(command.attachmentUrl === undefined ? {} : { attachmentUrl: command.attachmentUrl }),
    ...(command.autoPayLimit === undefined ? {} : { autoPayLimit: command.autoPayLimit }),
    ...(command.debitCeiling === undefined ? {} : { debitAuthLimit: command.debitCeiling }),
    ...(command.invoiceNumber === undefined ? {} : { invoiceNumber: command.invoiceNumber }),
    ...(command.lineItems === undefined ? {} : { lineItems: command.lineItems }),
    ...(command.metadata === undefined ? {} : { metadata: command.metadata }),
    status: "Pending",
    at: command.at,
  })
}

const acceptRequest = (command: AcceptPaymentRequest, state: State): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  if (command.registrationId !== state.request.payerRegistrationId)
    return refuse(new RuleViolated({ code: "NOT_THE_PAYER", reason: "only the payer can accept this payment request" }))
  const issues: FieldChecks.Issues = []
  FieldChecks.maskedAccountNumber(issues, "accountNumberMasked", command.accountNumberMasked)
  FieldChecks.optionalText(issues, "transferDescription", command.transferDescription, FieldChecks.maxTextLength)
  if (command.acceptDebitAuth && state.request.debitCeiling === undefined)
    issues.push({ field: "acceptDebitAuth", message: "this payment request does not offer a debit authorization" })
  const invalid = FieldChecks.refusal(issues)
  if (invalid) return invalid
  switch (state._tag) {
    case "Pending": {
      const unverified = WhoMayCollect.payerRefusal(command.payerKyc)
      if (unverified) return refuse(unverified)
      return accept({
        _tag: "PaymentRequestAccepted",
        paymentRequestId: state.request.paymentRequestId,
        registrationId: command.registrationId,
        bankAccountId: command.bankAccountId,
        accountNumberMasked: command.accountNumberMasked,
        debitAuthAccepted: command.acceptDebitAuth,
        transferId: command.transferId,
        transferDescription:
          command.transferDescription.trim() === "" ? state.request.description : command.transferDescription,
        ...(command.client === undefined
          ? {}
          : { authorization: AuthorizationEvidence.evidenceOf("PaymentAcceptance", command.client, command.at) }),
        status: "Accepted",
        at: command.at,
      })
    }
    case "Cancelled":
      return illegal(state, command, "a cancelled payment request cannot be accepted")
    case "PaidByCard":
      return illegal(state, command, "the payment request was already paid by card")
    case "Accepted":
    case "Paid":
    case "Failed":
    case "Refunded":
    case "Returned":
      return state.acceptance.bankAccountId === command.bankAccountId
        ? nothing
        : illegal(state, command, "the payment request was already accepted with another bank account")
  }
}

const cancel = (command: CancelPaymentRequest, state: State): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  if (command.partnerId !== state.request.partnerId)
    return refuse(
      new RuleViolated({ code: "NOT_THE_PARTNER", reason: "only the partner that created the request can cancel it" }),
    )
  switch (state._tag) {
    case "Pending":
      return accept({
        _tag: "PaymentRequestCancelled",
        paymentRequestId: state.request.paymentRequestId,
        status: "Cancelled",
        at: command.at,
      })
    case "Cancelled":
      return nothing
    case "Accepted":
    case "Paid":
    case "Failed":
    case "Refunded":
    case "Returned":
      return illegal(state, command, "a payment request cannot be cancelled after it was accepted")
    case "PaidByCard":
      return illegal(state, command, "a payment request cannot be cancelled after it was paid")
  }
}

const transferMismatch = refuse(
  new RuleViolated({ code: "TRANSFER_MISMATCH", reason: "this transfer does not pay this payment request" }),
)

/** A request some transfer pays: accepted, and maybe already settled, failed or refunded. */
type Paying = Extract<State, { readonly _tag: "Accepted" | "Paid" | "Failed" | "Refunded" | "Returned" }>

/** The request a transfer's outcome is about, or the refusal: it must have been accepted, and paid by this transfer. */
const payingRequest = (
  command: RecordTransferSettled | RecordTransferFailed | RecordTransferReturned,
  state: Exclude<State, { readonly _tag: "Initial" }>,
): { readonly refusal: Decision<Event> } | { readonly paying: Paying } => {
  if (state._tag === "Pending" || state._tag === "Cancelled") {
    return { refusal: illegal(state, command, "the payment request was not accepted, so no transfer pays it") }
  }
  if (state._tag === "PaidByCard") return { refusal: transferMismatch }
  if (command.transferId !== state.acceptance.transferId) return { refusal: transferMismatch }
  return { paying: state }
}

/** A failure or return of the paying transfer: its return code and reason checked, then the request it pays. */
const payingWithReturnCode = (
  command: RecordTransferFailed | RecordTransferReturned,
  state: State,
): { readonly refusal: Decision<Event> } | { readonly paying: Paying } => {
  if (state._tag === "Initial") return { refusal: notFound }
  const issues: FieldChecks.Issues = []
  if (command.returnCode !== undefined) FieldChecks.returnCode(issues, "returnCode", command.returnCode)
  FieldChecks.requiredText(issues, "reason", command.reason, FieldChecks.maxTextLength)
  const invalid = FieldChecks.refusal(issues)
  return invalid ? { refusal: invalid } : payingRequest(command, state)
}

const recordSettled = (command: RecordTransferSettled, current: State): Decision<Event> => {
  if (current._tag === "Initial") return notFound
  const checked = payingRequest(command, current)
  if ("refusal" in checked) return checked.refusal
  const state = checked.paying
  switch (state._tag) {
    case "Accepted":
      return accept({
        _tag: "PaymentRequestPaid",
        paymentRequestId: state.request.paymentRequestId,
        transferId: command.transferId,
        status: "Paid",
        at: command.at,
      })
    case "Paid":
    case "Refunded":
    case "Returned":
      return nothing
    case "Failed":
      return illegal(state, command, "the transfer already failed")
  }
}

/** The transfer that paid the request came back after settlement: Paid or Refunded becomes Returned. */
const recordReturned = (command: RecordTransferReturned, state: State): Decision<Event> => {
  const checked = payingWithReturnCode(command, state)
  if ("refusal" in checked) return checked.refusal
  const paying = checked.paying
  switch (paying._tag) {
    case "Paid":
    case "Refunded":
      return accept({
        _tag: "PaymentRequestReturned",
        paymentRequestId: paying.request.paymentRequestId,
        transferId: command.transferId,
        returnCode: command.returnCode,
        reason: command.reason,
        status: "Returned",
        at: command.at,
      })
    case "Returned":
      return nothing
    case "Accepted":
      return illegal(paying, command, "the transfer has not settled yet")
    case "Failed":
      return illegal(paying, command, "the transfer already failed")
  }
}

const recordFailed = (command: RecordTransferFailed, state: State): Decision<Event> => {
  const checked = payingWithReturnCode(command, state)
  if ("refusal" in checked) return checked.refusal
  const paying = checked.paying
  switch (paying._tag) {
    case "Accepted":
      return accept({
        _tag: "PaymentRequestFailed",
        paymentRequestId: paying.request.paymentRequestId,
        transferId: command.transferId,
        ...(command.returnCode === undefined ? {} : { returnCode: command.returnCode }),
        reason: command.reason,
        status: "Failed",
        at: command.at,
      })
    case "Failed":
      return nothing
    case "Paid":
    case "Refunded":
    case "Returned":
      return illegal(paying, command, "the transfer already settled; pay money back with a refund")
  }
}

const refund = (command: RefundPaymentRequest, state: State): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  if (command.amount !== undefined) {
    const issues: FieldChecks.Issues = []
    FieldChecks.positiveMoney(issues, "amount", command.amount)
    FieldChecks.sameCurrency(issues, "amount", command.amount, state.request.amount)
    const invalid = FieldChecks.refusal(issues)
    if (invalid) return invalid
  }
  if (state._tag === "PaidByCard")
    return illegal(state, command, "a card payment is refunded through the card processor, not with a transfer refund")
  // A refund already under way when the transfer came back completes on the transfer alone.
  if (state._tag === "Returned") return nothing
  if (state._tag !== "Paid" && state._tag !== "Refunded")
    return illegal(state, command, "only a paid payment request can be refunded")
  const earlier = state.refunds.find((r) => r.refundId === command.refundId)
  if (earlier) {
    return command.amount === undefined || command.amount.minorUnits === earlier.amount.minorUnits
      ? nothing
      : refuse(
          new RuleViolated({ code: "REFUND_ID_REUSED", reason: "this refund id was already used for another amount" }),
        )
  }
  if (state._tag === "Refunded") return illegal(state, command, "the payment request is already fully refunded")
  const paid = state.request.amount
  const amount = command.amount ?? {
    minorUnits: paid.minorUnits - state.refundedAmount.minorUnits,
    currency: paid.currency,
  }
  const total = state.refundedAmount.minorUnits + amount.minorUnits
  if (total > paid.minorUnits)
    return refuse(
      new RuleViolated({
        code: "REFUND_EXCEEDS_PAYMENT",
        reason: `refunds would total ${total} minor units, more than the ${paid.minorUnits} paid`,
      }),
    )
  const common = {
    paymentRequestId: state.request.paymentRequestId,
    refundId: command.refundId,
    amount,
    totalRefunded: { minorUnits: total, currency: paid.currency },
    at: command.at,
  }
  return total === paid.minorUnits
    ? accept({ _tag: "PaymentRequestRefunded", ...common, status: "Refunded" })
    : accept({ _tag: "PaymentRequestPartiallyRefunded", ...common })
}

const tryAutoCollection = (command: TryAutoCollection, state: State): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  // At most once: a request that is no longer Pending (collected, paid, cancelled) or was tried already is left alone.
  if (state._tag !== "Pending" || state.autoCollectionSkipped !== undefined) return nothing
  const request = state.request
  const collection = autoCollectionMethodOf(request)
  if (collection === undefined)
    return refuse(
      new RuleViolated({
        code: "NOT_AUTOMATIC",
        reason: "the payment request offers neither autopay nor a debit authorization",
      }),
    )
  if (!isDueForAutoCollection(state, command.today))
    return refuse(new RuleViolated({ code: "NOT_DUE", reason: `the payment request is due on ${request.dueDate}` }))
  const refusal = autoCollectionRefusal(request, command)
  if (refusal !== undefined || command.account === undefined)
    return accept({
      _tag: "PaymentRequestAutoCollectionSkipped",
      paymentRequestId: request.paymentRequestId,
      payerRegistrationId: request.payerRegistrationId,
      collection,
      reason: refusal ?? "NoDesignatedAccount",
      dueDate: request.dueDate,
      at: command.at,
    })
  const issues: FieldChecks.Issues = []
  FieldChecks.maskedAccountNumber(issues, "accountNumberMasked", command.account.accountNumberMasked)
  const invalid = FieldChecks.refusal(issues)
  if (invalid) return invalid
  return accept({
    _tag: "PaymentRequestAccepted",
    paymentRequestId: request.paymentRequestId,
    registrationId: request.payerRegistrationId,
    bankAccountId: command.account.bankAccountId,
    accountNumberMasked: command.account.accountNumberMasked,
    debitAuthAccepted: collection === "DebitAuth",
    transferId: command.transferId,
    transferDescription: request.description,
    collectedBy: collection,
    ...(collection === "AutoPay" && command.autopayAuthorization !== undefined
      ? { authorization: command.autopayAuthorization }
      : {}),
    status: "Accepted",
    at: command.at,
  })
}

const payWithCard = (command: PayWithCard, state: State): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  if (command.registrationId !== state.request.payerRegistrationId)
    return refuse(new RuleViolated({ code: "NOT_THE_PAYER", reason: "only the payer can pay this payment request" }))
  switch (state._tag) {
    case "Pending": {
      const unverified = WhoMayCollect.payerRefusal(command.payerKyc)
      if (unverified) return refuse(unverified)
      return accept({
        _tag: "PaymentRequestPaidByCard",
        paymentRequestId: state.request.paymentRequestId,
        registrationId: command.registrationId,
        cardPaymentId: command.cardPaymentId,
        paymentMethodId: command.paymentMethodId,
        brand: command.brand,
        last4: command.last4,
        processorReference: command.processorReference,
        ...(command.availableAt === undefined ? {} : { availableAt: command.availableAt }),
        ...(command.platformFee === undefined || command.platformFee.minorUnits === 0
          ? {}
          : {
              platformFee: command.platformFee,
              ...(command.feeSchedule === undefined ? {} : { feeSchedule: command.feeSchedule }),
            }),
        ...(command.providerCost === undefined ? {} : { providerCost: command.providerCost }),
        ...(command.client === undefined
          ? {}
          : { authorization: AuthorizationEvidence.evidenceOf("CardPayment", command.client, command.at) }),
        status: "Paid",
        at: command.at,
      })
    }
    case "PaidByCard":
      return state.card.paymentMethodId === command.paymentMethodId
        ? nothing
        : illegal(state, command, "the payment request was already paid by card")
    case "Cancelled":
      return illegal(state, command, "a cancelled payment request cannot be paid")
    case "Accepted":
    case "Paid":
    case "Failed":
    case "Refunded":
    case "Returned":
      return illegal(state, command, "the payment request was already accepted with a bank account")
  }
}

export const decide = (command: Command, state: State): Decision<Event> => {
  switch (command._tag) {
    case "CreatePaymentRequest":
      return create(command, state)
    case "AcceptPaymentRequest":
      return acceptRequest(command, state)
    case "CancelPaymentRequest":
      return cancel(command, state)
    case "RecordTransferSettled":
      return recordSettled(command, state)
    case "RecordTransferFailed":
      return recordFailed(command, state)
    case "RecordTransferReturned":
      return recordReturned(command, state)
    case "RefundPaymentRequest":
      return refund(command, state)
    case "TryAutoCollection":
      return tryAutoCollection(command, state)
    case "PayWithCard":
      return payWithCard(command, state)
    case "SetPaymentRequestMetadata":
      return setMetadata(command, state)
  }
}

/** Metadata is the partner's own data: replaced whole, in any status; the same metadata again changes nothing. */
const setMetadata = (command: SetPaymentRequestMetadata, state: State): Decision<Event> => {
  if (state._tag === "Initial" || command.partnerId !== state.request.partnerId) return notFound
  const issues = Metadata.issues("metadata", command.metadata)
  if (issues.length > 0) return refuse(new ValidationFailed({ issues: [...issues] }))
  if (Metadata.equals(state.request.metadata ?? Metadata.empty, command.metadata)) return nothing
  return accept({
    _tag: "PaymentRequestMetadataSet",
    paymentRequestId: state.request.paymentRequestId,
    metadata: command.metadata,
    at: command.at,
  })
}

// ---------------------------------------------------------------------------
// Evolve (total: an event that does not fit the state leaves it unchanged)

export const evolve = (state: State, event: Event): State => {
  switch (event._tag) {
    case "PaymentRequestCreated": {
      if (state._tag !== "Initial") return state
      const { _tag, status, at, debitAuthLimit, ...request } = event
      return {
        _tag: "Pending",
        request: {
          ...request,
          // Stryker disable next-line ConditionalExpression: equivalent, a debitCeiling key holding undefined reads as no ceiling everywhere (every reader tests !== undefined)
          ...(debitAuthLimit === undefined ? {} : { debitCeiling: debitAuthLimit }),
          createdAt: at,
        },
      }
    }
    case "PaymentRequestAccepted":
      return state._tag === "Pending"
        ? {
            _tag: "Accepted",
            request: state.request,
            acceptance: {
              registrationId: event.registrationId,
              bankAccountId: event.bankAccountId,
              accountNumberMasked: event.accountNumberMasked,
              debitAuthAccepted: event.debitAuthAccepted,
              transferId: event.transferId,
              transferDescription: event.transferDescription,
              acceptedAt: event.at,
            },
          }
        : state
    case "PaymentRequestCancelled":
      return state._tag === "Pending" ? { _tag: "Cancelled", request: state.request, cancelledAt: event.at } : state
    case "PaymentRequestPaid":
      return state._tag === "Accepted"
        ? {
            _tag: "Paid",
            request: state.request,
            acceptance: state.acceptance,
            paidAt: event.at,
            refunds: [],
            refundedAmount: { minorUnits: 0, currency: state.request.amount.currency },
          }
        : state
    case "PaymentRequestFailed":
      return state._tag === "Accepted"
        ? {
            _tag: "Failed",
            request: state.request,
            acceptance: state.acceptance,
            failedAt: event.at,
            ...(event.returnCode === undefined ? {} : { returnCode: event.returnCode }),
            reason: event.reason,
          }
        : state
    case "PaymentRequestPartiallyRefunded":
      return state._tag === "Paid"
        ? {
            ...state,
            refunds: [...state.refunds, { refundId: event.refundId, amount: event.amount }],
            refundedAmount: event.totalRefunded,
          }
        : state
    case "PaymentRequestRefunded":
      return state._tag === "Paid"
        ? {
            _tag: "Refunded",
            request: state.request,
            acceptance: state.acceptance,
            paidAt: state.paidAt,
            refunds: [...state.refunds, { refundId: event.refundId, amount: event.amount }],
            refundedAmount: event.totalRefunded,
            refundedAt: event.at,
          }
        : state
    case "PaymentRequestReturned":
      return state._tag === "Paid" || state._tag === "Refunded"
        ? {
            _tag: "Returned",
            request: state.request,
            acceptance: state.acceptance,
            paidAt: state.paidAt,
            refunds: state.refunds,
            refundedAmount: state.refundedAmount,
            returnedAt: event.at,
            returnCode: event.returnCode,
            reason: event.reason,
          }
        : state
    case "PaymentRequestAutoCollectionSkipped":
      return state._tag === "Pending" ? { ...state, autoCollectionSkipped: event.reason } : state
    case "PaymentRequestMetadataSet":
      return state._tag === "Initial" ? state : { ...state, request: { ...state.request, metadata: event.metadata } }
    case "PaymentRequestPaidByCard":
      return state._tag === "Pending"
        ? {
            _tag: "PaidByCard",
            request: state.request,
            card: {
              registrationId: event.registrationId,
              cardPaymentId: event.cardPaymentId,
              paymentMethodId: event.paymentMethodId,
              brand: event.brand,
              last4: event.last4,
              processorReference: event.processorReference,
            },
            paidAt: event.at,
          }
        : state
  }
}

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "PaymentRequest",
  initialState,
  decide,
  evolve,
  events: PaymentRequestEvent,
  eventVersion: () => 1,
}
