/**
 * The Transfer aggregate: one bank-to-bank money movement from a payer to a
 * company (GET /Transaction/{transferId}). It starts Pending; the
 * money-movement provider originates it (`RecordOrigination`, its reference)
 * and its outcome (`RecordOutcome`, polled or notified) settles it, fails it
 * before settlement, or returns it after settlement, with an ACH return code
 * (`ReturnCodes.ts`). A settled transfer can be refunded (each refund Pending
 * until its credit completes or fails; pending and completed refunds never
 * above its amount) or the payer can apply for its reimbursement by a
 * provider, but not both. A returned transfer cannot be refunded. Refunds are
 * part of this aggregate: one stream version guards their sum
 * (docs/decisions.md). Account numbers are only ever held masked (`maskAccountNumber`).
 *
 * State machine: packages/domain/docs/Transfer.md.
 */
import { type DateTime, Result } from "effect"
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
  BankAccountId,
  CompanyId,
  PartnerId,
  PaymentPlanId,
  PaymentRequestId,
  RegistrationId,
  TransferId,
} from "../kernel/Ids.ts"
import type * as Money from "../kernel/Money.ts"
import type * as FeeSchedule from "./FeeSchedule.ts"
import * as MovementAttempts from "./MovementAttempts.ts"
import * as ReturnCodes from "./ReturnCodes.ts"
import {
  type Attachment,
  type RecipientAddress,
  type RefundId,
  type RefundStatus,
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
  /** The charity gift (donation) this transfer collects. */
  readonly charityTransactionId?: string
  /**
   * The platform's fee kept from this transfer's amount (a charity gift's fee): the company's balance
   * gets amount - fee when it settles (`Ledger.feeEntryOf`). At most the amount, in its currency.
   */
  readonly platformFee?: Money.Money
  /** The partner's fee schedule that produced `platformFee`, and the provider's terms (`PlatformFees.appliedFor`). */
  readonly feeSchedule?: FeeSchedule.AppliedSchedule
  readonly providerCost?: Money.Money
  readonly returnFeeTerms?: FeeSchedule.ReturnFee
  /** The customer whose account pays: the data subject of `senderName` (docs/personal-data.md). */
  readonly payerRegistrationId: RegistrationId
  /** The payer's linked bank account debited (absent for a transfer that names none). */
  readonly bankAccountId?: BankAccountId
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
  /** The company's payout account, masked; absent while the company has none. */
  readonly recipientAccountMasked?: string
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

/**
 * Where a movement ended, as the domain decides on it, whatever told it (the
 * outcome poller, a provider's notification, or the originator): Settled,
 * Failed before settlement, or Returned after it, with an ACH return code of
 * `ReturnCodes.ts`; or Refused: the rail would not originate it (not an ACH
 * return, so no code: `reason` is the rail's words, or why we gave up on an
 * unavailable rail, `MovementAttempts.ts`). Refused ends a Pending movement as
 * Failed at once and changes nothing on one that already moved.
 */
export type Outcome =
  | { readonly _tag: "Settled" }
  | { readonly _tag: "Failed"; readonly returnCode: string }
  | { readonly _tag: "Returned"; readonly returnCode: string }
  | { readonly _tag: "Refused"; readonly reason: string }

/** The provider accepted to move the transfer's money and named the movement. A repeat changes nothing. */
export interface RecordOrigination {
  readonly _tag: "RecordOrigination"
  readonly transferId: TransferId
  readonly providerReference: string
  readonly at: DateTime.Utc
}

/** The one entry point of a transfer's outcome (polling or notification); a repeat changes nothing. */
export interface RecordOutcome {
  readonly _tag: "RecordOutcome"
  readonly transferId: TransferId
  readonly outcome: Outcome
  /**
   * The movement the outcome is about, when the teller names it (a provider's notification): it
   * must be the transfer's; one not recorded yet (the notification came before the origination was
   * recorded) is recorded first.
   */
  readonly providerReference?: string
  readonly at: DateTime.Utc
}

/** The provider accepted to move a refund's money back to the payer. A repeat changes nothing. */
export interface RecordRefundOrigination {
  readonly _tag: "RecordRefundOrigination"
  readonly transferId: TransferId
  readonly refundId: RefundId
  readonly providerReference: string
  readonly at: DateTime.Utc
}

/** A refund's credit settled (Completed) or came back (Failed); a repeat changes nothing. */
export interface RecordRefundOutcome {
  readonly _tag: "RecordRefundOutcome"
  readonly transferId: TransferId
  readonly refundId: RefundId
  readonly outcome: Outcome
  /** The credit the outcome is about, when named (as `RecordOutcome.providerReference`). */
  readonly providerReference?: string
  readonly at: DateTime.Utc
}

/**
 * The rail could not be reached to originate the transfer's debit (or the refund `refundId`'s
 * credit): "unavailable, try again" (`MovementAttempts.ts`). A movement not originated and still
 * Pending is deferred with backoff, or Failed (no return code) once the outage lasted the limit;
 * any other changes nothing. `jitter` in [0, 1) and `at` are inputs.
 */
export interface RecordOriginationUnavailable {
  readonly _tag: "RecordOriginationUnavailable"
  readonly transferId: TransferId
  readonly refundId?: RefundId
  readonly reason: string
  readonly jitter: number
  readonly backoff?: MovementAttempts.Backoff
  readonly at: DateTime.Utc
}

/**
 * The rail could not be reached to ask where the originated debit (or the refund `refundId`'s credit)
 * stands: the same "unavailable, try again" decision as the origination's (`MovementAttempts.ts`). A
 * movement originated and still Pending is deferred with backoff (its status not asked before
 * `retryAt`), or Failed (no return code) once the outage lasted the limit; any other changes nothing.
 * `jitter` in [0, 1) and `at` are inputs.
 */
export interface RecordStatusUnavailable {
  readonly _tag: "RecordStatusUnavailable"
  readonly transferId: TransferId
  readonly refundId?: RefundId
  readonly reason: string
  readonly jitter: number
  readonly backoff?: MovementAttempts.Backoff
  readonly at: DateTime.Utc
}

/**
 * The rail answered a status question (the movement still Pending): an outage recorded on the
 * movement's status is over (its backoff forgotten); without one, nothing changes.
 */
export interface RecordStatusAnswered {
  readonly _tag: "RecordStatusAnswered"
  readonly transferId: TransferId
  readonly refundId?: RefundId
  readonly at: DateTime.Utc
}

/** The events of this aggregate. */
export type Event = TransferEvent

export type Command =
  | InitiateTransfer
  | SettleTransfer
  | FailTransfer
  | RecordOrigination
  | RecordOutcome
  | RefundTransfer
  | RecordRefundOrigination
  | RecordRefundOutcome
  | RecordOriginationUnavailable
  | RecordStatusUnavailable
  | RecordStatusAnswered
  | ApplyForReimbursement
  | CompleteReimbursement

// ---------------------------------------------------------------------------
// State

/** What the transfer moves, from whom to whom: fixed at initiation. */
export type TransferDetails = Omit<TransferInitiated, "_tag" | "status" | "at"> & { readonly initiatedAt: DateTime.Utc }

/** One refund: Pending (its amount held) until its credit Completed or Failed (its amount freed). */
export interface Refund {
  readonly refundId: RefundId
  readonly amount: Money.Money
  readonly status: RefundStatus
  readonly providerReference?: string
  readonly returnCode?: string
  /** Its credit's origination deferred while the rail is unavailable. */
  readonly originationAttempts?: MovementAttempts.Attempts
  /** Its credit's status question deferred while the rail is unavailable. */
  readonly statusAttempts?: MovementAttempts.Attempts
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

/** A transfer whose money arrived: its refunds (completed ones add up to `refundedAmount`) and reimbursement. */
export interface SettledTransfer {
  readonly _tag: "Settled"
  readonly details: TransferDetails
  /** The provider's movement, once originated (transfers settled before origination existed have none). */
  readonly providerReference?: string
  readonly settledAt: DateTime.Utc
  readonly refunds: ReadonlyArray<Refund>
  readonly refundedAmount: Money.Money
  readonly reimbursement: Reimbursement
}

/** A settled transfer sent back by the payer's bank: final; its refunds still pending may complete. */
export type ReturnedTransfer = Omit<SettledTransfer, "_tag"> & {
  readonly _tag: "Returned"
  readonly returnedAt: DateTime.Utc
  readonly returnCode: string
  readonly reason: string
}

export type State =
  | { readonly _tag: "Initial" }
  | {
      readonly _tag: "Pending"
      readonly details: TransferDetails
      readonly providerReference?: string
      /** Its debit's origination deferred while the rail is unavailable. */
      readonly originationAttempts?: MovementAttempts.Attempts
      /** Its debit's status question deferred while the rail is unavailable. */
      readonly statusAttempts?: MovementAttempts.Attempts
    }
  | SettledTransfer
  | {
      readonly _tag: "Failed"
      readonly details: TransferDetails
      readonly providerReference?: string
      readonly failedAt: DateTime.Utc
      /** Absent when the rail refused the transfer (no ACH return). */
      readonly returnCode?: string
      readonly reason: string
    }
  | ReturnedTransfer

export const initialState: State = { _tag: "Initial" }

/** The reason partners read next to a return code: the table's description (else the recorded reason). */
export const returnReason = (returnCode: string, recorded: string): string =>
  ReturnCodes.isReturnCode(returnCode) ? ReturnCodes.describe(returnCode) : recorded

/** What pending and completed refunds hold of the amount (failed refunds hold nothing). */
export const heldByRefunds = (refunds: ReadonlyArray<Refund>): number =>
  refunds.reduce((sum, refund) => (refund.status === "Failed" ? sum : sum + refund.amount.minorUnits), 0)

/** The refunds of a transfer (none before it settled). */
export const refundsOf = (state: State): ReadonlyArray<Refund> =>
  state._tag === "Settled" || state._tag === "Returned" ? state.refunds : []

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
    // Stryker disable next-line StringLiteral: equivalent, a state no case names returns undefined too (the case keeps the switch exhaustive)
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
    case "Returned":
      return {
        status: state._tag,
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
  if (
    command.platformFee !== undefined &&
    (command.platformFee.currency !== command.amount.currency ||
      !Number.isInteger(command.platformFee.minorUnits) ||
      command.platformFee.minorUnits < 0 ||
      command.platformFee.minorUnits > command.amount.minorUnits)
  )
    issues.push({ field: "platformFee", message: "must be between zero and the amount, in its currency" })
  FieldChecks.requiredText(issues, "senderName", command.senderName, FieldChecks.maxNameLength)
  FieldChecks.requiredText(issues, "recipientName", command.recipientName, FieldChecks.maxNameLength)
  FieldChecks.maskedAccountNumber(issues, "senderAccount", command.senderAccountMasked)
  if (command.recipientAccountMasked !== undefined)
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
    ...(command.charityTransactionId === undefined ? {} : { charityTransactionId: command.charityTransactionId }),
    ...(command.platformFee === undefined || command.platformFee.minorUnits === 0
      ? {}
      : { platformFee: command.platformFee }),
    ...(command.feeSchedule === undefined || command.platformFee === undefined || command.platformFee.minorUnits === 0
      ? {}
      : { feeSchedule: command.feeSchedule }),
    ...(command.providerCost === undefined ? {} : { providerCost: command.providerCost }),
    ...(command.returnFeeTerms === undefined ? {} : { returnFeeTerms: command.returnFeeTerms }),
    payerRegistrationId: command.payerRegistrationId,
    ...(command.bankAccountId === undefined ? {} : { bankAccountId: command.bankAccountId }),
    partnerId: command.partnerId,
    companyId: command.companyId,
    amount: command.amount,
    senderName: command.senderName,
    recipientName: command.recipientName,
    senderAccountMasked: command.senderAccountMasked,
    ...(command.recipientAccountMasked === undefined ? {} : { recipientAccountMasked: command.recipientAccountMasked }),
    recipientAddress: command.recipientAddress,
    attachments: command.attachments,
    description: command.description,
    ...(command.invoice === undefined ? {} : { invoice: command.invoice }),
    status: "Pending",
    at: command.at,
  })
}

const settle = (command: SettleTransfer, state: State): Decision<Event> =>
  state._tag === "Failed"
    ? illegal(state, command, "a failed transfer cannot be settled")
    : // Stryker disable next-line StringLiteral: equivalent, the tag only names the command in a refusal of a Failed transfer, refused above
      recordOutcome({ ...command, _tag: "RecordOutcome", outcome: { _tag: "Settled" } }, state)

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
        ...returnFeeOf(state.details),
        status: "Failed",
        at: command.at,
      })
    case "Failed":
    case "Returned":
      return nothing
    case "Settled":
      return illegal(state, command, "a settled transfer cannot fail; pay money back with a refund")
  }
}

/** The teller named another movement than the one recorded. */
const otherMovement = (what: "transfer" | "refund"): Decision<Event> =>
  refuse(
    new RuleViolated({
      code: "OTHER_MOVEMENT",
      reason: `the provider reference is not the one recorded for this ${what}`,
    }),
  )

/** The events `first` then those `next` decides on the state they lead to. */
const then = (first: ReadonlyArray<Event>, state: State, next: (state: State) => Decision<Event>): Decision<Event> => {
  const decided = next(first.reduce(evolve, state))
  return Result.isFailure(decided) ? decided : accept(...first, ...decided.success)
}

/** A return code of the table (a refusal's reason: text), else the refusal naming `returnCode` (`reason`). */
const checkedReturnCode = (outcome: Outcome): Result.Result<never, ValidationFailed> | undefined => {
  if (outcome._tag === "Settled") return undefined
  if (outcome._tag === "Refused") {
    const issues: FieldChecks.Issues = []
    FieldChecks.requiredText(issues, "reason", outcome.reason, FieldChecks.maxTextLength)
    return FieldChecks.refusal(issues)
  }
  return ReturnCodes.isReturnCode(outcome.returnCode)
    ? undefined
    : FieldChecks.refusal([{ field: "returnCode", message: 'must be an ACH return code such as "R01"' }])
}

/**
 * The rail's words as a refusal's reason: one line, trimmed, at most `FieldChecks.maxTextLength`
 * characters (a provider's message may be longer), "refused by the rail" when it said nothing.
 */
export const refusalReason = (words: string): string => {
  const line = words.replace(/\s+/g, " ").trim()
  if (line === "") return "refused by the rail"
  return line.length <= FieldChecks.maxTextLength ? line : `${line.slice(0, FieldChecks.maxTextLength - 3)}...`
}

const originate = (command: RecordOrigination, state: State): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  const invalid = FieldChecks.refusal(
    command.providerReference.trim() === "" || command.providerReference.length > FieldChecks.maxNameLength
      ? [{ field: "providerReference", message: "must be a provider reference of 1 to 200 characters" }]
      : [],
  )
  if (invalid) return invalid
  if (state.providerReference !== undefined)
    return state.providerReference === command.providerReference
      ? nothing
      : refuse(
          new RuleViolated({
            code: "ORIGINATED_ELSEWHERE",
            reason: "the transfer was already originated as another movement",
          }),
        )
  if (state._tag !== "Pending") return illegal(state, command, "only a pending transfer is originated")
  return accept({
    _tag: "TransferOriginated",
    transferId: state.details.transferId,
    providerReference: command.providerReference,
    at: command.at,
  })
}

const returned = (state: { readonly details: TransferDetails }, returnCode: string, at: DateTime.Utc): Event => ({
  _tag: "TransferReturned",
  transferId: state.details.transferId,
  returnCode,
  // Stryker disable next-line StringLiteral: equivalent, the code was checked against the table (checkedReturnCode), which describes it
  reason: returnReason(returnCode, "returned by the bank"),
  ...returnFeeOf(state.details),
  status: "Returned",
  at,
})

/**
 * The provider's return fee of a debit the bank brought back with a return code (before or after
 * settlement): the terms recorded at initiation, recorded on the failure or return as a fact.
 */
const returnFeeOf = (details: TransferDetails): { readonly returnFee?: FeeSchedule.ReturnFee } =>
  details.returnFeeTerms === undefined ? {} : { returnFee: details.returnFeeTerms }

/** A pending transfer's outcome: Returned means it settled, then came back (the settlement was not seen). */
const pendingOutcome = (
  state: { readonly details: TransferDetails },
  outcome: Outcome,
  at: DateTime.Utc,
): Decision<Event> => {
  const transferId = state.details.transferId
  const settled: Event = { _tag: "TransferSettled", transferId, status: "Settled", at }
  switch (outcome._tag) {
    case "Settled":
      return accept(settled)
    case "Refused":
      return accept({ _tag: "TransferFailed", transferId, reason: outcome.reason, status: "Failed", at })
    case "Failed":
      return accept({
        _tag: "TransferFailed",
        transferId,
        returnCode: outcome.returnCode,
        // Stryker disable next-line StringLiteral: equivalent, the code was checked against the table (checkedReturnCode), which describes it
        reason: returnReason(outcome.returnCode, "returned by the bank"),
        ...returnFeeOf(state.details),
        status: "Failed",
        at,
      })
    case "Returned":
      return accept(settled, returned(state, outcome.returnCode, at))
  }
}

/**
 * The outcome of the transfer's movement. Pending: Settled settles it, Failed
 * fails it, Returned settles and returns it (the settlement was not seen).
 * Settled: a Failed or Returned outcome returns it (the money came back after
 * settlement). Returned is final. A Failed transfer never settles.
 */
const recordOutcome = (command: RecordOutcome, state: State): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  const invalid = checkedReturnCode(command.outcome)
  if (invalid) return invalid
  if (command.providerReference !== undefined) {
    const { providerReference, ...unnamed } = command
    if (state.providerReference === providerReference) return recordOutcome(unnamed, state)
    if (state.providerReference !== undefined) return otherMovement("transfer")
    const originated = originate(
      // Stryker disable next-line StringLiteral: equivalent, the tag only names the command in a refusal of a transfer that is not Pending, which then has its outcome already
      { _tag: "RecordOrigination", transferId: command.transferId, providerReference, at: command.at },
      state,
    )
    return Result.isFailure(originated)
      ? originated
      : then(originated.success, state, (next) => recordOutcome(unnamed, next))
  }
  const outcome = command.outcome
  switch (state._tag) {
    case "Pending":
      return pendingOutcome(state, outcome, command.at)
    case "Settled":
      // A refusal comes before any money moved: a settled transfer is past it.
      return outcome._tag === "Settled" || outcome._tag === "Refused"
        ? nothing
        : accept(returned(state, outcome.returnCode, command.at))
    case "Returned":
      return nothing
    case "Failed":
      return outcome._tag === "Failed" || outcome._tag === "Refused"
        ? nothing
        : illegal(state, command, "a failed transfer cannot be settled or returned")
  }
}

const refund = (command: RefundTransfer, state: State): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  if (state._tag === "Returned") return illegal(state, command, "a returned transfer cannot be refunded")
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
          new RuleViolated({ code: "REFUND_ID_REUSED", reason: "this refund id was already used for another amount" }),
        )
  }
  if (state.reimbursement._tag !== "NotApplied")
    return illegal(state, command, "a transfer applied for reimbursement cannot be refunded")
  const total = heldByRefunds(state.refunds) + command.amount.minorUnits
  if (total > state.details.amount.minorUnits)
    return refuse(
      new RuleViolated({
        code: "REFUND_EXCEEDS_TRANSFER",
        reason: `refunds (pending and completed) would total ${total} minor units, more than the ${state.details.amount.minorUnits} transferred`,
      }),
    )
  return accept({
    _tag: "TransferRefundRequested",
    transferId: state.details.transferId,
    refundId: command.refundId,
    amount: command.amount,
    at: command.at,
  })
}

/** The refund a command names, in a transfer that has refunds; else the refusal. */
const refundNamed = (
  state: State,
  refundId: RefundId,
):
  | { readonly refusal: Decision<Event> }
  | { readonly refund: Refund; readonly state: SettledTransfer | ReturnedTransfer } => {
  if (state._tag === "Initial") return { refusal: notFound }
  const found = refundsOf(state).find((r) => r.refundId === refundId)
  // Stryker disable next-line ConditionalExpression: equivalent, only a Settled or Returned transfer has refunds (refundsOf), so a refund found is in one (the test narrows the type)
  if (found === undefined || (state._tag !== "Settled" && state._tag !== "Returned"))
    return { refusal: refuse(new NotFound({ entity: "Refund" })) }
  return { refund: found, state }
}

const originateRefund = (command: RecordRefundOrigination, state: State): Decision<Event> => {
  const named = refundNamed(state, command.refundId)
  if ("refusal" in named) return named.refusal
  if (command.providerReference.trim() === "" || command.providerReference.length > FieldChecks.maxNameLength)
    return FieldChecks.refusal([
      { field: "providerReference", message: "must be a provider reference of 1 to 200 characters" },
    ]) as Decision<Event>
  const current = named.refund
  if (current.providerReference !== undefined)
    return current.providerReference === command.providerReference
      ? nothing
      : refuse(
          new RuleViolated({
            code: "ORIGINATED_ELSEWHERE",
            reason: "the refund was already originated as another movement",
          }),
        )
  if (current.status !== "Pending") return nothing
  return accept({
    _tag: "TransferRefundOriginated",
    transferId: named.state.details.transferId,
    refundId: command.refundId,
    providerReference: command.providerReference,
    at: command.at,
  })
}

/**
 * A refund's credit settled (Completed: counted in `refundedAmount`) or came
 * back (Failed or Returned: Failed, its amount freed). A refund that already
 * ended stays as it ended.
 */
const recordRefundOutcome = (command: RecordRefundOutcome, state: State): Decision<Event> => {
  const named = refundNamed(state, command.refundId)
  if ("refusal" in named) return named.refusal
  const invalid = checkedReturnCode(command.outcome)
  if (invalid) return invalid
  if (command.providerReference !== undefined) {
    const { providerReference, ...unnamed } = command
    if (named.refund.providerReference === providerReference) return recordRefundOutcome(unnamed, state)
    if (named.refund.providerReference !== undefined) return otherMovement("refund")
    // Stryker disable next-line StringLiteral: equivalent, originateRefund never names its command in a refusal
    const originated = originateRefund({ ...unnamed, _tag: "RecordRefundOrigination", providerReference }, state)
    return Result.isFailure(originated)
      ? originated
      : then(originated.success, state, (next) => recordRefundOutcome(unnamed, next))
  }
  const current = named.refund
  if (current.status !== "Pending") return nothing
  const transfer = named.state
  const outcome = command.outcome
  if (outcome._tag === "Settled") {
    const total = transfer.refundedAmount.minorUnits + current.amount.minorUnits
    return accept({
      _tag: "TransferRefundCompleted",
      transferId: transfer.details.transferId,
      refundId: current.refundId,
      amount: current.amount,
      totalRefunded: { minorUnits: total, currency: transfer.details.amount.currency },
      isRefunded: total === transfer.details.amount.minorUnits,
      at: command.at,
    })
  }
  if (outcome._tag === "Refused")
    return accept({
      _tag: "TransferRefundFailed",
      transferId: transfer.details.transferId,
      refundId: current.refundId,
      amount: current.amount,
      reason: outcome.reason,
      at: command.at,
    })
  return accept({
    _tag: "TransferRefundFailed",
    transferId: transfer.details.transferId,
    refundId: current.refundId,
    amount: current.amount,
    returnCode: outcome.returnCode,
    // Stryker disable next-line StringLiteral: equivalent, the code was checked against the table (checkedReturnCode), which describes it
    reason: returnReason(outcome.returnCode, "returned by the bank"),
    at: command.at,
  })
}

/** The origination of the debit (or a refund's credit) found the rail unavailable: defer it, or give up. */
const originationUnavailable = (command: RecordOriginationUnavailable, state: State): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  const issues: FieldChecks.Issues = []
  FieldChecks.requiredText(issues, "reason", command.reason, FieldChecks.maxTextLength)
  const invalid = FieldChecks.refusal(issues)
  if (invalid) return invalid
  const transferId = state.details.transferId
  if (command.refundId === undefined) {
    if (state._tag !== "Pending" || state.providerReference !== undefined) return nothing
    const next = MovementAttempts.afterUnavailable(
      state.originationAttempts,
      command.at,
      command.jitter,
      command.reason,
      command.backoff,
    )
    return next._tag === "GiveUp"
      ? accept({ _tag: "TransferFailed", transferId, reason: next.reason, status: "Failed", at: command.at })
      : accept({
          _tag: "TransferOriginationDeferred",
          transferId,
          ...next.attempts,
          reason: command.reason,
          at: command.at,
        })
  }
  const named = refundNamed(state, command.refundId)
  if ("refusal" in named) return named.refusal
  const refund = named.refund
  if (refund.status !== "Pending" || refund.providerReference !== undefined) return nothing
  const next = MovementAttempts.afterUnavailable(
    refund.originationAttempts,
    command.at,
    command.jitter,
    command.reason,
    command.backoff,
  )
  return next._tag === "GiveUp"
    ? accept({
        _tag: "TransferRefundFailed",
        transferId,
        refundId: refund.refundId,
        amount: refund.amount,
        reason: next.reason,
        at: command.at,
      })
    : accept({
        _tag: "TransferOriginationDeferred",
        transferId,
        refundId: refund.refundId,
        ...next.attempts,
        reason: command.reason,
        at: command.at,
      })
}

/** The status question of an originated debit (or a refund's credit) found the rail unavailable: defer it, or give up. */
const statusUnavailable = (command: RecordStatusUnavailable, state: State): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  const issues: FieldChecks.Issues = []
  FieldChecks.requiredText(issues, "reason", command.reason, FieldChecks.maxTextLength)
  const invalid = FieldChecks.refusal(issues)
  if (invalid) return invalid
  const transferId = state.details.transferId
  if (command.refundId === undefined) {
    if (state._tag !== "Pending" || state.providerReference === undefined) return nothing
    const next = MovementAttempts.afterUnavailable(
      state.statusAttempts,
      command.at,
      command.jitter,
      command.reason,
      command.backoff,
    )
    return next._tag === "GiveUp"
      ? accept({ _tag: "TransferFailed", transferId, reason: next.reason, status: "Failed", at: command.at })
      : accept({ _tag: "TransferStatusDeferred", transferId, ...next.attempts, reason: command.reason, at: command.at })
  }
  const named = refundNamed(state, command.refundId)
  if ("refusal" in named) return named.refusal
  const refund = named.refund
  if (refund.status !== "Pending" || refund.providerReference === undefined) return nothing
  const next = MovementAttempts.afterUnavailable(
    refund.statusAttempts,
    command.at,
    command.jitter,
    command.reason,
    command.backoff,
  )
  return next._tag === "GiveUp"
    ? accept({
        _tag: "TransferRefundFailed",
        transferId,
        refundId: refund.refundId,
        amount: refund.amount,
        reason: next.reason,
        at: command.at,
      })
    : accept({
        _tag: "TransferStatusDeferred",
        transferId,
        refundId: refund.refundId,
        ...next.attempts,
        reason: command.reason,
        at: command.at,
      })
}

/** The rail answered a status question again: an outage recorded on the movement's status is over. */
const statusAnswered = (command: RecordStatusAnswered, state: State): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  const transferId = state.details.transferId
  if (command.refundId === undefined)
    return state._tag === "Pending" && state.statusAttempts !== undefined
      ? accept({ _tag: "TransferStatusResumed", transferId, at: command.at })
      : nothing
  const named = refundNamed(state, command.refundId)
  if ("refusal" in named) return named.refusal
  return named.refund.status === "Pending" && named.refund.statusAttempts !== undefined
    ? accept({ _tag: "TransferStatusResumed", transferId, refundId: named.refund.refundId, at: command.at })
    : nothing
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
  if (heldByRefunds(state.refunds) > 0) return illegal(state, command, "a refunded transfer cannot be reimbursed")
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

/**
 * The command an envelope's status means for a transfer applied for reimbursement: Completed (the
 * payer signed the claim) completes the reimbursement; Sent, Declined and Voided change nothing
 * (the claim stays applied; a declined or voided one is the provider's to follow up).
 */
export const fromEnvelopeStatus = (
  transferId: TransferId,
  status: "Sent" | "Completed" | "Declined" | "Voided",
  at: DateTime.Utc,
): CompleteReimbursement | undefined =>
  status === "Completed" ? { _tag: "CompleteReimbursement", transferId, at } : undefined

/** The envelope a transfer waits on for its reimbursement (applied, not yet reimbursed), or undefined. */
export const pendingEnvelopeOf = (
  state: State,
): { readonly envelopeId: string; readonly sentAt: DateTime.Utc } | undefined =>
  state._tag === "Settled" && state.reimbursement._tag === "Applied" && state.reimbursement.envelopeId !== undefined
    ? { envelopeId: state.reimbursement.envelopeId, sentAt: state.reimbursement.appliedAt }
    : undefined

export const decide = (command: Command, state: State): Decision<Event> => {
  switch (command._tag) {
    case "InitiateTransfer":
      return initiate(command, state)
    case "SettleTransfer":
      return settle(command, state)
    case "FailTransfer":
      return fail(command, state)
    case "RecordOrigination":
      return originate(command, state)
    case "RecordOutcome":
      return recordOutcome(command, state)
    case "RefundTransfer":
      return refund(command, state)
    case "RecordRefundOrigination":
      return originateRefund(command, state)
    case "RecordRefundOutcome":
      return recordRefundOutcome(command, state)
    case "RecordOriginationUnavailable":
      return originationUnavailable(command, state)
    case "RecordStatusUnavailable":
      return statusUnavailable(command, state)
    case "RecordStatusAnswered":
      return statusAnswered(command, state)
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
    case "TransferOriginated":
      return state._tag === "Pending" ? { ...state, providerReference: event.providerReference } : state
    case "TransferSettled":
      return state._tag === "Pending"
        ? {
            _tag: "Settled",
            details: state.details,
            // Stryker disable next-line ConditionalExpression: equivalent, a providerReference key holding undefined reads as none (every reader tests !== undefined)
            ...(state.providerReference === undefined ? {} : { providerReference: state.providerReference }),
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
            // Stryker disable next-line ConditionalExpression: equivalent, a providerReference key holding undefined reads as none (every reader tests !== undefined)
            ...(state.providerReference === undefined ? {} : { providerReference: state.providerReference }),
            failedAt: event.at,
            ...(event.returnCode === undefined ? {} : { returnCode: event.returnCode }),
            reason: event.reason,
          }
        : state
    case "TransferReturned":
      return state._tag === "Settled"
        ? { ...state, _tag: "Returned", returnedAt: event.at, returnCode: event.returnCode, reason: event.reason }
        : state
    case "TransferRefunded":
      return state._tag === "Settled"
        ? {
            ...state,
            refunds: [...state.refunds, { refundId: event.refundId, amount: event.amount, status: "Completed" }],
            refundedAmount: event.totalRefunded,
          }
        : state
    case "TransferRefundRequested":
      return state._tag === "Settled"
        ? {
            ...state,
            refunds: [...state.refunds, { refundId: event.refundId, amount: event.amount, status: "Pending" }],
          }
        : state
    case "TransferRefundOriginated":
      return withRefund(state, event.refundId, (refund) => ({ ...refund, providerReference: event.providerReference }))
    case "TransferRefundCompleted": {
      const next = withRefund(state, event.refundId, (refund) => ({ ...refund, status: "Completed" }))
      return next._tag === "Settled" || next._tag === "Returned"
        ? { ...next, refundedAmount: event.totalRefunded }
        : next
    }
    case "TransferRefundFailed":
      return withRefund(state, event.refundId, (refund) => ({
        ...refund,
        status: "Failed",
        ...(event.returnCode === undefined ? {} : { returnCode: event.returnCode }),
      }))
    case "TransferOriginationDeferred": {
      const attempts = { failures: event.failures, firstFailedAt: event.firstFailedAt, retryAt: event.retryAt }
      if (event.refundId !== undefined)
        return withRefund(state, event.refundId, (refund) => ({ ...refund, originationAttempts: attempts }))
      return state._tag === "Pending" ? { ...state, originationAttempts: attempts } : state
    }
    case "TransferStatusDeferred": {
      const attempts = { failures: event.failures, firstFailedAt: event.firstFailedAt, retryAt: event.retryAt }
      if (event.refundId !== undefined)
        return withRefund(state, event.refundId, (refund) => ({ ...refund, statusAttempts: attempts }))
      return state._tag === "Pending" ? { ...state, statusAttempts: attempts } : state
    }
    case "TransferStatusResumed": {
      if (event.refundId !== undefined)
        return withRefund(state, event.refundId, ({ statusAttempts: _, ...refund }) => refund)
      if (state._tag !== "Pending") return state
      const { statusAttempts: _, ...pending } = state
      return pending
    }
    case "TransferReimbursementApplied":
      return state._tag === "Settled"
        ? {
            ...state,
            reimbursement: {
              _tag: "Applied",
              providerId: event.providerId,
              signingUrl: event.signingUrl,
              // Stryker disable next-line ConditionalExpression: equivalent, an envelopeId key holding undefined reads as none (every reader tests !== undefined)
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

/** The state with one refund changed (unchanged when the transfer has no such refund). */
const withRefund = (state: State, refundId: RefundId, change: (refund: Refund) => Refund): State =>
  state._tag === "Settled" || state._tag === "Returned"
    ? { ...state, refunds: state.refunds.map((refund) => (refund.refundId === refundId ? change(refund) : refund)) }
    : state

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "Transfer",
  initialState,
  decide,
  evolve,
  events: TransferEvent,
  eventVersion: () => 1,
}
