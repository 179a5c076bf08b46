/**
 * The Transfer's movements when the rail cannot be reached (`Transfer.ts`):
 * the origination of the debit (or of a refund's credit), or the question of
 * where an originated one stands, is deferred with backoff, or the movement
 * Failed once the outage lasted the limit (`MovementAttempts.ts`); the rail
 * answering again ends an outage on the status.
 */
import type { DateTime } from "effect"
import { accept, type Decision, nothing } from "../kernel/Decider.ts"
import * as FieldChecks from "../kernel/FieldChecks.ts"
import type { TransferId } from "../kernel/Ids.ts"
import type * as Money from "../kernel/Money.ts"
import * as MovementAttempts from "./MovementAttempts.ts"
import { notFound } from "./TransferChecks.ts"
import type { TransferEvent as Event, RefundId } from "./TransferEvents.ts"
import { refundNamed } from "./TransferRefunds.ts"
import type { State } from "./TransferState.ts"

/** What both outages say: the movement (the debit, or the refund `refundId`'s credit), the rail's words, the inputs. */
interface RailUnavailable {
  readonly transferId: TransferId
  readonly refundId?: RefundId
  readonly reason: string
  readonly jitter: number
  readonly backoff?: MovementAttempts.Backoff
  readonly at: DateTime.Utc
}

/**
 * The rail could not be reached to originate the transfer's debit (or the refund `refundId`'s
 * credit): "unavailable, try again" (`MovementAttempts.ts`). A movement not originated and still
 * Pending is deferred with backoff, or Failed (no return code) once the outage lasted the limit;
 * any other changes nothing. `jitter` in [0, 1) and `at` are inputs.
 */
export interface RecordOriginationUnavailable extends RailUnavailable {
  readonly _tag: "RecordOriginationUnavailable"
}

/**
 * The rail could not be reached to ask where the originated debit (or the refund `refundId`'s credit)
 * stands: the same "unavailable, try again" decision as the origination's (`MovementAttempts.ts`). A
 * movement originated and still Pending is deferred with backoff (its status not asked before
 * `retryAt`), or Failed (no return code) once the outage lasted the limit; any other changes nothing.
 * `jitter` in [0, 1) and `at` are inputs.
 */
export interface RecordStatusUnavailable extends RailUnavailable {
  readonly _tag: "RecordStatusUnavailable"
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

/**
 * The rail was unavailable for a question about a movement (the debit, or the refund `refundId`'s
 * credit): its origination (asked of a movement not originated yet) or its status (asked of one
 * originated). A Pending movement the question fits is deferred with backoff, or Failed once the
 * outage lasted the limit; any other changes nothing.
 */
const unavailable = (
  question: "Origination" | "Status",
  command: RecordOriginationUnavailable | RecordStatusUnavailable,
  state: State,
): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  const issues: FieldChecks.Issues = []
  FieldChecks.requiredText(issues, "reason", command.reason, FieldChecks.maxTextLength)
  const invalid = FieldChecks.refusal(issues)
  if (invalid) return invalid
  const transferId = state.details.transferId
  const asksStatus = question === "Status"
  let movement: {
    readonly originationAttempts?: MovementAttempts.Attempts
    readonly statusAttempts?: MovementAttempts.Attempts
  }
  let refund: { readonly refundId: RefundId; readonly amount: Money.Money } | undefined
  if (command.refundId === undefined) {
    if (state._tag !== "Pending" || (state.providerReference !== undefined) !== asksStatus) return nothing
    movement = state
  } else {
    const named = refundNamed(state, command.refundId)
    if ("refusal" in named) return named.refusal
    if (named.refund.status !== "Pending" || (named.refund.providerReference !== undefined) !== asksStatus)
      return nothing
    movement = named.refund
    refund = named.refund
  }
  const next = MovementAttempts.afterUnavailable(
    asksStatus ? movement.statusAttempts : movement.originationAttempts,
    command.at,
    command.jitter,
    command.reason,
    command.backoff,
  )
  if (next._tag === "GiveUp")
    return refund === undefined
      ? accept({ _tag: "TransferFailed", transferId, reason: next.reason, at: command.at })
      : accept({
          _tag: "TransferRefundFailed",
          transferId,
          refundId: refund.refundId,
          amount: refund.amount,
          reason: next.reason,
          at: command.at,
        })
  return accept({
    _tag: asksStatus ? "TransferStatusDeferred" : "TransferOriginationDeferred",
    transferId,
    ...(refund === undefined ? {} : { refundId: refund.refundId }),
    ...next.attempts,
    reason: command.reason,
    at: command.at,
  })
}

/** The origination of the debit (or a refund's credit) found the rail unavailable: defer it, or give up. */
export const originationUnavailable = (command: RecordOriginationUnavailable, state: State): Decision<Event> =>
  // Stryker disable next-line StringLiteral: equivalent, the question is only compared with "Status" (any other word asks about the origination)
  unavailable("Origination", command, state)

/** The status question of an originated debit (or a refund's credit) found the rail unavailable: defer it, or give up. */
export const statusUnavailable = (command: RecordStatusUnavailable, state: State): Decision<Event> =>
  unavailable("Status", command, state)

/** The rail answered a status question again: an outage recorded on the movement's status is over. */
export const statusAnswered = (command: RecordStatusAnswered, state: State): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  const transferId = state.details.transferId
  if (command.refundId === undefined) {
    // Stryker disable next-line ConditionalExpression: equivalent, only a Pending transfer holds statusAttempts (the test narrows the type)
    if (state._tag !== "Pending") return nothing
    return state.statusAttempts === undefined
      ? nothing
      : accept({ _tag: "TransferStatusResumed", transferId, at: command.at })
  }
  const named = refundNamed(state, command.refundId)
  if ("refusal" in named) return named.refusal
  return named.refund.status === "Pending" && named.refund.statusAttempts !== undefined
    ? accept({ _tag: "TransferStatusResumed", transferId, refundId: named.refund.refundId, at: command.at })
    : nothing
}
