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
 * `TransferOutcomePolicy.fromTransferEvent` turns that transfer's events into
 * RecordTransferSettled, RecordTransferFailed and RefundPaymentRequest commands.
 *
 * Beside it: its commands (`PaymentRequestCommands.ts`), its state
 * (`PaymentRequestState.ts`), the validation of a new request
 * (`PaymentRequestValidation.ts`) and the auto-collection rules
 * (`PaymentRequestAutoCollection.ts`).
 *
 * State machine: packages/domain/docs/PaymentRequest.md.
 */

import { type Aggregate, accept, byCommand, byEvent, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import { AlreadyExists, type DomainError, RuleViolated, ValidationFailed } from "../kernel/DomainError.ts"
import * as FieldChecks from "../kernel/FieldChecks.ts"
import * as Metadata from "../kernel/Metadata.ts"
import * as Payload from "../kernel/Payload.ts"
import * as AuthorizationEvidence from "./AuthorizationEvidence.ts"
import {
  autoCollectionMethodOf,
  autoCollectionRefusal,
  isDueForAutoCollection,
} from "./PaymentRequestAutoCollection.ts"
import * as PaymentRequestCardRefunds from "./PaymentRequestCardRefunds.ts"
import type {
  AcceptPaymentRequest,
  CancelPaymentRequest,
  Command,
  CreatePaymentRequest,
  Event,
  PayWithCard,
  RecordTransferFailed,
  RecordTransferReturned,
  RecordTransferSettled,
  RefundPaymentRequest,
  SetPaymentRequestMetadata,
  TryAutoCollection,
} from "./PaymentRequestCommands.ts"
import { Acceptance, CardCharge, PaymentRequestCreated, PaymentRequestEvent } from "./PaymentRequestEvents.ts"
import * as PaymentRequestRefunds from "./PaymentRequestRefunds.ts"
import { illegal, initialState, notFound, type State } from "./PaymentRequestState.ts"
import { validateCreate } from "./PaymentRequestValidation.ts"
import * as WhoMayCollect from "./WhoMayCollect.ts"

export {
  autoCollectionMethodOf,
  autoCollectionRefusal,
  debitAuthGrantOf,
  isDueForAutoCollection,
} from "./PaymentRequestAutoCollection.ts"
export type * from "./PaymentRequestCommands.ts"
export type { PaymentRequestStatus } from "./PaymentRequestEvents.ts"
export { refundCommand } from "./PaymentRequestRefunds.ts"
export type { Acceptance, CardCharge, Refund, RequestDetails, State } from "./PaymentRequestState.ts"
export { initialState, status, statusOf } from "./PaymentRequestState.ts"
export {
  lineItemsTotal,
  maxInvoiceNumberLength,
  maxLineItems,
  maxQuantity,
  validateCreate,
} from "./PaymentRequestValidation.ts"

// ---------------------------------------------------------------------------
// Decide

const create = (command: CreatePaymentRequest, state: State): Decision<Event> => {
  if (state._tag !== "Initial") return refuse(new AlreadyExists({ entity: "PaymentRequest" }))
  const invalid = validateCreate(command)
  if (invalid) return invalid
  const unverified = WhoMayCollect.companyRefusal(command.companyStatus)
  if (unverified) return refuse(unverified)
  // The request's ceiling is recorded under the event's name for it (`debitAuthLimit`).
  const { debitCeiling, ...request } = command
  return accept({
    ...Payload.pick(PaymentRequestCreated, request),
    _tag: "PaymentRequestCreated",
    ...(debitCeiling === undefined ? {} : { debitAuthLimit: debitCeiling }),
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
  // A card refund the processor completed, mirrored (the card payment's CardRefunds decided it).
  if (state._tag === "PaidByCard") return PaymentRequestCardRefunds.refund(command, state)
  // A refund already under way when the transfer came back completes on the transfer alone.
  if (state._tag === "Returned") return nothing
  if (state._tag !== "Paid" && state._tag !== "Refunded")
    return illegal(state, command, "only a paid payment request can be refunded")
  return PaymentRequestRefunds.refund(command, state)
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
        ...Payload.pick(CardCharge, command),
        ...(command.availableAt === undefined ? {} : { availableAt: command.availableAt }),
        ...(command.platformFee === undefined || command.platformFee.minorUnits === 0
          ? {}
          : {
              platformFee: command.platformFee,
              ...(command.feeSchedule === undefined ? {} : { feeSchedule: command.feeSchedule }),
            }),
        ...(command.providerCost === undefined
          ? {}
          : {
              providerCost: command.providerCost,
              partnerId: state.request.partnerId,
              companyId: state.request.companyId,
            }),
        ...(command.client === undefined
          ? command.authorization === undefined
            ? {}
            : { authorization: command.authorization }
          : { authorization: AuthorizationEvidence.evidenceOf("CardPayment", command.client, command.at) }),
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

export const decide: (command: Command, state: State) => Decision<Event> = byCommand<Command, State, Event>({
  CreatePaymentRequest: create,
  AcceptPaymentRequest: acceptRequest,
  CancelPaymentRequest: cancel,
  RecordTransferSettled: recordSettled,
  RecordTransferFailed: recordFailed,
  RecordTransferReturned: recordReturned,
  RefundPaymentRequest: refund,
  TryAutoCollection: tryAutoCollection,
  PayWithCard: payWithCard,
  SetPaymentRequestMetadata: setMetadata,
})

// ---------------------------------------------------------------------------
// Evolve (total: an event that does not fit the state leaves it unchanged)

export const evolve: (state: State, event: Event) => State = byEvent<Event, State>({
  PaymentRequestCreated: (state, event) => {
    if (state._tag !== "Initial") return state
    const { _tag, at, debitAuthLimit, ...request } = event
    return {
      _tag: "Pending",
      request: {
        ...request,
        // Stryker disable next-line ConditionalExpression: equivalent, a debitCeiling key holding undefined reads as no ceiling everywhere (every reader tests !== undefined)
        ...(debitAuthLimit === undefined ? {} : { debitCeiling: debitAuthLimit }),
        createdAt: at,
      },
    }
  },
  PaymentRequestAccepted: (state, event) =>
    state._tag === "Pending"
      ? {
          _tag: "Accepted",
          request: state.request,
          acceptance: { ...Payload.pick(Acceptance, event), acceptedAt: event.at },
        }
      : state,
  PaymentRequestCancelled: (state, event) =>
    state._tag === "Pending" ? { _tag: "Cancelled", request: state.request, cancelledAt: event.at } : state,
  PaymentRequestPaid: (state, event) =>
    state._tag === "Accepted"
      ? {
          _tag: "Paid",
          request: state.request,
          acceptance: state.acceptance,
          paidAt: event.at,
          refunds: [],
          refundedAmount: { minorUnits: 0, currency: state.request.amount.currency },
        }
      : state,
  PaymentRequestFailed: (state, event) =>
    state._tag === "Accepted"
      ? {
          _tag: "Failed",
          request: state.request,
          acceptance: state.acceptance,
          failedAt: event.at,
          ...(event.returnCode === undefined ? {} : { returnCode: event.returnCode }),
          reason: event.reason,
        }
      : state,
  PaymentRequestPartiallyRefunded: (state, event) =>
    state._tag === "PaidByCard"
      ? PaymentRequestCardRefunds.evolve(state, event)
      : state._tag === "Paid"
        ? {
            ...state,
            ...PaymentRequestRefunds.withRefund(state.refunds, event),
          }
        : state,
  PaymentRequestRefunded: (state, event) =>
    state._tag === "PaidByCard"
      ? PaymentRequestCardRefunds.evolve(state, event)
      : state._tag === "Paid"
        ? {
            _tag: "Refunded",
            request: state.request,
            acceptance: state.acceptance,
            paidAt: state.paidAt,
            ...PaymentRequestRefunds.withRefund(state.refunds, event),
            refundedAt: event.at,
          }
        : state,
  PaymentRequestReturned: (state, event) =>
    state._tag === "Paid" || state._tag === "Refunded"
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
      : state,
  PaymentRequestAutoCollectionSkipped: (state, event) =>
    state._tag === "Pending" ? { ...state, autoCollectionSkipped: event.reason } : state,
  PaymentRequestMetadataSet: (state, event) =>
    state._tag === "Initial" ? state : { ...state, request: { ...state.request, metadata: event.metadata } },
  PaymentRequestPaidByCard: (state, event) =>
    state._tag === "Pending"
      ? {
          _tag: "PaidByCard",
          request: state.request,
          card: Payload.pick(CardCharge, event),
          paidAt: event.at,
        }
      : state,
})

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "PaymentRequest",
  initialState,
  decide,
  evolve,
  events: PaymentRequestEvent,
  eventVersion: () => 1,
}
