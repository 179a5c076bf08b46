/**
 * Anonymous charity transaction (POST /Transaction/Charity/CreateAnonymous):
 * a donation of `amount` to a charity (a company) by a payer known only by an
 * identity verification id. A record: one command creates it; the money
 * movement itself is the payments side's concern.
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
 * `isRecurring` is recorded as the payer's wish; collecting it again is not
 * done yet (see docs/decisions.md).
 */
import { type DateTime, Schema } from "effect"
import { type Aggregate, accept, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import { AlreadyExists, type DomainError, RuleViolated, ValidationFailed } from "../kernel/DomainError.ts"
import type { CompanyId, PartnerId, TransferId, VerificationId } from "../kernel/Ids.ts"
import * as Money from "../kernel/Money.ts"
import {
  type AnonymousCharityTransactionCreated,
  CharityTransactionEvent,
  type CharityTransactionId,
} from "./CharityTransactionEvents.ts"

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
  readonly at: DateTime.Utc
}

/** The events of this aggregate. */
export type Event = CharityTransactionEvent

export type Command = CreateAnonymousCharityTransaction

export type State =
  | { readonly _tag: "Initial" }
  | ({ readonly _tag: "Created" } & Omit<AnonymousCharityTransactionCreated, "_tag" | "at">)

export const initialState: State = { _tag: "Initial" }

// ---------------------------------------------------------------------------
// Decide and evolve
// ---------------------------------------------------------------------------

const isMoney = Schema.is(Money.Money)

/** Decides with a fee schedule; `decide` uses the default one. */
export const decideWith =
  (schedule: FeeSchedule) =>
  (command: Command, state: State): Decision<Event> => {
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
      at: command.at,
    }
    return accept<CharityTransactionEvent>(event)
  }

export const decide = decideWith(defaultFeeSchedule)

export const evolve = (_state: State, event: Event): State => {
  const { _tag, at: _at, ...details } = event
  return { _tag: "Created", ...details }
}

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
