/**
 * PaymentPlan: a company's recurring collection of a fixed amount from one
 * payer, on the schedule of `PaymentPlanSchedule`, only while the payer's
 * consent is Accepted (spec 2.16, changelog v0.4-v0.4.4).
 *
 * States: Draft (created, waiting for consent and activation), Active
 * (collecting), Paused, Cancelled and Completed (both terminal).
 *
 * The plan never reads the Consent aggregate. It learns the consent's status
 * through policy commands that `ConsentAnswerPolicy` derives from consent events
 * (RecordConsentAccepted, RecordConsentWithdrawn), and keeps its own view of
 * the consent: Pending, Accepted or Withdrawn. A withdrawn consent (declined
 * or revoked) can never be accepted again, so it cancels the plan.
 *
 * Collection is driven by the edge: a scheduler sends CollectInstalment for
 * the next due date once it has arrived, with the id of the payment request or
 * transfer it will use; the plan records each due date at most once, in
 * schedule order. Due dates that pass while the plan is not collecting (Draft
 * or Paused) are skipped when it is activated or resumed, never caught up.
 *
 * The plan learns what became of an instalment's transfer through the policy
 * command RecordInstalmentOutcome (`InstalmentOutcomePolicy`): the instalment
 * becomes Settled or Failed. A failed instalment is not collected again; the
 * plan goes on with its next due date (as GoCardless subscriptions do).
 */
import { DateTime, Schema } from "effect"
import * as CalendarDate from "../kernel/CalendarDate.ts"
import { type Aggregate, accept, byCommand, byEvent, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import {
  AlreadyExists,
  type DomainError,
  type FieldIssue,
  IllegalTransition,
  NotFound,
  RuleViolated,
  ValidationFailed,
} from "../kernel/DomainError.ts"
import type * as Ids from "../kernel/Ids.ts"
import * as Metadata from "../kernel/Metadata.ts"
import { WhoMayCollect } from "../payments/index.ts"
import type {
  ActivatePaymentPlan,
  CancelPaymentPlan,
  CollectInstalment,
  Command,
  CreatePaymentPlan,
  PausePaymentPlan,
  RecordConsentAccepted,
  RecordConsentWithdrawn,
  RecordInstalmentOutcome,
  ResumePaymentPlan,
  SetPaymentPlanMetadata,
} from "./PaymentPlanCommands.ts"
import type { CancellationReason, Of as EventOf, InstalmentStatus, PaymentPlanEvent } from "./PaymentPlanEvents.ts"
import * as PaymentPlanEvents from "./PaymentPlanEvents.ts"
import * as PaymentPlanSchedule from "./PaymentPlanSchedule.ts"
import * as PaymentPlanTerms from "./PaymentPlanTerms.ts"

export type * from "./PaymentPlanCommands.ts"
export { PaymentPlanEvent } from "./PaymentPlanEvents.ts"
export { maxDescriptionLength } from "./PaymentPlanTerms.ts"

/** The events of this aggregate. */
export type Event = PaymentPlanEvent

// ---------------------------------------------------------------------------
// State

/** The status a client sees. */
export const PlanStatus = Schema.Literals(["Draft", "Active", "Paused", "Cancelled", "Completed"])
export type PlanStatus = typeof PlanStatus.Type

/** The plan's knowledge of its consent, fed by the consent policy. */
export type PlanConsent = "Pending" | "Accepted" | "Withdrawn"

/** What the plan is, fixed at creation (`PaymentPlanTerms`), and when it was created. */
export interface PlanTerms extends PaymentPlanTerms.PlanTerms {
  readonly createdAt: DateTime.Utc
}

/** One collected instalment, the payment that collects it, and what became of it. */
export interface CollectedInstalment {
  readonly instalmentNumber: number
  readonly dueDate: CalendarDate.CalendarDate
  readonly paymentRequestId?: Ids.PaymentRequestId
  readonly transferId?: Ids.TransferId
  readonly status: InstalmentStatus
}

export interface Plan {
  readonly terms: PlanTerms
  readonly consent: PlanConsent
  /** Index in the schedule of the next due date to collect (every earlier one was collected or skipped). */
  readonly nextIndex: number
  readonly collected: ReadonlyArray<CollectedInstalment>
}

export type State =
  | { readonly _tag: "Initial" }
  | ({ readonly _tag: "Draft" | "Active" | "Paused" | "Completed" } & Plan)
  | ({ readonly _tag: "Cancelled"; readonly reason: CancellationReason } & Plan)

export type ExistingState = Exclude<State, { readonly _tag: "Initial" }>

export const initialState: State = { _tag: "Initial" }

export const statusOf = (state: State): PlanStatus | undefined => (state._tag === "Initial" ? undefined : state._tag)

export const isTerminal = (state: State): boolean => state._tag === "Cancelled" || state._tag === "Completed"

/** The next due date the plan will collect, if any is left (whether or not it has arrived). */
export const nextDueDate = (state: State): CalendarDate.CalendarDate | undefined =>
  // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent, an Initial state has no schedule and dueDateAt of no index is undefined (the test narrows the type)
  state._tag === "Initial" || isTerminal(state)
    ? undefined
    : PaymentPlanSchedule.dueDateAt(state.terms, state.nextIndex)

/** The calendar date (UTC) of an instant: "today" for a command. */
export const today = (at: DateTime.Utc): CalendarDate.CalendarDate =>
  CalendarDate.fromEpochMillis(DateTime.toEpochMillis(at))

// ---------------------------------------------------------------------------
// Decide

const entity = "PaymentPlan"

const illegal = (state: ExistingState, command: Command, reason: string) =>
  refuse(new IllegalTransition({ entity, state: state._tag, command: command._tag, reason }))

const planIds = (state: ExistingState) => ({
  paymentPlanId: state.terms.paymentPlanId,
  partnerId: state.terms.partnerId,
  companyId: state.terms.companyId,
})

const createPaymentPlan = (command: CreatePaymentPlan, state: State): Decision<Event> => {
  const { _tag, companyStatus, at, ...terms } = command
  if (state._tag !== "Initial") {
    // A retried creation with the same terms changes nothing; other terms under the same id are refused.
    return PaymentPlanTerms.same(state.terms, terms) ? nothing : refuse(new AlreadyExists({ entity }))
  }
  const issues = PaymentPlanTerms.issues(terms, today(at))
  if (issues.length > 0) return refuse(new ValidationFailed({ issues }))
  const unverified = WhoMayCollect.companyRefusal(companyStatus)
  if (unverified) return refuse(unverified)
  return accept<PaymentPlanEvent>({ _tag: "PaymentPlanCreated", ...terms, at })
}

const consentMismatch = (state: ExistingState, command: RecordConsentAccepted | RecordConsentWithdrawn) =>
  refuse(
    new RuleViolated({
      code: "CONSENT_MISMATCH",
      reason: `consent ${command.consentId} is not the consent of payment plan ${state.terms.paymentPlanId}`,
    }),
  )

const recordConsentAccepted = (command: RecordConsentAccepted, state: ExistingState): Decision<Event> => {
  if (state.terms.consentId !== command.consentId) return consentMismatch(state, command)
  // A finished plan has no use for the news; an accepted consent is already known; a withdrawn
  // consent is final, so a late acceptance (redelivered event) cannot revive it.
  if (isTerminal(state) || state.consent !== "Pending") return nothing
  return accept<PaymentPlanEvent>({
    _tag: "PaymentPlanConsentAccepted",
    ...planIds(state),
    consentId: command.consentId,
    at: command.at,
  })
}

const recordConsentWithdrawn = (command: RecordConsentWithdrawn, state: ExistingState): Decision<Event> => {
  if (state.terms.consentId !== command.consentId) return consentMismatch(state, command)
  // A withdrawn consent already cancelled the plan (below), so an ended plan covers it.
  if (isTerminal(state)) return nothing
  // The consent can never be accepted again, so the plan can never collect again: it is cancelled.
  return accept<PaymentPlanEvent>(
    {
      _tag: "PaymentPlanConsentWithdrawn",
      ...planIds(state),
      consentId: command.consentId,
      withdrawal: command.withdrawal,
      at: command.at,
    },
    {
      _tag: "PaymentPlanCancelled",
      ...planIds(state),
      reason:
        command.withdrawal === "Declined"
          ? "ConsentDeclined"
          : command.returnCode === undefined
            ? "ConsentRevoked"
            : "UnauthorizedReturn",
      at: command.at,
    },
  )
}

/** Due dates from the next one up to (excluding) `before` that were never collected: skipped on (re)activation. */
const passedDueDates = (state: ExistingState, before: CalendarDate.CalendarDate): Array<CalendarDate.CalendarDate> => {
  const passed: Array<CalendarDate.CalendarDate> = []
  for (let index = state.nextIndex; ; index++) {
    const date = PaymentPlanSchedule.dueDateAt(state.terms, index)
    // Stryker disable next-line ConditionalExpression: equivalent, a missing date compares as not before `before` and also ends the list (the test narrows the type)
    if (date === undefined) return passed
    if (CalendarDate.compare(date, before) >= 0) return passed
    passed.push(date)
  }
}

const completedIfExhausted = (state: ExistingState, nextIndex: number, collected: number, at: DateTime.Utc) =>
  PaymentPlanSchedule.isPastEnd(state.terms, nextIndex)
    ? [{ _tag: "PaymentPlanCompleted" as const, ...planIds(state), instalmentsCollected: collected, at }]
    : []

const consentNotAccepted = (state: ExistingState) =>
  refuse(
    new RuleViolated({
      code: "CONSENT_NOT_ACCEPTED",
      reason: `the payer's consent is ${state.consent}; a plan collects only with an Accepted consent`,
    }),
  )

/** Activated or Resumed: skip the due dates that passed, and complete the plan if none is left. */
const startCollecting = (
  tag: "PaymentPlanActivated" | "PaymentPlanResumed",
  state: ExistingState,
  at: DateTime.Utc,
) => {
  const skippedDueDates = passedDueDates(state, today(at))
  return accept<PaymentPlanEvent>(
    { _tag: tag, ...planIds(state), skippedDueDates, at },
    ...completedIfExhausted(state, state.nextIndex + skippedDueDates.length, state.collected.length, at),
  )
}

/** One function per status of an existing plan: what a command does in each (the compiler checks every status). */
const byStatus =
  <C extends Command>(
    table: {
      readonly [Tag in ExistingState["_tag"]]: (command: C, state: ExistingState) => Decision<Event>
    },
  ) =>
  (command: C, state: ExistingState): Decision<Event> =>
    table[state._tag](command, state)

const unchanged = () => nothing

/** A Cancelled or Completed plan refuses the command: it has ended. */
const hasEnded =
  (verb: string) =>
  (command: Command, state: ExistingState): Decision<Event> =>
    illegal(state, command, `a ${state._tag} plan cannot be ${verb}`)

const activate = byStatus<ActivatePaymentPlan>({
  Draft: (command, state) =>
    state.consent === "Accepted"
      ? startCollecting("PaymentPlanActivated", state, command.at)
      : consentNotAccepted(state),
  Active: unchanged,
  Paused: (command, state) => illegal(state, command, "the plan is paused: resume it instead"),
  Cancelled: hasEnded("activated"),
  Completed: hasEnded("activated"),
})

const pause = byStatus<PausePaymentPlan>({
  Active: (command, state) =>
    accept<PaymentPlanEvent>({ _tag: "PaymentPlanPaused", ...planIds(state), at: command.at }),
  Paused: unchanged,
  Draft: (command, state) =>
    illegal(state, command, "a Draft plan is not collecting yet: only an Active plan can be paused"),
  Cancelled: hasEnded("paused"),
  Completed: hasEnded("paused"),
})

const resume = byStatus<ResumePaymentPlan>({
  Paused: (command, state) =>
    // Stryker disable next-line ConditionalExpression: equivalent, a plan is activated only with an Accepted consent and a withdrawal cancels it, so a Paused plan's consent is Accepted; kept as the rule's guard
    state.consent === "Accepted" ? startCollecting("PaymentPlanResumed", state, command.at) : consentNotAccepted(state),
  Active: unchanged,
  Draft: (command, state) => illegal(state, command, "a Draft plan was never active: activate it instead"),
  Cancelled: hasEnded("resumed"),
  Completed: hasEnded("resumed"),
})

const cancel = (command: CancelPaymentPlan, state: ExistingState): Decision<Event> => {
  switch (state._tag) {
    case "Draft":
    case "Active":
    case "Paused":
      return accept<PaymentPlanEvent>({
        _tag: "PaymentPlanCancelled",
        ...planIds(state),
        reason: "CancelledByCompany",
        at: command.at,
      })
    case "Cancelled":
      return nothing
    case "Completed":
      return illegal(state, command, "a Completed plan has nothing left to cancel")
  }
}

const validateCollect = (command: CollectInstalment): ReadonlyArray<FieldIssue> => {
  const hasRequest = command.paymentRequestId !== undefined
  const hasTransfer = command.transferId !== undefined
  if (hasRequest && hasTransfer) {
    return [{ field: "transferId", message: "give either paymentRequestId or transferId, not both" }]
  }
  if (!hasRequest && !hasTransfer) {
    return [
      { field: "paymentRequestId", message: "either paymentRequestId or transferId is required" },
      { field: "transferId", message: "either paymentRequestId or transferId is required" },
    ]
  }
  return []
}

const collect = (command: CollectInstalment, state: ExistingState): Decision<Event> => {
  const issues = validateCollect(command)
  if (issues.length > 0) return refuse(new ValidationFailed({ issues }))
  const already = state.collected.find((instalment) => instalment.dueDate === command.dueDate)
  if (already !== undefined) {
    // A retry (same payment) changes nothing; a second, different payment for one due date is refused.
    return already.paymentRequestId === command.paymentRequestId && already.transferId === command.transferId
      ? nothing
      : refuse(
          new RuleViolated({
            code: "INSTALMENT_ALREADY_COLLECTED",
            reason: `the instalment due ${command.dueDate} was already collected by another payment`,
          }),
        )
  }
  if (state._tag !== "Active") return illegal(state, command, `a ${state._tag} plan collects nothing`)
  // Stryker disable next-line ConditionalExpression: equivalent, a plan is activated only with an Accepted consent and a withdrawal cancels it, so an Active plan's consent is Accepted; kept as the rule's guard before money moves
  if (state.consent !== "Accepted") return consentNotAccepted(state)
  // An Active plan has a next due date: it completed when its last one was collected or skipped.
  const next = PaymentPlanSchedule.dueDateAt(state.terms, state.nextIndex)
  if (command.dueDate !== next) {
    return refuse(
      new RuleViolated({
        code: "NOT_NEXT_INSTALMENT",
        reason: `the next instalment of the plan is due ${next}, not ${command.dueDate}`,
      }),
    )
  }
  const collectedOn = today(command.at)
  if (CalendarDate.compare(command.dueDate, collectedOn) > 0) {
    return refuse(
      new RuleViolated({
        code: "INSTALMENT_NOT_DUE",
        reason: `the instalment due ${command.dueDate} cannot be collected on ${collectedOn}`,
      }),
    )
  }
  return accept<PaymentPlanEvent>(
    {
      _tag: "InstalmentCollected",
      ...planIds(state),
      consentId: state.terms.consentId,
      payerRegistrationId: state.terms.payerRegistrationId,
      dueDate: command.dueDate,
      instalmentNumber: state.nextIndex + 1,
      amount: state.terms.amount,
      ...(command.paymentRequestId !== undefined ? { paymentRequestId: command.paymentRequestId } : {}),
      ...(command.transferId !== undefined ? { transferId: command.transferId } : {}),
      at: command.at,
    },
    ...completedIfExhausted(state, state.nextIndex + 1, state.collected.length + 1, command.at),
  )
}

const recordInstalmentOutcome = (command: RecordInstalmentOutcome, state: ExistingState): Decision<Event> => {
  // Whatever the plan's status (a cancelled or completed plan still learns what its last transfers became).
  const instalment = state.collected.find((collected) => collected.transferId === command.transferId)
  if (instalment === undefined) {
    return refuse(
      new RuleViolated({
        code: "UNKNOWN_INSTALMENT_TRANSFER",
        reason: `transfer ${command.transferId} collects no instalment of payment plan ${state.terms.paymentPlanId}`,
      }),
    )
  }
  // A settled instalment can still be returned; otherwise an outcome is final: a repeat (or a late,
  // contradicting one) changes nothing.
  const returning = command.outcome._tag === "Returned" && instalment.status === "Settled"
  if (instalment.status !== "Pending" && !returning) return nothing
  const fields = {
    ...planIds(state),
    instalmentNumber: instalment.instalmentNumber,
    dueDate: instalment.dueDate,
    transferId: command.transferId,
    at: command.at,
  }
  switch (command.outcome._tag) {
    case "Settled":
      return accept<PaymentPlanEvent>({ _tag: "InstalmentSettled", ...fields })
    case "Failed":
      return accept<PaymentPlanEvent>({
        _tag: "InstalmentFailed",
        ...fields,
        ...(command.outcome.returnCode === undefined ? {} : { returnCode: command.outcome.returnCode }),
        reason: command.outcome.reason,
      })
    case "Returned": {
      const returned: PaymentPlanEvent = {
        _tag: "InstalmentReturned",
        ...fields,
        returnCode: command.outcome.returnCode,
        reason: command.outcome.reason,
      }
      // Returned before its settlement was recorded: it settled, then came back.
      return returning
        ? accept<PaymentPlanEvent>(returned)
        : accept<PaymentPlanEvent>({ _tag: "InstalmentSettled", ...fields }, returned)
    }
  }
}

/** Metadata is the partner's own data: replaced whole, in any status; the same metadata again changes nothing. */
const setMetadata = (command: SetPaymentPlanMetadata, state: ExistingState): Decision<Event> => {
  if (command.partnerId !== state.terms.partnerId) return refuse(new NotFound({ entity }))
  const issues = Metadata.issues("metadata", command.metadata)
  if (issues.length > 0) return refuse(new ValidationFailed({ issues }))
  if (Metadata.equals(state.terms.metadata ?? Metadata.empty, command.metadata)) return nothing
  return accept<PaymentPlanEvent>({
    _tag: "PaymentPlanMetadataSet",
    paymentPlanId: state.terms.paymentPlanId,
    partnerId: state.terms.partnerId,
    companyId: state.terms.companyId,
    metadata: command.metadata,
    at: command.at,
  })
}

/** Every command on a plan that exists, each to its function. */
const decideExisting = byCommand<Exclude<Command, CreatePaymentPlan>, ExistingState, Event>({
  RecordConsentAccepted: recordConsentAccepted,
  RecordConsentWithdrawn: recordConsentWithdrawn,
  ActivatePaymentPlan: activate,
  PausePaymentPlan: pause,
  ResumePaymentPlan: resume,
  CancelPaymentPlan: cancel,
  CollectInstalment: collect,
  RecordInstalmentOutcome: recordInstalmentOutcome,
  SetPaymentPlanMetadata: setMetadata,
})

export const decide = (command: Command, state: State): Decision<Event> => {
  if (command._tag === "CreatePaymentPlan") return createPaymentPlan(command, state)
  if (state._tag === "Initial") return refuse(new NotFound({ entity }))
  return decideExisting(command, state)
}

// ---------------------------------------------------------------------------
// Evolve

/** Whether a plan in `state` has ended (Cancelled or Completed): no status event moves it again. */
const ended = (state: State): boolean => state._tag === "Cancelled" || state._tag === "Completed"

/** Activated moves a Draft, Resumed a Paused plan (skipping the due dates that passed); anything else does not fit. */
const collecting =
  (from: "Draft" | "Paused") =>
  (state: ExistingState, event: { readonly skippedDueDates: ReadonlyArray<unknown> }): State =>
    state._tag === from
      ? { ...state, _tag: "Active", nextIndex: state.nextIndex + event.skippedDueDates.length }
      : state

/** An instalment's transfer settled, failed or came back: the instalment takes that status. */
const instalmentIs =
  (status: InstalmentStatus) =>
  (state: ExistingState, event: { readonly transferId: CollectedInstalment["transferId"] }): State => ({
    ...state,
    collected: state.collected.map((instalment) =>
      instalment.transferId === event.transferId ? { ...instalment, status } : instalment,
    ),
  })

/** Every event of a plan that exists. */
const evolveExisting = byEvent<Exclude<Event, EventOf<"PaymentPlanCreated">>, ExistingState, State>({
  PaymentPlanConsentAccepted: (state) => ({ ...state, consent: "Accepted" }),
  PaymentPlanConsentWithdrawn: (state) => ({ ...state, consent: "Withdrawn" }),
  PaymentPlanActivated: collecting("Draft"),
  PaymentPlanResumed: collecting("Paused"),
  PaymentPlanPaused: (state) => (state._tag === "Active" ? { ...state, _tag: "Paused" } : state),
  PaymentPlanCancelled: (state, event) =>
    ended(state) ? state : { ...state, _tag: "Cancelled", reason: event.reason },
  InstalmentCollected: (state, event) => {
    const { instalmentNumber, dueDate, paymentRequestId, transferId } = event
    return {
      ...state,
      nextIndex: state.nextIndex + 1,
      collected: [
        ...state.collected,
        {
          instalmentNumber,
          dueDate,
          ...(paymentRequestId === undefined ? {} : { paymentRequestId }),
          ...(transferId === undefined ? {} : { transferId }),
          status: "Pending",
        },
      ],
    }
  },
  PaymentPlanCompleted: (state) => (ended(state) ? state : { ...state, _tag: "Completed" }),
  PaymentPlanMetadataSet: (state, event) => ({ ...state, terms: { ...state.terms, metadata: event.metadata } }),
  InstalmentSettled: instalmentIs("Settled"),
  InstalmentFailed: instalmentIs("Failed"),
  InstalmentReturned: instalmentIs("Returned"),
})

export const evolve = (state: State, event: Event): State => {
  if (event._tag === "PaymentPlanCreated") {
    if (state._tag !== "Initial") return state
    const { _tag, at, ...terms } = event
    return { _tag: "Draft", terms: { ...terms, createdAt: at }, consent: "Pending", nextIndex: 0, collected: [] }
  }
  return state._tag === "Initial" ? state : evolveExisting(state, event)
}

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "PaymentPlan",
  initialState,
  decide,
  evolve,
  events: PaymentPlanEvents.PaymentPlanEvent,
  eventVersion: () => 1,
}
