/**
 * The Payout aggregate: one credit of a company's available balance to its
 * payout account (GET /Payouts/{payoutId}), with its items: the ledger
 * entries it pays out, which add up to its amount exactly.
 *
 * Pending -> Paid | Failed. It is created by `PayoutCreationPolicy.ts` when
 * the company's balance is paid out (`Balance.PayOutBalance`), originated
 * through `MoneyMovement.originatePayout` (idempotency key: the payout id;
 * `PayoutOriginated` records the provider's reference), and its outcome is
 * recorded by one entry point whatever its path (polling `MoneyMovement.status`
 * or the provider's notification): Settled makes it Paid, Failed or Returned
 * makes it Failed with the ACH return code and its description
 * (`ReturnCodes.ts`); a failed payout's items go back to the balance
 * (`PayoutOutcomePolicy.ts`). A return after Paid (the receiving bank sent the
 * money back) also makes it Failed. Repeating an outcome changes nothing.
 *
 * State table: packages/domain/docs/Payout.md.
 */
import { DateTime } from "effect"
import { CompanyPayoutAccount } from "../companies/index.ts"
import * as CalendarDate from "../kernel/CalendarDate.ts"
import { type Aggregate, accept, byCommand, byEvent, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import { type DomainError, refusalsOf, ValidationFailed } from "../kernel/DomainError.ts"
import type { PayoutId } from "../kernel/Ids.ts"
import { type MoneyMovement, MovementAttempts, ReturnCodes, Transfer } from "../payments/index.ts"
import * as Ledger from "./Ledger.ts"
import { type Of as EventOf, PayoutEvent, type PayoutStatus } from "./PayoutEvents.ts"

// ---------------------------------------------------------------------------
// Commands

/** Creates a payout with its details (`PayoutCreated`); absent direction: Credit. */
export interface CreatePayout extends Omit<EventOf<"PayoutCreated">, "_tag" | "at"> {
  readonly _tag: "CreatePayout"
  readonly at: DateTime.Utc
}

export interface RecordPayoutOrigination {
  readonly _tag: "RecordPayoutOrigination"
  readonly payoutId: PayoutId
  readonly providerReference: string
  readonly at: DateTime.Utc
}

/**
 * A payout's outcome: the provider's (polled or notified), or Refused: the rail would not originate
 * it (`code` is the provider's refusal code, `reason` its words).
 */
export type PayoutOutcome =
  | MoneyMovement.MovementOutcome
  | { readonly status: "Refused"; readonly code: string; readonly reason: string }

export interface RecordPayoutOutcome {
  readonly _tag: "RecordPayoutOutcome"
  readonly payoutId: PayoutId
  readonly outcome: PayoutOutcome
  readonly at: DateTime.Utc
}

/**
 * The rail could not be reached to originate the payout (`MovementAttempts.ts`): a Pending payout not
 * originated is deferred with backoff, or Failed (no return code) once the outage lasted the limit.
 */
export interface RecordPayoutUnavailable {
  readonly _tag: "RecordPayoutUnavailable"
  readonly payoutId: PayoutId
  readonly reason: string
  readonly jitter: number
  readonly backoff?: MovementAttempts.Backoff
  readonly at: DateTime.Utc
}

/**
 * The rail could not be reached to ask where the originated payout stands (`MovementAttempts.ts`, the
 * origination's backoff): a Pending payout originated is deferred (its status not asked before
 * `retryAt`), or Failed (no return code) once the outage lasted the limit.
 */
export interface RecordPayoutStatusUnavailable {
  readonly _tag: "RecordPayoutStatusUnavailable"
  readonly payoutId: PayoutId
  readonly reason: string
  readonly jitter: number
  readonly backoff?: MovementAttempts.Backoff
  readonly at: DateTime.Utc
}

/** The rail answered the payout's status (still Pending): a status outage recorded is over. */
export interface RecordPayoutStatusAnswered {
  readonly _tag: "RecordPayoutStatusAnswered"
  readonly payoutId: PayoutId
  readonly at: DateTime.Utc
}

export type Command =
  | CreatePayout
  | RecordPayoutOrigination
  | RecordPayoutOutcome
  | RecordPayoutUnavailable
  | RecordPayoutStatusUnavailable
  | RecordPayoutStatusAnswered
export type Event = PayoutEvent

// ---------------------------------------------------------------------------
// State

export type PayoutDetails = Omit<EventOf<"PayoutCreated">, "_tag" | "at"> & { readonly createdAt: DateTime.Utc }

export type State =
  | { readonly _tag: "Initial" }
  | {
      readonly _tag: "Pending"
      readonly details: PayoutDetails
      readonly providerReference?: string
      readonly originationAttempts?: MovementAttempts.Attempts
      /** Its status question deferred while the rail is unavailable. */
      readonly statusAttempts?: MovementAttempts.Attempts
    }
  | {
      readonly _tag: "Paid"
      readonly details: PayoutDetails
      readonly providerReference?: string
      readonly paidAt: DateTime.Utc
    }
  | {
      readonly _tag: "Failed"
      readonly details: PayoutDetails
      readonly providerReference?: string
      readonly failedAt: DateTime.Utc
      readonly returnCode?: string
      readonly reason: string
    }

export const initialState: State = { _tag: "Initial" }

/** The status a client reads, or undefined before creation. */
export const statusOf = (state: State): PayoutStatus | undefined => (state._tag === "Initial" ? undefined : state._tag)

/** The code of a payout failed because its company replaced the payout account before it left. */
export const accountChangedCode = "ACCOUNT_CHANGED"

/**
 * Why a code failed a payout: the ACH table's description, ours for `ACCOUNT_CHANGED`, else the code
 * itself (a provider's own code).
 */
export const reasonOf = (returnCode: string): string =>
  ReturnCodes.isReturnCode(returnCode)
    ? ReturnCodes.describe(returnCode)
    : returnCode === accountChangedCode
      ? "the payout account was replaced before the payout left; its money goes out with the next payout"
      : `failed with code ${returnCode}`

/**
 * When a payout created at `at` is expected on the account: the next business day (ACH credits
 * arrive the next banking day; Saturday and Sunday are not).
 */
export const arrivalDateOf = (at: DateTime.Utc): CalendarDate.CalendarDate => {
  const day = CalendarDate.toEpochDay(CalendarDate.fromEpochMillis(DateTime.toEpochMillis(at)))
  // Epoch day 0 (1970-01-01) was a Thursday: (day + 4) % 7 is 0 on Sunday, 6 on Saturday.
  const weekday = (d: number) => (((d + 4) % 7) + 7) % 7
  let next = day + 1
  while (weekday(next) === 0 || weekday(next) === 6) next += 1
  return CalendarDate.fromEpochDay(next)
}

// ---------------------------------------------------------------------------
// Decide

const refusals = refusalsOf("Payout")
const notFound = refuse(refusals.notFound)

const create = (command: CreatePayout, state: State): Decision<Event> => {
  if (state._tag !== "Initial") return refuse(refusals.alreadyExists)
  if (command.amount.minorUnits <= 0) return refuse(ValidationFailed.of("amount", "must be greater than zero"))
  // No items add up to 0, which is not a payout's amount: the sum refuses an empty list.
  const sum = Ledger.sumOf(command.items, command.amount.currency)
  const sameCurrency = command.items.every((item) => item.amount.currency === command.amount.currency)
  const expected = command.direction === "Debit" ? -command.amount.minorUnits : command.amount.minorUnits
  if (!sameCurrency || sum !== expected)
    return refuse(ValidationFailed.of("items", "must be entries of the payout's currency adding up to its amount"))
  const { _tag, at, direction, ...details } = command
  return accept<Event>({ _tag: "PayoutCreated", ...details, ...(direction === "Debit" ? { direction } : {}), at })
}

const recordOrigination = (command: RecordPayoutOrigination, state: State): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  if (state.providerReference !== undefined) {
    return state.providerReference === command.providerReference
      ? nothing
      : refuse(refusals.illegal(state, command, "the payout was already originated under another reference"))
  }
  return accept<Event>({
    _tag: "PayoutOriginated",
    payoutId: state.details.payoutId,
    providerReference: command.providerReference,
    at: command.at,
  })
}

const failed = (state: Exclude<State, { _tag: "Initial" }>, returnCode: string, at: DateTime.Utc): Decision<Event> =>
  accept<Event>({
    _tag: "PayoutFailed",
    payoutId: state.details.payoutId,
    returnCode,
    reason: reasonOf(returnCode),
    ...(CompanyPayoutAccount.isAccountLevel(returnCode) ? { accountLevel: true } : {}),
    at,
  })

/** The rail refused to originate the payout: Failed with no return code, the rail's words as the reason. */
const refused = (
  state: Exclude<State, { _tag: "Initial" }>,
  outcome: { readonly code: string; readonly reason: string },
  at: DateTime.Utc,
): Decision<Event> =>
  accept<Event>({
    _tag: "PayoutFailed",
    payoutId: state.details.payoutId,
    reason: Transfer.refusalReason(outcome.reason),
    ...(CompanyPayoutAccount.isAccountLevel(outcome.code) ? { accountLevel: true } : {}),
    at,
  })

const recordOutcome = (command: RecordPayoutOutcome, state: State): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  const outcome = command.outcome
  switch (state._tag) {
    case "Pending":
      switch (outcome.status) {
        case "Pending":
          return nothing
        case "Settled":
          return accept<Event>({ _tag: "PayoutPaid", payoutId: state.details.payoutId, at: command.at })
        case "Failed":
        case "Returned":
          return failed(state, outcome.returnCode, command.at)
        case "Refused":
          return refused(state, outcome, command.at)
      }
      break
    case "Paid":
      // A return after payment sends the money back: the payout failed after all.
      return outcome.status === "Returned" ? failed(state, outcome.returnCode, command.at) : nothing
    case "Failed":
      return nothing
  }
}

/**
 * The rail was unreachable: defer the payout's origination (not originated yet) or its status question
 * (originated) with backoff, or fail it once the outage lasted the limit. Either question is asked of a
 * Pending payout only, and the other one's outage changes nothing.
 */
const deferredOr =
  (deferred: "PayoutOriginationDeferred" | "PayoutStatusDeferred") =>
  (command: RecordPayoutUnavailable | RecordPayoutStatusUnavailable, state: State): Decision<Event> => {
    if (state._tag === "Initial") return notFound
    const originating = deferred === "PayoutOriginationDeferred"
    if (state._tag !== "Pending" || (state.providerReference === undefined) !== originating) return nothing
    const reason = Transfer.refusalReason(command.reason)
    const attempts = originating ? state.originationAttempts : state.statusAttempts
    const next = MovementAttempts.afterUnavailable(attempts, command.at, command.jitter, reason, command.backoff)
    return next._tag === "GiveUp"
      ? accept<Event>({ _tag: "PayoutFailed", payoutId: state.details.payoutId, reason: next.reason, at: command.at })
      : accept<Event>({ _tag: deferred, payoutId: state.details.payoutId, ...next.attempts, reason, at: command.at })
  }

const statusAnswered = (command: RecordPayoutStatusAnswered, state: State): Decision<Event> => {
  if (state._tag === "Initial") return notFound
  // Stryker disable next-line ConditionalExpression: equivalent, only a Pending payout holds statusAttempts (the test narrows the type)
  return state._tag === "Pending" && state.statusAttempts !== undefined
    ? accept<Event>({ _tag: "PayoutStatusResumed", payoutId: state.details.payoutId, at: command.at })
    : nothing
}

export const decide: (command: Command, state: State) => Decision<Event> = byCommand<Command, State, Event>({
  CreatePayout: create,
  RecordPayoutOrigination: recordOrigination,
  RecordPayoutOutcome: recordOutcome,
  RecordPayoutUnavailable: deferredOr("PayoutOriginationDeferred"),
  RecordPayoutStatusUnavailable: deferredOr("PayoutStatusDeferred"),
  RecordPayoutStatusAnswered: statusAnswered,
})

// ---------------------------------------------------------------------------
// Evolve

const withReference = (state: Exclude<State, { _tag: "Initial" }>) =>
  // Stryker disable next-line ConditionalExpression: equivalent, a providerReference key holding undefined reads as none (every reader tests `!== undefined`)
  state.providerReference === undefined ? {} : { providerReference: state.providerReference }

/** The attempts an outage event records. */
const attemptsOf = (event: MovementAttempts.Attempts): MovementAttempts.Attempts => ({
  failures: event.failures,
  firstFailedAt: event.firstFailedAt,
  retryAt: event.retryAt,
})

export const evolve: (state: State, event: Event) => State = byEvent<Event, State>({
  PayoutCreated: (state, event) => {
    if (state._tag !== "Initial") return state
    const { _tag, at, ...details } = event
    return { _tag: "Pending", details: { ...details, createdAt: at } }
  },
  PayoutOriginated: (state, event) =>
    state._tag === "Initial" ? state : { ...state, providerReference: event.providerReference },
  PayoutPaid: (state, event) =>
    state._tag === "Pending"
      ? { _tag: "Paid", details: state.details, ...withReference(state), paidAt: event.at }
      : state,
  PayoutOriginationDeferred: (state, event) =>
    state._tag === "Pending" ? { ...state, originationAttempts: attemptsOf(event) } : state,
  PayoutStatusDeferred: (state, event) =>
    state._tag === "Pending" ? { ...state, statusAttempts: attemptsOf(event) } : state,
  PayoutStatusResumed: (state) => {
    // Stryker disable next-line ConditionalExpression: equivalent, only a Pending payout holds statusAttempts: removing the key from another state changes nothing
    if (state._tag !== "Pending") return state
    const { statusAttempts: _, ...pending } = state
    return pending
  },
  PayoutFailed: (state, event) =>
    state._tag === "Pending" || state._tag === "Paid"
      ? {
          _tag: "Failed",
          details: state.details,
          ...withReference(state),
          failedAt: event.at,
          // Stryker disable next-line ConditionalExpression: equivalent, a returnCode key holding undefined reads as none (every reader tests `!== undefined`)
          ...(event.returnCode === undefined ? {} : { returnCode: event.returnCode }),
          reason: event.reason,
        }
      : state,
})

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "Payout",
  initialState,
  decide,
  evolve,
  events: PayoutEvent,
  eventVersion: () => 1,
}
