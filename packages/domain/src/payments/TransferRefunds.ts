/**
 * The refunds of a settled Transfer (`Transfer.ts`): a refund is requested
 * (Pending, its amount held: pending and completed refunds never above the
 * transfer's amount), its credit originated by the provider, then Completed or
 * Failed (its amount freed). Refunds are part of the Transfer aggregate: one
 * stream version guards their sum (docs/decisions.md).
 */
import { type DateTime, Result } from "effect"
import { accept, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import { NotFound, RuleViolated } from "../kernel/DomainError.ts"
import * as FieldChecks from "../kernel/FieldChecks.ts"
import type { TransferId } from "../kernel/Ids.ts"
import type * as Money from "../kernel/Money.ts"
import { returnReason } from "./ReturnCodes.ts"
import { checkedReturnCode, followedBy, illegal, notFound, type Outcome, otherMovement } from "./TransferChecks.ts"
import type { TransferEvent as Event, RefundId } from "./TransferEvents.ts"
import {
  heldByRefunds,
  type Refund,
  type ReturnedTransfer,
  refundsOf,
  type SettledTransfer,
  type State,
} from "./TransferState.ts"

export interface RefundTransfer {
  readonly _tag: "RefundTransfer"
  readonly transferId: TransferId
  /** New id from the edge; repeating the same refund (same id, same amount) changes nothing. */
  readonly refundId: RefundId
  readonly amount: Money.Money
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

export const refund = (command: RefundTransfer, state: State): Decision<Event> => {
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
export const refundNamed = (
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

export const originateRefund = (command: RecordRefundOrigination, state: State): Decision<Event> => {
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
export const recordRefundOutcome = (command: RecordRefundOutcome, state: State): Decision<Event> => {
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
      : followedBy(originated.success, state, (next) => recordRefundOutcome(unnamed, next))
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
