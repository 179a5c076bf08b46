/**
 * Anonymous charity transaction (POST /Transaction/Charity/CreateAnonymous):
 * a donation of `amount` to a charity (a company) by a payer known only by an
 * identity verification id. One command creates it; the money movement
 * itself is the payments side's concern (a Transfer per collection).
 *
 * Fee: a pure function of the donation, `computeFee` (1% by default, see
 * `defaultFeeSchedule`), in integer minor units, rounded half up (0.5 cent
 * becomes 1 cent). It is always computed on the donation amount:
 * - payerCoversFee = true: the payer is charged amount + fee, the charity receives amount;
 * - payerCoversFee = false: the payer is charged amount, the charity receives amount - fee.
 * A donation too small to leave the charity anything after the fee is refused.
 *
 * The gift moves money: the use case starts a Transfer of `payerCharged` from
 * the donor's account to the charity (`transferId`), which settles, fails or
 * is returned like any transfer, and whose initiation applies who may collect.
 *
 * A recurring gift (`isRecurring`) is collected again every month on the
 * day of its first collection (`RecurringGift.ts`), each time a new Transfer
 * of `payerCharged` from the same account, until it stops:
 * - `CollectRecurringGift` (the recurring-charity scheduler, through
 *   `Charity.collectDue`) records the collection of the latest due date on
 *   or before today (`RecurringCharityGiftCollected`), or stops the gift when
 *   it can no longer be collected: the donor unlinked the account it is
 *   collected from, or who may collect refuses (company or donor no longer
 *   Verified). Nothing when the next due date is still to come.
 * - `CancelRecurringGift` (the partner or the donor) stops it
 *   (`RecurringCharityGiftStopped`); cancelling a stopped gift changes
 *   nothing, a one-time gift cannot be cancelled (409).
 * Collections already started are not undone by a stop: each is a transfer
 * of its own (refund it to give it back).
 *
 * State table: packages/domain/docs/CardPaymentAndCharity.md.
 */
import { DateTime, Schema } from "effect"
import * as CalendarDate from "../kernel/CalendarDate.ts"
import { type Aggregate, accept, byCommand, byEvent, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import {
  AlreadyExists,
  type DomainError,
  IllegalTransition,
  RuleViolated,
  ValidationFailed,
} from "../kernel/DomainError.ts"
import type { BankAccountId, CompanyId, PartnerId, RegistrationId, TransferId, VerificationId } from "../kernel/Ids.ts"
import * as Money from "../kernel/Money.ts"
import { AuthorizationEvidence, WhoMayCollect } from "../payments/index.ts"
import {
  type AnonymousCharityTransactionCreated,
  CharityTransactionEvent,
  type CharityTransactionId,
  type RecurringGiftStopReason,
} from "./CharityTransactionEvents.ts"
import * as RecurringGift from "./RecurringGift.ts"

export * from "./CharityTransactionEvents.ts"

// ---------------------------------------------------------------------------
// Fee policy
// ---------------------------------------------------------------------------

/** A fee of `basisPoints` hundredths of a percent of the amount plus a fixed part in minor units. */
export interface FeeSchedule {
  readonly basisPoints: number
  readonly fixedMinorUnits: number
}

/** 1% (100 basis points), no fixed part: the same for every currency. */
export const defaultFeeSchedule: FeeSchedule = { basisPoints: 100, fixedMinorUnits: 0 }

/**
 * The fee on a donation: amount x basisPoints / 10 000, rounded half up to a
 * whole minor unit, plus the fixed part. Exact integer arithmetic (BigInt), so
 * no floating-point error whatever the amount.
 */
export const computeFee = (amount: Money.Money, schedule: FeeSchedule = defaultFeeSchedule): Money.Money => {
  const proportional = (BigInt(amount.minorUnits) * BigInt(schedule.basisPoints) + 5_000n) / 10_000n
  return Money.make(Number(proportional) + schedule.fixedMinorUnits, amount.currency)
}

/** What the payer is charged, what the charity receives and the fee, for a donation. */
export const split = (
  amount: Money.Money,
  payerCoversFee: boolean,
  schedule: FeeSchedule = defaultFeeSchedule,
): { readonly fee: Money.Money; readonly payerCharged: Money.Money; readonly charityReceives: Money.Money } => {
  const fee = computeFee(amount, schedule)
  const currency = amount.currency
  return payerCoversFee
    ? { fee, payerCharged: Money.make(amount.minorUnits + fee.minorUnits, currency), charityReceives: amount }
    : { fee, payerCharged: amount, charityReceives: Money.make(amount.minorUnits - fee.minorUnits, currency) }
}

// ---------------------------------------------------------------------------
// Commands and state
// ---------------------------------------------------------------------------

export interface CreateAnonymousCharityTransaction {
  readonly _tag: "CreateAnonymousCharityTransaction"
  readonly charityTransactionId: CharityTransactionId
  readonly partnerId: PartnerId
  readonly verificationId: VerificationId
  /** The charity receiving the donation. */
  readonly companyId: CompanyId
  readonly amount: Money.Money
  readonly isRecurring: boolean
  readonly payerCoversFee: boolean
  /** The transfer that collects the gift (`payerCharged`) from the donor's account, started with it. */
  readonly transferId?: TransferId
  /** The donor and the account the gift is collected from (each month when recurring). */
  readonly payerRegistrationId?: RegistrationId
  readonly bankAccountId?: BankAccountId
  /** The request that carried the donor's authorization, recorded as its evidence. */
  readonly client?: AuthorizationEvidence.ClientContext
  readonly at: DateTime.Utc
}

/** Collect a recurring gift again if a due date has come (the scheduler, once per gift and due date). */
export interface CollectRecurringGift {
  readonly _tag: "CollectRecurringGift"
  readonly charityTransactionId: CharityTransactionId
  /** The new transfer collecting it, when one is due (from the edge). */
  readonly transferId: TransferId
  /** The partner's today (sandbox time per partner). */
  readonly today: CalendarDate.CalendarDate
  /** False when the donor unlinked the account the gift is collected from (read by the use case). */
  readonly bankAccountLinked: boolean
  /** The charity's KYB and the donor's KYC now (read by the use case). */
  readonly parties: WhoMayCollect.Parties
  readonly at: DateTime.Utc
}

/** Stop a recurring gift: no collection after this one. */
export interface CancelRecurringGift {
  readonly _tag: "CancelRecurringGift"
  readonly charityTransactionId: CharityTransactionId
  /** Who stops it: the partner, the donor, or the service after an unauthorized return of a collection. */
  readonly by: "Partner" | "Donor" | "UnauthorizedReturn"
  readonly at: DateTime.Utc
}

/** The events of this aggregate. */
export type Event = CharityTransactionEvent

export type Command = CreateAnonymousCharityTransaction | CollectRecurringGift | CancelRecurringGift

/** Where a recurring gift stands; absent on a one-time gift. */
export type Recurrence =
  | {
      readonly status: "Active"
      /** The day of the first collection: the schedule counts from it. */
      readonly startDate: CalendarDate.CalendarDate
      /** The due date last collected (the start date after the first collection). */
      readonly lastDueDate: CalendarDate.CalendarDate
      readonly collections: number
      readonly nextDueDate: CalendarDate.CalendarDate
    }
  | {
      readonly status: "Stopped"
      readonly startDate: CalendarDate.CalendarDate
      readonly lastDueDate: CalendarDate.CalendarDate
      readonly collections: number
      readonly stopReason: RecurringGiftStopReason
    }

export type State =
  | { readonly _tag: "Initial" }
  | ({ readonly _tag: "Created"; readonly createdAt: DateTime.Utc; readonly recurrence?: Recurrence } & Omit<
      AnonymousCharityTransactionCreated,
      "_tag" | "at"
    >)

export const initialState: State = { _tag: "Initial" }

/** The UTC calendar date of an instant (the partner's clock gives the instant). */
export const dateOf = (at: DateTime.Utc): CalendarDate.CalendarDate =>
  CalendarDate.fromEpochMillis(DateTime.toEpochMillis(at))

// ---------------------------------------------------------------------------
// Decide and evolve
// ---------------------------------------------------------------------------

const isMoney = Schema.is(Money.Money)

const create =
  (schedule: FeeSchedule) =>
  (command: CreateAnonymousCharityTransaction, state: State): Decision<Event> => {
    if (!isMoney(command.amount)) {
      return refuse(ValidationFailed.of("amount", "must be a whole number of minor units of a supported currency"))
    }
    if (command.amount.minorUnits === 0) return refuse(ValidationFailed.of("amount", "must be greater than zero"))
    if (state._tag === "Created") {
      const identical =
        state.charityTransactionId === command.charityTransactionId &&
        state.partnerId === command.partnerId &&
        state.verificationId === command.verificationId &&
        state.companyId === command.companyId &&
        Money.equals(state.amount, command.amount) &&
        state.isRecurring === command.isRecurring &&
        state.payerCoversFee === command.payerCoversFee
      return identical ? nothing : refuse(new AlreadyExists({ entity: "CharityTransaction" }))
    }
    const { fee, payerCharged, charityReceives } = split(command.amount, command.payerCoversFee, schedule)
    if (payerCharged.minorUnits > Money.maxMinorUnits) {
      return refuse(ValidationFailed.of("amount", "is too large once the fee is added"))
    }
    if (charityReceives.minorUnits <= 0) {
      return refuse(
        new RuleViolated({
          code: "AMOUNT_BELOW_FEE",
          reason: `a donation of ${Money.toDecimalString(command.amount)} ${command.amount.currency} leaves nothing after the fee of ${Money.toDecimalString(fee)}`,
        }),
      )
    }
    const event: AnonymousCharityTransactionCreated = {
      _tag: "AnonymousCharityTransactionCreated",
      charityTransactionId: command.charityTransactionId,
      partnerId: command.partnerId,
      verificationId: command.verificationId,
      companyId: command.companyId,
      amount: { minorUnits: command.amount.minorUnits, currency: command.amount.currency },
      isRecurring: command.isRecurring,
      payerCoversFee: command.payerCoversFee,
      fee,
      payerCharged,
      charityReceives,
      ...(command.transferId === undefined ? {} : { transferId: command.transferId }),
      ...(command.payerRegistrationId === undefined ? {} : { payerRegistrationId: command.payerRegistrationId }),
      ...(command.bankAccountId === undefined ? {} : { bankAccountId: command.bankAccountId }),
      ...(command.client === undefined
        ? {}
        : {
            authorization: AuthorizationEvidence.evidenceOf(
              command.isRecurring ? "RecurringCharityGift" : "CharityGift",
              command.client,
              command.at,
            ),
          }),
      at: command.at,
    }
    return accept<CharityTransactionEvent>(event)
  }

const stopped = (
  state: { readonly charityTransactionId: CharityTransactionId },
  reason: RecurringGiftStopReason,
  at: DateTime.Utc,
) =>
  accept<Event>({ _tag: "RecurringCharityGiftStopped", charityTransactionId: state.charityTransactionId, reason, at })

/** Why who may collect stops a gift, or undefined when money may still move. */
const refusalReason = (parties: WhoMayCollect.Parties): RecurringGiftStopReason | undefined =>
  WhoMayCollect.companyRefusal(parties.companyStatus) !== undefined
    ? "CompanyNotVerified"
    : WhoMayCollect.payerRefusal(parties.payerKyc) !== undefined
      ? "PayerNotVerified"
      : undefined

const collect = (command: CollectRecurringGift, state: State): Decision<Event> => {
  // Stryker disable next-line ConditionalExpression: equivalent, an Initial state has no recurrence (the test narrows the type)
  if (state._tag !== "Created" || state.recurrence?.status !== "Active") return nothing
  const dueDate = RecurringGift.dueDateToCollect(
    state.recurrence.startDate,
    state.recurrence.lastDueDate,
    command.today,
  )
  if (dueDate === undefined) return nothing
  if (!command.bankAccountLinked) return stopped(state, "BankAccountUnlinked", command.at)
  const refused = refusalReason(command.parties)
  if (refused !== undefined) return stopped(state, refused, command.at)
  return accept<Event>({
    _tag: "RecurringCharityGiftCollected",
    charityTransactionId: state.charityTransactionId,
    dueDate,
    collectionNumber: state.recurrence.collections + 1,
    transferId: command.transferId,
    at: command.at,
  })
}

const cancel = (command: CancelRecurringGift, state: State): Decision<Event> => {
  // Stryker disable next-line ConditionalExpression: equivalent, an Initial state has no recurrence (the test narrows the type)
  if (state._tag !== "Created" || state.recurrence === undefined) {
    // An unauthorized return of a one-time gift leaves nothing to stop.
    if (command.by === "UnauthorizedReturn") return nothing
    return refuse(
      new IllegalTransition({
        entity: "CharityTransaction",
        state: state._tag === "Created" ? "OneTime" : state._tag,
        command: command._tag,
        reason: "only a recurring gift can be cancelled: a one-time gift is collected once",
      }),
    )
  }
  if (state.recurrence.status === "Stopped") return nothing
  return stopped(
    state,
    command.by === "Partner"
      ? "CancelledByPartner"
      : command.by === "Donor"
        ? "CancelledByDonor"
        : "UnauthorizedReturn",
    command.at,
  )
}

/** Decides with a fee schedule; `decide` uses the default one. */
export const decideWith = (schedule: FeeSchedule): ((command: Command, state: State) => Decision<Event>) =>
  byCommand<Command, State, Event>({
    CreateAnonymousCharityTransaction: create(schedule),
    CollectRecurringGift: collect,
    CancelRecurringGift: cancel,
  })

export const decide = decideWith(defaultFeeSchedule)

/**
 * A gift collects again only when it is recurring and knows its donor's account (gifts recorded
 * before recurring gifts were collected again name none: they stay as they were).
 */
const recurrenceOf = (event: AnonymousCharityTransactionCreated): Recurrence | undefined => {
  if (!event.isRecurring || event.bankAccountId === undefined || event.payerRegistrationId === undefined)
    return undefined
  const startDate = dateOf(event.at)
  return {
    status: "Active",
    startDate,
    lastDueDate: startDate,
    collections: 1,
    nextDueDate: RecurringGift.nextDueDateAfter(startDate, startDate),
  }
}

/** An event that does not fit the state (a second creation, a collection of a stopped gift...) changes nothing. */
export const evolve: (state: State, event: Event) => State = byEvent<Event, State>({
  AnonymousCharityTransactionCreated: (state, event) => {
    if (state._tag !== "Initial") return state
    const { _tag, at, ...details } = event
    const recurrence = recurrenceOf(event)
    return { _tag: "Created", createdAt: at, ...details, ...(recurrence === undefined ? {} : { recurrence }) }
  },
  RecurringCharityGiftCollected: (state, event) => {
    // Stryker disable next-line ConditionalExpression: equivalent, an Initial state has no recurrence (the test narrows the type)
    if (state._tag !== "Created" || state.recurrence?.status !== "Active") return state
    const { startDate } = state.recurrence
    return {
      ...state,
      recurrence: {
        status: "Active",
        startDate,
        lastDueDate: event.dueDate,
        collections: event.collectionNumber,
        nextDueDate: RecurringGift.nextDueDateAfter(startDate, event.dueDate),
      },
    }
  },
  RecurringCharityGiftStopped: (state, event) => {
    // Stryker disable next-line ConditionalExpression: equivalent, an Initial state has no recurrence (the test narrows the type)
    if (state._tag !== "Created" || state.recurrence?.status !== "Active") return state
    const { startDate, lastDueDate, collections } = state.recurrence
    return {
      ...state,
      recurrence: { status: "Stopped", startDate, lastDueDate, collections, stopReason: event.reason },
    }
  },
})

export type CharityTransactionAggregate = Aggregate<Command, Event, State, DomainError>

/** The aggregate with another fee schedule (for a partner with negotiated fees, or tests). */
export const makeAggregate = (schedule: FeeSchedule): CharityTransactionAggregate => ({
  name: "CharityTransaction",
  initialState,
  decide: decideWith(schedule),
  evolve,
  events: CharityTransactionEvent,
  eventVersion: () => 1,
})

export const aggregate: CharityTransactionAggregate = makeAggregate(defaultFeeSchedule)
