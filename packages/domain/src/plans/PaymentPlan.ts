/**
 * PaymentPlan: a company's recurring collection of a fixed amount from one
 * payer, on the schedule of `PaymentPlanSchedule`, only while the payer's
 * consent is Accepted (spec 2.16, changelog v0.4-v0.4.4).
 *
 * States: Draft (created, waiting for consent and activation), Active
 * (collecting), Paused, Cancelled and Completed (both terminal).
 *
 * The plan never reads the Consent aggregate. It learns the consent's status
 * through policy commands that `consentPolicy` derives from consent events
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
import { type Aggregate, accept, type Decision, nothing, refuse } from "../kernel/Decider.ts"
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
import * as Money from "../kernel/Money.ts"
import { WhoMayCollect } from "../payments/index.ts"
import type { ConsentEvent } from "./ConsentEvents.ts"
import type { CancellationReason, ConsentWithdrawal, InstalmentStatus, PaymentPlanEvent } from "./PaymentPlanEvents.ts"
import * as PaymentPlanEvents from "./PaymentPlanEvents.ts"
import type { Frequency } from "./PaymentPlanSchedule.ts"
import * as PaymentPlanSchedule from "./PaymentPlanSchedule.ts"

export { PaymentPlanEvent } from "./PaymentPlanEvents.ts"

// ---------------------------------------------------------------------------
// Commands

/** The company creates a plan (the HTTP layer requests its Pending consent in the same operation). */
export interface CreatePaymentPlan {
  readonly _tag: "CreatePaymentPlan"
  readonly paymentPlanId: Ids.PaymentPlanId
  readonly consentId: Ids.ConsentId
  readonly partnerId: Ids.PartnerId
  readonly companyId: Ids.CompanyId
  /** The company's KYB status (read by the edge): only a Verified company collects (`WhoMayCollect`). */
  readonly companyStatus: WhoMayCollect.CompanyStatus
  readonly payerRegistrationId: Ids.RegistrationId
  readonly amount: Money.Money
  readonly frequency: Frequency
  readonly recurrenceInterval: number
  readonly startDate: CalendarDate.CalendarDate
  readonly numberOfPayments?: number
  readonly endDate?: CalendarDate.CalendarDate
  /** The company's free text about the plan (at most `maxDescriptionLength` characters). */
  readonly description?: string
  /** The partner's metadata (`Metadata` rules). */
  readonly metadata?: Metadata.Metadata
  readonly at: DateTime.Utc
}

/** Longest description of a plan. */
export const maxDescriptionLength = 500

/** Policy command: the plan's consent was accepted by the payer. */
export interface RecordConsentAccepted {
  readonly _tag: "RecordConsentAccepted"
  readonly paymentPlanId: Ids.PaymentPlanId
  readonly consentId: Ids.ConsentId
  readonly at: DateTime.Utc
}

/** Policy command: the plan's consent was declined (while Pending) or revoked (after acceptance). */
export interface RecordConsentWithdrawn {
  readonly _tag: "RecordConsentWithdrawn"
  readonly paymentPlanId: Ids.PaymentPlanId
  readonly consentId: Ids.ConsentId
  readonly withdrawal: ConsentWithdrawal
  /** The unauthorized return that revoked the consent, when one did. */
  readonly returnCode?: string
  readonly at: DateTime.Utc
}

export interface ActivatePaymentPlan {
  readonly _tag: "ActivatePaymentPlan"
  readonly paymentPlanId: Ids.PaymentPlanId
  readonly at: DateTime.Utc
}

export interface PausePaymentPlan {
  readonly _tag: "PausePaymentPlan"
  readonly paymentPlanId: Ids.PaymentPlanId
  readonly at: DateTime.Utc
}

export interface ResumePaymentPlan {
  readonly _tag: "ResumePaymentPlan"
  readonly paymentPlanId: Ids.PaymentPlanId
  readonly at: DateTime.Utc
}

export interface CancelPaymentPlan {
  readonly _tag: "CancelPaymentPlan"
  readonly paymentPlanId: Ids.PaymentPlanId
  readonly at: DateTime.Utc
}

/**
 * The edge collects the instalment due on `dueDate`, through exactly one of a
 * payment request or a transfer whose id it allocated beforehand.
 */
export interface CollectInstalment {
  readonly _tag: "CollectInstalment"
  readonly paymentPlanId: Ids.PaymentPlanId
  readonly dueDate: CalendarDate.CalendarDate
  readonly paymentRequestId?: Ids.PaymentRequestId
  readonly transferId?: Ids.TransferId
  readonly at: DateTime.Utc
}

/**
 * Policy command: the bank settled, failed or (after settlement) returned the transfer `transferId`
 * collecting one of the plan's instalments.
 */
export interface RecordInstalmentOutcome {
  readonly _tag: "RecordInstalmentOutcome"
  readonly paymentPlanId: Ids.PaymentPlanId
  readonly transferId: Ids.TransferId
  readonly outcome:
    | { readonly _tag: "Settled" }
    | { readonly _tag: "Failed"; readonly returnCode?: string; readonly reason: string }
    | { readonly _tag: "Returned"; readonly returnCode: string; readonly reason: string }
  readonly at: DateTime.Utc
}

/** The partner replaces the plan's metadata, whatever its status. */
export interface SetPaymentPlanMetadata {
  readonly _tag: "SetPaymentPlanMetadata"
  readonly paymentPlanId: Ids.PaymentPlanId
  /** Who sets it: must be the partner of the plan (another partner's plan is NotFound). */
  readonly partnerId: Ids.PartnerId
  readonly metadata: Metadata.Metadata
  readonly at: DateTime.Utc
}

/** The events of this aggregate. */
export type Event = PaymentPlanEvent

export type Command =
  | CreatePaymentPlan
  | RecordConsentAccepted
  | RecordConsentWithdrawn
  | ActivatePaymentPlan
  | PausePaymentPlan
  | ResumePaymentPlan
  | CancelPaymentPlan
  | CollectInstalment
  | RecordInstalmentOutcome
  | SetPaymentPlanMetadata

// ---------------------------------------------------------------------------
// State

/** The status a client sees. */
export const PlanStatus = Schema.Literals(["Draft", "Active", "Paused", "Cancelled", "Completed"])
export type PlanStatus = typeof PlanStatus.Type

/** The plan's knowledge of its consent, fed by the consent policy. */
export type PlanConsent = "Pending" | "Accepted" | "Withdrawn"

/** What the plan is, fixed at creation. */
export interface PlanTerms extends PaymentPlanSchedule.ScheduleTerms {
  readonly paymentPlanId: Ids.PaymentPlanId
  readonly consentId: Ids.ConsentId
  readonly partnerId: Ids.PartnerId
  readonly companyId: Ids.CompanyId
  readonly payerRegistrationId: Ids.RegistrationId
  readonly amount: Money.Money
  readonly description?: string
  readonly metadata?: Metadata.Metadata
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
// Policy: consent events -> plan commands

/**
 * What a consent event tells its plan. Acceptance and withdrawal become
 * policy commands; a consent request tells the plan nothing new (the plan was
 * created with its consent Pending).
 */
export const consentPolicy = (event: ConsentEvent): RecordConsentAccepted | RecordConsentWithdrawn | undefined => {
  switch (event._tag) {
    // Stryker disable next-line StringLiteral: equivalent, an event no case names returns undefined too (the case keeps the switch exhaustive)
    case "ConsentRequested":
      return undefined
    case "ConsentAccepted":
      return {
        _tag: "RecordConsentAccepted",
        paymentPlanId: event.paymentPlanId,
        consentId: event.consentId,
        at: event.at,
      }
    case "ConsentDeclined":
    case "ConsentRevoked":
      return {
        _tag: "RecordConsentWithdrawn",
        paymentPlanId: event.paymentPlanId,
        consentId: event.consentId,
        withdrawal: event._tag === "ConsentDeclined" ? "Declined" : "Revoked",
        ...(event._tag === "ConsentRevoked" && event.returnCode !== undefined ? { returnCode: event.returnCode } : {}),
        at: event.at,
      }
  }
}

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

const validateCreate = (command: CreatePaymentPlan): ReadonlyArray<FieldIssue> => {
  const issues: Array<FieldIssue> = []
  if (command.amount.minorUnits <= 0) issues.push({ field: "amount", message: "must be greater than zero" })
  const maxInterval = PaymentPlanSchedule.maxRecurrenceInterval[command.frequency]
  if (
    !Number.isInteger(command.recurrenceInterval) ||
    command.recurrenceInterval < 1 ||
    command.recurrenceInterval > maxInterval
  ) {
    issues.push({
      field: "recurrenceInterval",
      message: `must be a whole number from 1 to ${maxInterval} for a ${command.frequency} plan`,
    })
  }
  const createdOn = today(command.at)
  if (CalendarDate.compare(command.startDate, createdOn) < 0) {
    issues.push({ field: "startDate", message: `must not be before the creation date ${createdOn}` })
  }
  const { numberOfPayments, endDate } = command
  if (numberOfPayments !== undefined && endDate !== undefined) {
    issues.push({ field: "endDate", message: "give either numberOfPayments or endDate, not both" })
  }
  if (
    numberOfPayments !== undefined &&
    (!Number.isInteger(numberOfPayments) ||
      numberOfPayments < 1 ||
      numberOfPayments > PaymentPlanSchedule.maxNumberOfPayments)
  ) {
    issues.push({
      field: "numberOfPayments",
      message: `must be a whole number from 1 to ${PaymentPlanSchedule.maxNumberOfPayments}`,
    })
  }
  // Stryker disable next-line ConditionalExpression: equivalent, no date compares below the start date with a missing end date (the test narrows the type)
  if (endDate !== undefined) {
    if (CalendarDate.compare(endDate, command.startDate) < 0)
      issues.push({ field: "endDate", message: "must not be before the start date" })
  }
  if (command.description !== undefined && command.description.length > maxDescriptionLength) {
    issues.push({ field: "description", message: `must be at most ${maxDescriptionLength} characters` })
  }
  if (command.metadata !== undefined) issues.push(...Metadata.issues("metadata", command.metadata))
  return issues
}

/** The terms of a repeated creation (of the same plan: the command is decided on the stream of its plan id). */
const sameTerms = (terms: PlanTerms, command: CreatePaymentPlan): boolean =>
  terms.consentId === command.consentId &&
  terms.partnerId === command.partnerId &&
  terms.companyId === command.companyId &&
  terms.payerRegistrationId === command.payerRegistrationId &&
  Money.equals(terms.amount, command.amount) &&
  terms.frequency === command.frequency &&
  terms.recurrenceInterval === command.recurrenceInterval &&
  terms.startDate === command.startDate &&
  terms.numberOfPayments === command.numberOfPayments &&
  terms.endDate === command.endDate &&
  terms.description === command.description &&
  Metadata.equals(terms.metadata ?? Metadata.empty, command.metadata ?? Metadata.empty)

const createPaymentPlan = (command: CreatePaymentPlan, state: State): Decision<Event> => {
  if (state._tag !== "Initial") {
    // A retried creation with the same terms changes nothing; other terms under the same id are refused.
    return sameTerms(state.terms, command) ? nothing : refuse(new AlreadyExists({ entity }))
  }
  const issues = validateCreate(command)
  if (issues.length > 0) return refuse(new ValidationFailed({ issues }))
  const unverified = WhoMayCollect.companyRefusal(command.companyStatus)
  if (unverified) return refuse(unverified)
  return accept<PaymentPlanEvent>({
    _tag: "PaymentPlanCreated",
    paymentPlanId: command.paymentPlanId,
    partnerId: command.partnerId,
    companyId: command.companyId,
    consentId: command.consentId,
    payerRegistrationId: command.payerRegistrationId,
    amount: command.amount,
    frequency: command.frequency,
    recurrenceInterval: command.recurrenceInterval,
    startDate: command.startDate,
    ...(command.numberOfPayments !== undefined ? { numberOfPayments: command.numberOfPayments } : {}),
    ...(command.endDate !== undefined ? { endDate: command.endDate } : {}),
    ...(command.description !== undefined ? { description: command.description } : {}),
    ...(command.metadata !== undefined ? { metadata: command.metadata } : {}),
    at: command.at,
  })
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

const activate = (command: ActivatePaymentPlan, state: ExistingState): Decision<Event> => {
  switch (state._tag) {
    case "Draft":
      return state.consent === "Accepted"
        ? startCollecting("PaymentPlanActivated", state, command.at)
        : consentNotAccepted(state)
    case "Active":
      return nothing
    case "Paused":
      return illegal(state, command, "the plan is paused: resume it instead")
    case "Cancelled":
    case "Completed":
      return illegal(state, command, `a ${state._tag} plan cannot be activated`)
  }
}

const pause = (command: PausePaymentPlan, state: ExistingState): Decision<Event> => {
  switch (state._tag) {
    case "Active":
      return accept<PaymentPlanEvent>({ _tag: "PaymentPlanPaused", ...planIds(state), at: command.at })
    case "Paused":
      return nothing
    case "Draft":
      return illegal(state, command, "a Draft plan is not collecting yet: only an Active plan can be paused")
    case "Cancelled":
    case "Completed":
      return illegal(state, command, `a ${state._tag} plan cannot be paused`)
  }
}

const resume = (command: ResumePaymentPlan, state: ExistingState): Decision<Event> => {
  switch (state._tag) {
    case "Paused":
      // Stryker disable next-line ConditionalExpression: equivalent, a plan is activated only with an Accepted consent and a withdrawal cancels it, so a Paused plan's consent is Accepted; kept as the rule's guard
      return state.consent === "Accepted"
        ? startCollecting("PaymentPlanResumed", state, command.at)
        : consentNotAccepted(state)
    case "Active":
      return nothing
    case "Draft":
      return illegal(state, command, "a Draft plan was never active: activate it instead")
    case "Cancelled":
    case "Completed":
      return illegal(state, command, `a ${state._tag} plan cannot be resumed`)
  }
}

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

export const decide = (command: Command, state: State): Decision<Event> => {
  if (command._tag === "CreatePaymentPlan") return createPaymentPlan(command, state)
  if (state._tag === "Initial") return refuse(new NotFound({ entity }))
  switch (command._tag) {
    case "RecordConsentAccepted":
      return recordConsentAccepted(command, state)
    case "RecordConsentWithdrawn":
      return recordConsentWithdrawn(command, state)
    case "ActivatePaymentPlan":
      return activate(command, state)
    case "PausePaymentPlan":
      return pause(command, state)
    case "ResumePaymentPlan":
      return resume(command, state)
    case "CancelPaymentPlan":
      return cancel(command, state)
    case "CollectInstalment":
      return collect(command, state)
    case "RecordInstalmentOutcome":
      return recordInstalmentOutcome(command, state)
    case "SetPaymentPlanMetadata":
      return setMetadata(command, state)
  }
}

/** Metadata is the partner's own data: replaced whole, in any status; the same metadata again changes nothing. */
const setMetadata = (command: SetPaymentPlanMetadata, state: ExistingState): Decision<Event> => {
  if (command.partnerId !== state.terms.partnerId) return refuse(new NotFound({ entity }))
  const issues = Metadata.issues("metadata", command.metadata)
  if (issues.length > 0) return refuse(new ValidationFailed({ issues: [...issues] }))
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

// ---------------------------------------------------------------------------
// Evolve

/** Whether a plan in `state` has ended (Cancelled or Completed): no status event moves it again. */
const ended = (state: State): boolean => state._tag === "Cancelled" || state._tag === "Completed"

export const evolve = (state: State, event: Event): State => {
  if (event._tag === "PaymentPlanCreated") {
    if (state._tag !== "Initial") return state
    return {
      _tag: "Draft",
      terms: {
        paymentPlanId: event.paymentPlanId,
        consentId: event.consentId,
        partnerId: event.partnerId,
        companyId: event.companyId,
        payerRegistrationId: event.payerRegistrationId,
        amount: event.amount,
        frequency: event.frequency,
        recurrenceInterval: event.recurrenceInterval,
        startDate: event.startDate,
        ...(event.numberOfPayments !== undefined ? { numberOfPayments: event.numberOfPayments } : {}),
        ...(event.endDate !== undefined ? { endDate: event.endDate } : {}),
        ...(event.description !== undefined ? { description: event.description } : {}),
        ...(event.metadata !== undefined ? { metadata: event.metadata } : {}),
        createdAt: event.at,
      },
      consent: "Pending",
      nextIndex: 0,
      collected: [],
    }
  }
  if (state._tag === "Initial") return state
  switch (event._tag) {
    case "PaymentPlanConsentAccepted":
      return { ...state, consent: "Accepted" }
    case "PaymentPlanConsentWithdrawn":
      return { ...state, consent: "Withdrawn" }
    case "PaymentPlanActivated":
    case "PaymentPlanResumed":
      // Activated moves a Draft, Resumed a Paused plan; anything else does not fit and changes nothing.
      return state._tag === (event._tag === "PaymentPlanActivated" ? "Draft" : "Paused")
        ? { ...state, _tag: "Active", nextIndex: state.nextIndex + event.skippedDueDates.length }
        : state
    case "PaymentPlanPaused":
      return state._tag === "Active" ? { ...state, _tag: "Paused" } : state
    case "PaymentPlanCancelled":
      return ended(state) ? state : { ...state, _tag: "Cancelled", reason: event.reason }
    case "InstalmentCollected":
      return {
        ...state,
        nextIndex: state.nextIndex + 1,
        collected: [
          ...state.collected,
          {
            instalmentNumber: event.instalmentNumber,
            dueDate: event.dueDate,
            ...(event.paymentRequestId !== undefined ? { paymentRequestId: event.paymentRequestId } : {}),
            ...(event.transferId !== undefined ? { transferId: event.transferId } : {}),
            status: "Pending",
          },
        ],
      }
    case "PaymentPlanCompleted":
      return ended(state) ? state : { ...state, _tag: "Completed" }
    case "PaymentPlanMetadataSet":
      return { ...state, terms: { ...state.terms, metadata: event.metadata } }
    case "InstalmentSettled":
    case "InstalmentFailed":
    case "InstalmentReturned": {
      const status: InstalmentStatus =
        event._tag === "InstalmentSettled" ? "Settled" : event._tag === "InstalmentFailed" ? "Failed" : "Returned"
      return {
        ...state,
        collected: state.collected.map((instalment) =>
          instalment.transferId === event.transferId ? { ...instalment, status } : instalment,
        ),
      }
    }
  }
}

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "PaymentPlan",
  initialState,
  decide,
  evolve,
  events: PaymentPlanEvents.PaymentPlanEvent,
  eventVersion: () => 1,
}
