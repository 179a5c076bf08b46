/**
 * What the Transfer's decisions share (`Transfer.ts`, `TransferRefunds.ts`,
 * `TransferOutages.ts`, `TransferReimbursement.ts`): an outcome as the domain
 * decides on it, the refusals, and the check of a return code.
 */
import { Result } from "effect"
import { accept, type Decision, refuse } from "../kernel/Decider.ts"
import { IllegalTransition, NotFound, RuleViolated, type ValidationFailed } from "../kernel/DomainError.ts"
import * as FieldChecks from "../kernel/FieldChecks.ts"
import * as ReturnCodes from "./ReturnCodes.ts"
import type { TransferEvent as Event } from "./TransferEvents.ts"
import { evolve, type State } from "./TransferState.ts"

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

/** The refusal of a command the transfer's state does not allow. */
export const illegal = (state: State, command: { readonly _tag: string }, reason: string) =>
  refuse(new IllegalTransition({ entity: "Transfer", state: state._tag, command: command._tag, reason }))

/** The refusal of a command for a transfer that does not exist. */
export const notFound = refuse(new NotFound({ entity: "Transfer" }))

/** The teller named another movement than the one recorded. */
export const otherMovement = (what: "transfer" | "refund"): Decision<Event> =>
  refuse(
    new RuleViolated({
      code: "OTHER_MOVEMENT",
      reason: `the provider reference is not the one recorded for this ${what}`,
    }),
  )

/** The events `first` then those `next` decides on the state they lead to. */
export const followedBy = (
  first: ReadonlyArray<Event>,
  state: State,
  next: (state: State) => Decision<Event>,
): Decision<Event> => {
  const decided = next(first.reduce(evolve, state))
  return Result.isFailure(decided) ? decided : accept(...first, ...decided.success)
}

/** A return code of the table (a refusal's reason: text), else the refusal naming `returnCode` (`reason`). */
export const checkedReturnCode = (outcome: Outcome): Result.Result<never, ValidationFailed> | undefined => {
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
