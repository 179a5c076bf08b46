/**
 * The Transfer aggregate: one bank-to-bank money movement from a payer to a
 * company (GET /Transaction/{transferId}). It starts Pending, the bank settles
 * or fails it, a settled transfer can be refunded (cumulatively, never above
 * its amount) or the payer can apply for its reimbursement by a provider, but
 * not both. Account numbers are only ever held masked (`maskAccountNumber`).
 *
 * State machine: packages/domain/docs/Transfer.md.
 */
import type { DateTime, Result } from "effect"
import { type Aggregate, accept, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import {
  AlreadyExists,
  type DomainError,
  IllegalTransition,
  NotFound,
  RuleViolated,
  type ValidationFailed,
} from "../kernel/DomainError.ts"
import * as FieldChecks from "../kernel/FieldChecks.ts"
import type {
  CompanyId,
  PartnerId,
  PaymentPlanId,
  PaymentRequestId,
  RegistrationId,
  TransferId,
} from "../kernel/Ids.ts"
import type * as Money from "../kernel/Money.ts"
import {
  type Attachment,
  type RecipientAddress,
  type RefundId,
  type ReimbursementProviderId,
  TransferEvent,
  type TransferInitiated,
  type TransferInvoice,
  type TransferStatus,
} from "./TransferEvents.ts"
import * as WhoMayCollect from "./WhoMayCollect.ts"

export type { TransferStatus } from "./TransferEvents.ts"

/**
 * Masks an account number for storage and display: four asterisks and the last
 * four digits ("123456789" -> "****6789"). Non-digits are ignored; a number
 * with fewer than four digits keeps the digits it has. Pure and total.
 */
export const maskAccountNumber = (accountNumber: string): string => `****${accountNumber.replace(/\D/g, "").slice(-4)}`

/** The most attachments one transfer carries. */
export const maxAttachments = 20

// ---------------------------------------------------------------------------
// Commands

export interface InitiateTransfer {
  readonly _tag: "InitiateTransfer"
  readonly transferId: TransferId
  readonly paymentRequestId?: PaymentRequestId
  /** The plan whose instalment `instalmentNumber` this transfer collects (with the payer). */
  readonly paymentPlanId?: PaymentPlanId
  readonly instalmentNumber?: number
  /** The customer whose account pays: the data subject of `senderName` (docs/personal-data.md). */
  readonly payerRegistrationId: RegistrationId
  readonly partnerId: PartnerId
  readonly companyId: CompanyId
  /**
   * The payer's KYC and the company's KYB status at initiation (read by the edge): no transfer
   * leaves an unverified payer or reaches an unverified company (`WhoMayCollect`). Not recorded.
   */
  readonly parties: WhoMayCollect.Parties
  readonly amount: Money.Money
  readonly senderName: string
  readonly recipientName: string
  /** Already masked by the edge with `maskAccountNumber`; a full number is refused. */
  readonly senderAccountMasked: string
  readonly recipientAccountMasked: string
  readonly recipientAddress: RecipientAddress
  readonly attachments: ReadonlyArray<Attachment>
  readonly description: string
  /** The invoice of the payment request the transfer pays (see `TransferInitiated`). */
  readonly invoice?: TransferInvoice
  readonly at: DateTime.Utc
}

export interface SettleTransfer {
  readonly _tag: "SettleTransfer"
  readonly transferId: TransferId
  readonly at: DateTime.Utc
}

export interface FailTransfer {
  readonly _tag: "FailTransfer"
  readonly transferId: TransferId
  /** Return code of the rail, e.g. "R01" (insufficient funds). */
  readonly returnCode: string
  readonly reason: string
  readonly at: DateTime.Utc
}

export interface RefundTransfer {
  readonly _tag: "RefundTransfer"
  readonly transferId: TransferId
  /** New id from the edge; repeating the same refund (same id, same amount) changes nothing. */
  readonly refundId: RefundId
  readonly amount: Money.Money
  readonly at: DateTime.Utc
}

export interface ApplyForReimbursement {
  readonly _tag: "ApplyForReimbursement"
  readonly transferId: TransferId
  readonly providerId: ReimbursementProviderId
  /** Where the payer signs the reimbursement claim (from the provider, via the edge). */
  readonly signingUrl: string
  /** The provider's envelope id of the signing document, when it gives one. */
  readonly envelopeId?: string
  readonly at: DateTime.Utc
}

export interface CompleteReimbursement {
  readonly _tag: "CompleteReimbursement"
  readonly transferId: TransferId
  readonly at: DateTime.Utc
}

/** The events of this aggregate. */
export type Event = TransferEvent

export type Command =
  | InitiateTransfer
  | SettleTransfer
  | FailTransfer
  | RefundTransfer
  | ApplyForReimbursement
  | CompleteReimbursement

// ---------------------------------------------------------------------------
// State

/** What the transfer moves, from whom to whom: fixed at initiation. */
export type TransferDetails = Omit<TransferInitiated, "_tag" | "status" | "at"> & { readonly initiatedAt: DateTime.Utc }

export interface Refund {
  readonly refundId: RefundId
  readonly amount: Money.Money
}

export type Reimbursement =
  | { readonly _tag: "NotApplied" }
  | {
      readonly _tag: "Applied"
      readonly providerId: ReimbursementProviderId
      readonly signingUrl: string
      readonly envelopeId?: string
      readonly appliedAt: DateTime.Utc
    }
  | {
      readonly _tag: "Reimbursed"
      readonly providerId: ReimbursementProviderId
      readonly signingUrl: string
      readonly envelopeId?: string
      readonly appliedAt: DateTime.Utc
      readonly reimbursedAt: DateTime.Utc
    }

export type State =
  | { readonly _tag: "Initial" }
  | { readonly _tag: "Pending"; readonly details: TransferDetails }
  | {
      readonly _tag: "Settled"
      readonly details: TransferDetails
      readonly settledAt: DateTime.Utc
      readonly refunds: ReadonlyArray<Refund>
      readonly refundedAmount: Money.Money
      readonly reimbursement: Reimbursement
    }
  | {
      readonly _tag: "Failed"
      readonly details: TransferDetails
      readonly failedAt: DateTime.Utc
      readonly returnCode: string
      readonly reason: string
    }

export const initialState: State = { _tag: "Initial" }

/** The flags of GET /Transaction/{transferId}, derived from the state (undefined before initiation). */
export interface TransferSummary {
  readonly status: TransferStatus
  readonly isRefunded: boolean
  readonly refundedAmount: Money.Money
  readonly appliedForReimbursement: boolean
  readonly isReimbursed: boolean
}

export const summary = (state: State): TransferSummary | undefined => {
  switch (state._tag) {
    case "Initial":
      return undefined
    case "Pending":
    case "Failed":
      return {
        status: state._tag,
        isRefunded: false,
        refundedAmount: { minorUnits: 0, currency: state.details.amount.currency },
        appliedForReimbursement: false,
        isReimbursed: false,
      }
    case "Settled":
      return {
        status: "Settled",
        isRefunded: state.refundedAmount.minorUnits === state.details.amount.minorUnits,
        refundedAmount: state.refundedAmount,
        appliedForReimbursement: state.reimbursement._tag !== "NotApplied",
        isReimbursed: state.reimbursement._tag === "Reimbursed",
      }
  }
}

// ---------------------------------------------------------------------------
// Decide

const illegal = (state: State, command: Command, reason: string) =>
  refuse(new IllegalTransition({ entity: "Transfer", state: state._tag, command: command._tag, reason }))

const notFound = refuse(new NotFound({ entity: "Transfer" }))

const validateInitiate = (command: InitiateTransfer): Result.Result<never, ValidationFailed> | undefined => {
  const issues: FieldChecks.Issues = []
  FieldChecks.positiveMoney(issues, "amount", command.amount)
  FieldChecks.requiredText(issues, "senderName", command.senderName, FieldChecks.maxNameLength)
  FieldChecks.requiredText(issues, "recipientName", command.recipientName, FieldChecks.maxNameLength)
  FieldChecks.maskedAccountNumber(issues, "senderAccount", command.senderAccountMasked)
  FieldChecks.maskedAccountNumber(issues, "recipientAccount", command.recipientAccountMasked)
  const address = command.recipientAddress
  FieldChecks.requiredText(
    issues,
    "recipientAddress.streetNumberAndName",
    address.streetNumberAndName,
    FieldChecks.maxNameLength,
  )
  FieldChecks.optionalText(
    issues,
    "recipientAddress.apartmentNumber",
    address.apartmentNumber,
    FieldChecks.maxNameLength,
  )
  FieldChecks.requiredText(issues, "recipientAddress.city", address.city, FieldChecks.maxNameLength)
  FieldChecks.requiredText(issues, "recipientAddress.zipCode", address.zipCode, FieldChecks.maxNameLength)
  FieldChecks.requiredText(issues, "recipientAddress.state", address.state, FieldChecks.maxNameLength)
  FieldChecks.requiredText(issues, "recipientAddress.country", address.country, FieldChecks.maxNameLength)
  if (command.attachments.length > maxAttachments)
    issues.push({ field: "attachments", message: `must hold at most ${maxAttachments} attachments` })
  command.attachments.forEach((attachment, index) => {
    FieldChecks.requiredText(issues, `attachments[${index}].id`, attachment.id, FieldChecks.maxNameLength)
    FieldChecks.requiredText(issues, `attachments[${index}].name`, attachment.name, FieldChecks.maxNameLength)
    if (!/^[\w.+-]+\/[\w.+-]+$/.test(attachment.contentType))
      issues.push({
        field: `attachments[${index}].contentType`,
        message: 'must be a media type such as "application/pdf"',
      })
  })
  FieldChecks.requiredText(issues, "description", command.description, FieldChecks.maxTextLength)
  return FieldChecks.refusal(issues)
}

const initiate = (command: InitiateTransfer, state: State): Decision<Event> => {
  if (state._tag !== "Initial") return refuse(new AlreadyExists({ entity: "Transfer" }))
  const invalid = validateInitiate(command)
  if (invalid) return invalid
  const unverified = WhoMayCollect.refusal(command.parties)
  if (unverified) return refuse(unverified)
  return accept({
    _tag: "TransferInitiated",
    transferId: command.transferId,
    ...(command.paymentRequestId === undefined ? {} : { paymentRequestId: command.paymentRequestId }),
    ...(command.paymentPlanId === undefined ? {} : { paymentPlanId: command.paymentPlanId }),
    ...(command.instalmentNumber === undefined ? {} : { instalmentNumber: command.instalmentNumber }),
    payerRegistrationId: command.payerRegistrationId,
    partnerId: command.partnerId,
    companyId: command.companyId,
    amount: command.amount,
    senderName: command.senderName,
    recipientName: command.recipientName,
    senderAccountMasked: command.senderAccountMasked,
    recipientAccountMasked: command.recipientAccountMasked,
    recipientAddress: command.recipientAddress,
    attachments: command.attachments,
    description: command.description,
    ...(command.invoice === undefined ? {} : { invoice: command.invoice }),
    status: "Pending",
    at: command.at,
  })
}

const settle = (command: SettleTransfer, state: State): Decision<Event> => {
  switch (state._tag) {
    case "Initial":
      return notFound
    case "Pending":
      return accept({
        _tag: "TransferSettled",
        transferId: state.details.transferId,
        status: "Settled",
        at: command.at,
      })
    case "Settled":
      return nothing
    case "Failed":
      return illegal(state, command, "a failed transfer cannot be settled")
  }
}

const fail = (command: FailTransfer, state: State): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  const issues: FieldChecks.Issues = []
  FieldChecks.returnCode(issues, "returnCode", command.returnCode)
  FieldChecks.requiredText(issues, "reason", command.reason, FieldChecks.maxTextLength)
  const invalid = FieldChecks.refusal(issues)
  if (invalid) return invalid
  switch (state._tag) {
    case "Pending":
      return accept({
        _tag: "TransferFailed",
        transferId: state.details.transferId,
        returnCode: command.returnCode,
        reason: command.reason,
        status: "Failed",
        at: command.at,
      })
    case "Failed":
      return nothing
    case "Settled":
      return illegal(state, command, "a settled transfer cannot fail; pay money back with a refund")
  }
}

const refund = (command: RefundTransfer, state: State): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  if (state._tag !== "Settled") return illegal(state, command, "only a settled transfer can be refunded")
  const issues: FieldChecks.Issues = []
  FieldChecks.positiveMoney(issues, "amount", command.amount)
  FieldChecks.sameCurrency(issues, "amount", command.amount, state.details.amount)
  const invalid = FieldChecks.refusal(issues)
  if (invalid) return invalid
  const earlier = state.refunds.find((r) => r.refundId === command.refundId)
  if (earlier) {
    return earlier.amount.minorUnits === command.amount.minorUnits
      ? nothing
      : refuse(
          new RuleViolated({ code: "RefundIdReused", reason: "this refund id was already used for another amount" }),
        )
  }
  if (state.reimbursement._tag !== "NotApplied")
    return illegal(state, command, "a transfer applied for reimbursement cannot be refunded")
  const total = state.refundedAmount.minorUnits + command.amount.minorUnits
  if (total > state.details.amount.minorUnits)
    return refuse(
      new RuleViolated({
        code: "RefundExceedsTransfer",
        reason: `refunds would total ${total} minor units, more than the ${state.details.amount.minorUnits} transferred`,
      }),
    )
  return accept({
    _tag: "TransferRefunded",
    transferId: state.details.transferId,
    refundId: command.refundId,
    amount: command.amount,
    totalRefunded: { minorUnits: total, currency: state.details.amount.currency },
    isRefunded: total === state.details.amount.minorUnits,
    at: command.at,
  })
}

const applyForReimbursement = (command: ApplyForReimbursement, state: State): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  if (state._tag !== "Settled") return illegal(state, command, "only a settled transfer can be reimbursed")
  const issues: FieldChecks.Issues = []
  FieldChecks.httpsUrl(issues, "signingUrl", command.signingUrl)
  if (command.envelopeId !== undefined)
    FieldChecks.requiredText(issues, "envelopeId", command.envelopeId, FieldChecks.maxNameLength)
  const invalid = FieldChecks.refusal(issues)
  if (invalid) return invalid
  if (state.reimbursement._tag !== "NotApplied") {
    return state.reimbursement.providerId === command.providerId
      ? nothing
      : illegal(state, command, "the transfer was already applied for reimbursement with another provider")
  }
  if (state.refunds.length > 0) return illegal(state, command, "a refunded transfer cannot be reimbursed")
  return accept({
    _tag: "TransferReimbursementApplied",
    transferId: state.details.transferId,
    providerId: command.providerId,
    signingUrl: command.signingUrl,
    ...(command.envelopeId === undefined ? {} : { envelopeId: command.envelopeId }),
    at: command.at,
  })
}

const completeReimbursement = (command: CompleteReimbursement, state: State): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  if (state._tag !== "Settled") return illegal(state, command, "only a settled transfer can be reimbursed")
  switch (state.reimbursement._tag) {
    case "NotApplied":
      return illegal(state, command, "the transfer was not applied for reimbursement")
    case "Reimbursed":
      return nothing
    case "Applied":
      return accept({
        _tag: "TransferReimbursed",
        transferId: state.details.transferId,
        providerId: state.reimbursement.providerId,
        at: command.at,
      })
  }
}

export const decide = (command: Command, state: State): Decision<Event> => {
  switch (command._tag) {
    case "InitiateTransfer":
      return initiate(command, state)
    case "SettleTransfer":
      return settle(command, state)
    case "FailTransfer":
      return fail(command, state)
    case "RefundTransfer":
      return refund(command, state)
    case "ApplyForReimbursement":
      return applyForReimbursement(command, state)
    case "CompleteReimbursement":
      return completeReimbursement(command, state)
  }
}

// ---------------------------------------------------------------------------
// Evolve (total: an event that does not fit the state leaves it unchanged)

export const evolve = (state: State, event: Event): State => {
  switch (event._tag) {
    case "TransferInitiated": {
      if (state._tag !== "Initial") return state
      const { _tag, status, at, ...details } = event
      return { _tag: "Pending", details: { ...details, initiatedAt: at } }
    }
    case "TransferSettled":
      return state._tag === "Pending"
        ? {
            _tag: "Settled",
            details: state.details,
            settledAt: event.at,
            refunds: [],
            refundedAmount: { minorUnits: 0, currency: state.details.amount.currency },
            reimbursement: { _tag: "NotApplied" },
          }
        : state
    case "TransferFailed":
      return state._tag === "Pending"
        ? {
            _tag: "Failed",
            details: state.details,
            failedAt: event.at,
            returnCode: event.returnCode,
            reason: event.reason,
          }
        : state
    case "TransferRefunded":
      return state._tag === "Settled"
        ? {
            ...state,
            refunds: [...state.refunds, { refundId: event.refundId, amount: event.amount }],
            refundedAmount: event.totalRefunded,
          }
        : state
    case "TransferReimbursementApplied":
      return state._tag === "Settled"
        ? {
            ...state,
            reimbursement: {
              _tag: "Applied",
              providerId: event.providerId,
              signingUrl: event.signingUrl,
              ...(event.envelopeId === undefined ? {} : { envelopeId: event.envelopeId }),
              appliedAt: event.at,
            },
          }
        : state
    case "TransferReimbursed":
      return state._tag === "Settled" && state.reimbursement._tag === "Applied"
        ? { ...state, reimbursement: { ...state.reimbursement, _tag: "Reimbursed", reimbursedAt: event.at } }
        : state
  }
}

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "Transfer",
  initialState,
  decide,
  evolve,
  events: TransferEvent,
  eventVersion: () => 1,
}
