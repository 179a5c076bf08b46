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
 * Beside it: its state and evolve (`TransferState.ts`), its refunds
 * (`TransferRefunds.ts`), its reimbursement (`TransferReimbursement.ts`), the
 * rail's outages (`TransferOutages.ts`) and what they share (`TransferChecks.ts`).
 *
 * State machine: packages/domain/docs/Transfer.md.
 */
import { type DateTime, Result } from "effect"
import { type Aggregate, accept, byCommand, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import { AlreadyExists, type DomainError, RuleViolated, type ValidationFailed } from "../kernel/DomainError.ts"
import * as FieldChecks from "../kernel/FieldChecks.ts"
import type { RegistrationId, TransferId } from "../kernel/Ids.ts"
import * as Payload from "../kernel/Payload.ts"
import type * as FeeSchedule from "./FeeSchedule.ts"
import { returnReason } from "./ReturnCodes.ts"
import { checkedReturnCode, followedBy, illegal, notFound, type Outcome, otherMovement } from "./TransferChecks.ts"
import { type Of, TransferEvent, TransferInitiated } from "./TransferEvents.ts"
import {
  originationUnavailable,
  type RecordOriginationUnavailable,
  type RecordStatusAnswered,
  type RecordStatusUnavailable,
  statusAnswered,
  statusUnavailable,
} from "./TransferOutages.ts"
import {
  originateRefund,
  type RecordRefundOrigination,
  type RecordRefundOutcome,
  type RefundTransfer,
  recordRefundOutcome,
  refund,
} from "./TransferRefunds.ts"
import {
  type ApplyForReimbursement,
  applyForReimbursement,
  type CompleteReimbursement,
  completeReimbursement,
} from "./TransferReimbursement.ts"
import { evolve, initialState, type State, type TransferDetails } from "./TransferState.ts"
import * as WhoMayCollect from "./WhoMayCollect.ts"

export { returnReason } from "./ReturnCodes.ts"
export { type Outcome, refusalReason } from "./TransferChecks.ts"
export type { TransferStatus } from "./TransferEvents.ts"
export type { RecordOriginationUnavailable, RecordStatusAnswered, RecordStatusUnavailable } from "./TransferOutages.ts"
export type { RecordRefundOrigination, RecordRefundOutcome, RefundTransfer } from "./TransferRefunds.ts"
export {
  type ApplyForReimbursement,
  type CompleteReimbursement,
  fromEnvelopeStatus,
  pendingEnvelopeOf,
} from "./TransferReimbursement.ts"
export {
  evolve,
  heldByRefunds,
  initialState,
  type Refund,
  type Reimbursement,
  type ReturnedTransfer,
  refundsOf,
  type SettledTransfer,
  type State,
  statusOf,
  summary,
  type TransferDetails,
  type TransferSummary,
} from "./TransferState.ts"

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

/**
 * The transfer's details as recorded (`TransferInitiated`'s fields, documented there), and the
 * parties' verification at initiation (read by the edge, not recorded): no transfer leaves an
 * unverified payer or reaches an unverified company (`WhoMayCollect`). Account numbers come
 * already masked by the edge (`maskAccountNumber`); a full number is refused. The platform's fee
 * (a charity gift's, or a payment's by the partner's schedule) is at most the amount, in its currency.
 */
export interface InitiateTransfer extends Omit<Of<"TransferInitiated">, "_tag" | "payerRegistrationId"> {
  readonly _tag: "InitiateTransfer"
  /** The customer whose account pays: the data subject of `senderName` (docs/personal-data.md). */
  readonly payerRegistrationId: RegistrationId
  readonly parties: WhoMayCollect.Parties
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
// Decide

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
  // The details as recorded, a zero fee (and its schedule) left out.
  const { _tag, platformFee, feeSchedule, ...details } = Payload.pick(TransferInitiated, command)
  return accept({
    _tag: "TransferInitiated",
    ...details,
    ...(platformFee === undefined || platformFee.minorUnits === 0
      ? {}
      : { platformFee, ...(feeSchedule === undefined ? {} : { feeSchedule }) }),
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
        at: command.at,
      })
    case "Failed":
    case "Returned":
      return nothing
    case "Settled":
      return illegal(state, command, "a settled transfer cannot fail; pay money back with a refund")
  }
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
  const settled: Event = { _tag: "TransferSettled", transferId, at }
  switch (outcome._tag) {
    case "Settled":
      return accept(settled)
    case "Refused":
      return accept({ _tag: "TransferFailed", transferId, reason: outcome.reason, at })
    case "Failed":
      return accept({
        _tag: "TransferFailed",
        transferId,
        returnCode: outcome.returnCode,
        // Stryker disable next-line StringLiteral: equivalent, the code was checked against the table (checkedReturnCode), which describes it
        reason: returnReason(outcome.returnCode, "returned by the bank"),
        ...returnFeeOf(state.details),
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
      : followedBy(originated.success, state, (next) => recordOutcome(unnamed, next))
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

export const decide: (command: Command, state: State) => Decision<Event> = byCommand<Command, State, Event>({
  InitiateTransfer: initiate,
  SettleTransfer: settle,
  FailTransfer: fail,
  RecordOrigination: originate,
  RecordOutcome: recordOutcome,
  RefundTransfer: refund,
  RecordRefundOrigination: originateRefund,
  RecordRefundOutcome: recordRefundOutcome,
  RecordOriginationUnavailable: originationUnavailable,
  RecordStatusUnavailable: statusUnavailable,
  RecordStatusAnswered: statusAnswered,
  ApplyForReimbursement: applyForReimbursement,
  CompleteReimbursement: completeReimbursement,
})

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "Transfer",
  initialState,
  decide,
  evolve,
  events: TransferEvent,
  eventVersion: () => 1,
}
