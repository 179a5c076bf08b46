/**
 * The reimbursement of a settled Transfer by a provider (`Transfer.ts`): the
 * payer applies for it (never for a refunded transfer, and a transfer applied
 * for is not refunded), signs the provider's claim, and the provider's
 * envelope status completes it.
 */
import type { DateTime } from "effect"
import { accept, type Decision, nothing } from "../kernel/Decider.ts"
import * as FieldChecks from "../kernel/FieldChecks.ts"
import type { TransferId } from "../kernel/Ids.ts"
import { illegal, notFound } from "./TransferChecks.ts"
import type { TransferEvent as Event, ReimbursementProviderId } from "./TransferEvents.ts"
import { heldByRefunds, type State } from "./TransferState.ts"

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

export const applyForReimbursement = (command: ApplyForReimbursement, state: State): Decision<Event> => {
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

export const completeReimbursement = (command: CompleteReimbursement, state: State): Decision<Event> => {
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
