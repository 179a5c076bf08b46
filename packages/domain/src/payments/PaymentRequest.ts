/**
 * The PaymentRequest aggregate: a partner asks a payer (a customer identified
 * by a registration id) to pay one of the partner's companies. The payer
 * accepts it with a bank account, which starts a Transfer; the transfer's
 * outcome makes the request Paid or Failed; a paid request can be refunded,
 * partially and cumulatively, until Refunded. The partner can cancel it only
 * while it is Pending.
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
  type ValidationFailed,
} from "../kernel/DomainError.ts"
import * as Check from "../kernel/FieldChecks.ts"
import type {
  BankAccountId,
  CompanyId,
  PartnerId,
  PaymentRequestId,
  RegistrationId,
  TransferId,
} from "../kernel/Ids.ts"
import type * as Money from "../kernel/Money.ts"
import { type PaymentRequestCreated, PaymentRequestEvent, type PaymentRequestStatus } from "./PaymentRequestEvents.ts"
import type { RefundId, TransferEvent } from "./TransferEvents.ts"

export type { PaymentRequestStatus } from "./PaymentRequestEvents.ts"

// ---------------------------------------------------------------------------
// Commands

export interface CreatePaymentRequest {
  readonly _tag: "CreatePaymentRequest"
  readonly paymentRequestId: PaymentRequestId
  readonly partnerId: PartnerId
  /** Resolved by the edge when the partner gave a CompanyReferenceId instead. */
  readonly companyId: CompanyId
  readonly payerRegistrationId: RegistrationId
  readonly amount: Money.Money
  readonly description: string
  /** Not before the (UTC) date of `at`. */
  readonly dueDate: CalendarDate.CalendarDate
  /** https URL of a document the service downloads and stores with the request. */
  readonly attachmentUrl?: string
  readonly enableAutoPay?: boolean
  readonly autoPayLimit?: Money.Money
  readonly enableDebitAuth?: boolean
  readonly debitAuthLimit?: Money.Money
  readonly at: DateTime.Utc
}

export interface AcceptPaymentRequest {
  readonly _tag: "AcceptPaymentRequest"
  readonly paymentRequestId: PaymentRequestId
  /** Who accepts: must be the request's payer. */
  readonly registrationId: RegistrationId
  readonly bankAccountId: BankAccountId
  /** The linked account's number, masked by the edge ("****6789"). */
  readonly accountNumberMasked: string
  /** True only when the request offered a debit authorization. */
  readonly acceptDebitAuth: boolean
  /** Description of the transfer; when blank the request's description is used. */
  readonly transferDescription: string
  /** New id from the edge for the transfer that pays this request. */
  readonly transferId: TransferId
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
  /** Return code of the rail, e.g. "R01" (insufficient funds). */
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
  | RefundPaymentRequest

// ---------------------------------------------------------------------------
// State

/** What was asked, of whom, for whom: fixed at creation. */
export type RequestDetails = Omit<PaymentRequestCreated, "_tag" | "status" | "at"> & {
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

export interface Refund {
  readonly refundId: RefundId
  readonly amount: Money.Money
}

export type State =
  | { readonly _tag: "Initial" }
  | { readonly _tag: "Pending"; readonly request: RequestDetails }
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
      readonly returnCode: string
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

export const initialState: State = { _tag: "Initial" }

/** The status a client reads, or undefined when the request does not exist. */
export const status = (state: State): PaymentRequestStatus | undefined =>
  state._tag === "Initial" ? undefined : state._tag

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
        returnCode: event.returnCode,
        reason: event.reason,
        at: event.at,
      }
    case "TransferRefunded":
      return {
        _tag: "RefundPaymentRequest",
        paymentRequestId,
        refundId: event.refundId,
        amount: event.amount,
        at: event.at,
      }
    case "TransferInitiated":
    case "TransferReimbursementApplied":
    case "TransferReimbursed":
      return undefined
  }
}

// ---------------------------------------------------------------------------
// Decide

const illegal = (state: State, command: Command, reason: string) =>
  refuse(new IllegalTransition({ entity: "PaymentRequest", state: state._tag, command: command._tag, reason }))

const notFound = refuse(new NotFound({ entity: "PaymentRequest" }))

const validateLimit = (
  issues: Check.Issues,
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
  Check.positiveMoney(issues, limitField, limit)
  Check.sameCurrency(issues, limitField, limit, command.amount)
}

const validateCreate = (command: CreatePaymentRequest): Result.Result<never, ValidationFailed> | undefined => {
  const issues: Check.Issues = []
  Check.positiveMoney(issues, "amount", command.amount)
  Check.requiredText(issues, "description", command.description, Check.maxTextLength)
  const createdOn = CalendarDate.fromEpochMillis(DateTime.toEpochMillis(command.at))
  if (CalendarDate.compare(command.dueDate, createdOn) < 0)
    issues.push({ field: "dueDate", message: `must not be before the creation date ${createdOn}` })
  if (command.attachmentUrl !== undefined) Check.httpsUrl(issues, "attachmentUrl", command.attachmentUrl)
  if (command.enableAutoPay === true && command.enableDebitAuth === true) {
    const message = "autopay and a debit authorization cannot both be enabled: choose one"
    issues.push({ field: "enableAutoPay", message }, { field: "enableDebitAuth", message })
  }
  validateLimit(issues, command, command.enableAutoPay, command.autoPayLimit, "enableAutoPay", "autoPayLimit")
  validateLimit(issues, command, command.enableDebitAuth, command.debitAuthLimit, "enableDebitAuth", "debitAuthLimit")
  return Check.refusal(issues)
}

const create = (command: CreatePaymentRequest, state: State): Decision<Event> => {
  if (state._tag !== "Initial") return refuse(new AlreadyExists({ entity: "PaymentRequest" }))
  const invalid = validateCreate(command)
  if (invalid) return invalid
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
    ...(command.debitAuthLimit === undefined ? {} : { debitAuthLimit: command.debitAuthLimit }),
    status: "Pending",
    at: command.at,
  })
}

const acceptRequest = (command: AcceptPaymentRequest, state: State): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  if (command.registrationId !== state.request.payerRegistrationId)
    return refuse(new RuleViolated({ code: "NotThePayer", reason: "only the payer can accept this payment request" }))
  const issues: Check.Issues = []
  Check.maskedAccountNumber(issues, "accountNumberMasked", command.accountNumberMasked)
  Check.optionalText(issues, "transferDescription", command.transferDescription, Check.maxTextLength)
  if (command.acceptDebitAuth && state.request.debitAuthLimit === undefined)
    issues.push({ field: "acceptDebitAuth", message: "this payment request does not offer a debit authorization" })
  const invalid = Check.refusal(issues)
  if (invalid) return invalid
  switch (state._tag) {
    case "Pending":
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
        status: "Accepted",
        at: command.at,
      })
    case "Cancelled":
      return illegal(state, command, "a cancelled payment request cannot be accepted")
    case "Accepted":
    case "Paid":
    case "Failed":
    case "Refunded":
      return state.acceptance.bankAccountId === command.bankAccountId
        ? nothing
        : illegal(state, command, "the payment request was already accepted with another bank account")
  }
}

const cancel = (command: CancelPaymentRequest, state: State): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  if (command.partnerId !== state.request.partnerId)
    return refuse(
      new RuleViolated({ code: "NotThePartner", reason: "only the partner that created the request can cancel it" }),
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
      return illegal(state, command, "a payment request cannot be cancelled after it was accepted")
  }
}

const transferMismatch = refuse(
  new RuleViolated({ code: "TransferMismatch", reason: "this transfer does not pay this payment request" }),
)

/** A request some transfer pays: accepted, and maybe already settled, failed or refunded. */
type Paying = Extract<State, { readonly _tag: "Accepted" | "Paid" | "Failed" | "Refunded" }>

/** The request a transfer's outcome is about, or the refusal: it must have been accepted, and paid by this transfer. */
const payingRequest = (
  command: RecordTransferSettled | RecordTransferFailed,
  state: Exclude<State, { readonly _tag: "Initial" }>,
): { readonly refusal: Decision<Event> } | { readonly paying: Paying } => {
  if (state._tag === "Pending" || state._tag === "Cancelled") {
    return { refusal: illegal(state, command, "the payment request was not accepted, so no transfer pays it") }
  }
  if (command.transferId !== state.acceptance.transferId) return { refusal: transferMismatch }
  return { paying: state }
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
      return nothing
    case "Failed":
      return illegal(state, command, "the transfer already failed")
  }
}

const recordFailed = (command: RecordTransferFailed, state: State): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  const issues: Check.Issues = []
  Check.returnCode(issues, "returnCode", command.returnCode)
  Check.requiredText(issues, "reason", command.reason, Check.maxTextLength)
  const invalid = Check.refusal(issues)
  if (invalid) return invalid
  const checked = payingRequest(command, state)
  if ("refusal" in checked) return checked.refusal
  const paying = checked.paying
  switch (paying._tag) {
    case "Accepted":
      return accept({
        _tag: "PaymentRequestFailed",
        paymentRequestId: state.request.paymentRequestId,
        transferId: command.transferId,
        returnCode: command.returnCode,
        reason: command.reason,
        status: "Failed",
        at: command.at,
      })
    case "Failed":
      return nothing
    case "Paid":
    case "Refunded":
      return illegal(state, command, "the transfer already settled; pay money back with a refund")
  }
}

const refund = (command: RefundPaymentRequest, state: State): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  if (command.amount !== undefined) {
    const issues: Check.Issues = []
    Check.positiveMoney(issues, "amount", command.amount)
    Check.sameCurrency(issues, "amount", command.amount, state.request.amount)
    const invalid = Check.refusal(issues)
    if (invalid) return invalid
  }
  if (state._tag !== "Paid" && state._tag !== "Refunded")
    return illegal(state, command, "only a paid payment request can be refunded")
  const earlier = state.refunds.find((r) => r.refundId === command.refundId)
  if (earlier) {
    return command.amount === undefined || command.amount.minorUnits === earlier.amount.minorUnits
      ? nothing
      : refuse(
          new RuleViolated({ code: "RefundIdReused", reason: "this refund id was already used for another amount" }),
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
        code: "RefundExceedsPayment",
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
    case "RefundPaymentRequest":
      return refund(command, state)
  }
}

// ---------------------------------------------------------------------------
// Evolve (total: an event that does not fit the state leaves it unchanged)

export const evolve = (state: State, event: Event): State => {
  switch (event._tag) {
    case "PaymentRequestCreated": {
      if (state._tag !== "Initial") return state
      const { _tag, status, at, ...request } = event
      return { _tag: "Pending", request: { ...request, createdAt: at } }
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
            returnCode: event.returnCode,
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
