/**
 * The state of the Transfer aggregate (`Transfer.ts`) and how its events fold
 * into it: the movement Pending, Settled, Failed or Returned; a settled
 * transfer's refunds and reimbursement; the flags clients read (`summary`).
 */
import type { DateTime } from "effect"
import { byEvent } from "../kernel/Decider.ts"
import type * as Money from "../kernel/Money.ts"
import type * as MovementAttempts from "./MovementAttempts.ts"
import type {
  Of,
  RefundId,
  RefundStatus,
  ReimbursementProviderId,
  TransferEvent,
  TransferStatus,
} from "./TransferEvents.ts"

/** What the transfer moves, from whom to whom: fixed at initiation. */
export type TransferDetails = Omit<Of<"TransferInitiated">, "_tag" | "at"> & { readonly initiatedAt: DateTime.Utc }

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
// Evolve (total: an event that does not fit the state leaves it unchanged)

export const evolve: (state: State, event: TransferEvent) => State = byEvent<TransferEvent, State>({
  TransferInitiated: (state, event) => {
    if (state._tag !== "Initial") return state
    const { _tag, at, ...details } = event
    return { _tag: "Pending", details: { ...details, initiatedAt: at } }
  },
  TransferOriginated: (state, event) =>
    state._tag === "Pending" ? { ...state, providerReference: event.providerReference } : state,
  TransferSettled: (state, event) =>
    state._tag === "Pending"
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
      : state,
  TransferFailed: (state, event) =>
    state._tag === "Pending"
      ? {
          _tag: "Failed",
          details: state.details,
          // Stryker disable next-line ConditionalExpression: equivalent, a providerReference key holding undefined reads as none (every reader tests !== undefined)
          ...(state.providerReference === undefined ? {} : { providerReference: state.providerReference }),
          failedAt: event.at,
          // Stryker disable next-line ConditionalExpression: equivalent, a returnCode key holding undefined reads as none (no reader tells them apart)
          ...(event.returnCode === undefined ? {} : { returnCode: event.returnCode }),
          reason: event.reason,
        }
      : state,
  TransferReturned: (state, event) =>
    state._tag === "Settled"
      ? { ...state, _tag: "Returned", returnedAt: event.at, returnCode: event.returnCode, reason: event.reason }
      : state,
  TransferRefunded: (state, event) =>
    state._tag === "Settled"
      ? {
          ...state,
          refunds: [...state.refunds, { refundId: event.refundId, amount: event.amount, status: "Completed" }],
          refundedAmount: event.totalRefunded,
        }
      : state,
  TransferRefundRequested: (state, event) =>
    state._tag === "Settled"
      ? {
          ...state,
          refunds: [...state.refunds, { refundId: event.refundId, amount: event.amount, status: "Pending" }],
        }
      : state,
  TransferRefundOriginated: (state, event) =>
    withRefund(state, event.refundId, (refund) => ({ ...refund, providerReference: event.providerReference })),
  TransferRefundCompleted: (state, event) => {
    const next = withRefund(state, event.refundId, (refund) => ({ ...refund, status: "Completed" }))
    return next._tag === "Settled" || next._tag === "Returned" ? { ...next, refundedAmount: event.totalRefunded } : next
  },
  TransferRefundFailed: (state, event) => {
    return withRefund(state, event.refundId, (refund) => ({
      ...refund,
      status: "Failed",
      // Stryker disable next-line ConditionalExpression: equivalent, a returnCode key holding undefined reads as none (no reader tells them apart)
      ...(event.returnCode === undefined ? {} : { returnCode: event.returnCode }),
    }))
  },
  TransferOriginationDeferred: (state, event) => {
    const attempts = { failures: event.failures, firstFailedAt: event.firstFailedAt, retryAt: event.retryAt }
    if (event.refundId !== undefined)
      return withRefund(state, event.refundId, (refund) => ({ ...refund, originationAttempts: attempts }))
    return state._tag === "Pending" ? { ...state, originationAttempts: attempts } : state
  },
  TransferStatusDeferred: (state, event) => {
    const attempts = { failures: event.failures, firstFailedAt: event.firstFailedAt, retryAt: event.retryAt }
    if (event.refundId !== undefined)
      return withRefund(state, event.refundId, (refund) => ({ ...refund, statusAttempts: attempts }))
    return state._tag === "Pending" ? { ...state, statusAttempts: attempts } : state
  },
  TransferStatusResumed: (state, event) => {
    if (event.refundId !== undefined)
      return withRefund(state, event.refundId, ({ statusAttempts: _, ...refund }) => refund)
    // Stryker disable next-line ConditionalExpression: equivalent, only a Pending transfer holds statusAttempts: removing the key from another state changes nothing
    if (state._tag !== "Pending") return state
    const { statusAttempts: _, ...pending } = state
    return pending
  },
  TransferReimbursementApplied: (state, event) =>
    state._tag === "Settled"
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
      : state,
  TransferReimbursed: (state, event) =>
    state._tag === "Settled" && state.reimbursement._tag === "Applied"
      ? { ...state, reimbursement: { ...state.reimbursement, _tag: "Reimbursed", reimbursedAt: event.at } }
      : state,
})

/** The state with one refund changed (unchanged when the transfer has no such refund). */
const withRefund = (state: State, refundId: RefundId, change: (refund: Refund) => Refund): State =>
  state._tag === "Settled" || state._tag === "Returned"
    ? { ...state, refunds: state.refunds.map((refund) => (refund.refundId === refundId ? change(refund) : refund)) }
    : state

/** The status an event moves the transfer to, or undefined for an event that keeps it (one table). */
export const statusOf = (event: TransferEvent): TransferStatus | undefined => statusByEvent[event._tag]

const statusByEvent: { readonly [Tag in TransferEvent["_tag"]]: TransferStatus | undefined } = {
  TransferInitiated: "Pending",
  TransferSettled: "Settled",
  TransferFailed: "Failed",
  TransferReturned: "Returned",
  TransferOriginated: undefined,
  TransferRefunded: undefined,
  TransferRefundRequested: undefined,
  TransferRefundOriginated: undefined,
  TransferRefundCompleted: undefined,
  TransferRefundFailed: undefined,
  TransferOriginationDeferred: undefined,
  TransferStatusDeferred: undefined,
  TransferStatusResumed: undefined,
  TransferReimbursementApplied: undefined,
  TransferReimbursed: undefined,
}
