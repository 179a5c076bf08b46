/**
 * Balance and payout use cases: a company's balance (GET
 * /Company/{companyId}/Balance), its payouts and their items (GET /Payouts,
 * GET /Payouts/{payoutId}, GET /Payouts/{payoutId}/Items), and the entry
 * points of the payout workers: pay out a company's available balance
 * (`payOutDue`), originate a payout through the money-movement port
 * (`originate`), and record a payout's outcome whatever its path (`pollOutcome`
 * polls `MoneyMovement.status`; a provider's notification calls
 * `recordOutcome` with the same outcome).
 *
 * Exactly once: `payOutDue` takes the balance in one unit of work guarded by
 * the balance stream's version (of two racing workers one wins, the other
 * finds nothing left); the movement is originated after that unit, with the
 * payout id as its idempotency key, so a crash between the two is repaired by
 * originating again (`Pending` payouts without a provider reference are found
 * by the worker) and never moves money twice.
 *
 * Tenancy: another partner's company or payout is NotFound, like a missing one.
 */
import { DateTime, Effect, Option, Random, Schema } from "effect"
import { Companies, Company } from "../companies/index.ts"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import { IdGenerator } from "../infrastructure/IdGenerator.ts"
import { decodeDocument, ReadModelStore } from "../infrastructure/ReadModel.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import { NotFound } from "../kernel/DomainError.ts"
import { type CompanyId, type PartnerId, PayoutId } from "../kernel/Ids.ts"
import * as Money from "../kernel/Money.ts"
import * as Traced from "../kernel/Traced.ts"
import { MoneyMovement, MovementAttempts, TransfersProjection } from "../payments/index.ts"
import * as Balance from "./Balance.ts"
import * as BalancesProjection from "./BalancesProjection.ts"
import * as Ledger from "./Ledger.ts"
import * as Payout from "./Payout.ts"
import { PayoutDirection, PayoutStatus } from "./PayoutEvents.ts"
import * as PayoutsProjection from "./PayoutsProjection.ts"

// ---------------------------------------------------------------------------
// Views (the HTTP responses reuse them, amounts in wire form)

/** A company's balance in one currency: available (may be negative) and pending, in minor units. */
export interface BalanceView {
  readonly available: Ledger.SignedAmount
  readonly pending: Money.Money
}

/** A payout as listed and read (GET /Payouts, GET /Payouts/{payoutId}). */
export const PayoutView = Schema.Struct({
  payoutId: Schema.String,
  companyId: Schema.String,
  direction: PayoutDirection.annotate({
    description:
      "Credit: the company's available balance paid to its payout account; Debit: a deficit (refunds or returns after payout, past the grace period) taken from that account",
  }),
  amount: Money.Money,
  status: PayoutStatus,
  createdAt: Schema.String.annotate({ description: "When the payout was created (ISO 8601)" }),
  arrivalDate: Schema.String.annotate({ description: "When the money is expected on the account (YYYY-MM-DD)" }),
  itemCount: Schema.Int.annotate({ description: "How many items the payout pays out" }),
  payoutAccountId: Schema.String,
  accountNumberMasked: Schema.String.annotate({ description: "The payout account paid, masked" }),
  returnCode: Schema.optionalKey(
    Schema.NullOr(Schema.String).annotate({
      description: "Failed: the ACH return code; null when the rail refused the payout (see failureReason)",
    }),
  ),
  returnReason: Schema.optionalKey(Schema.String),
  failureReason: Schema.optionalKey(
    Schema.String.annotate({ description: "Failed with no return code: why the rail refused the payout" }),
  ),
})
export type PayoutView = typeof PayoutView.Type

/** One item of a payout: what it pays out (signed: refunds, returns and fees are negative). */
export const PayoutItemView = Schema.Struct({
  itemId: Schema.String.annotate({ description: "The item's id in the company's ledger (a page's cursor)" }),
  type: Ledger.EntryType.annotate({
    description:
      "What the item is: a payment, an instalment, a charity gift or a card payment collected; a refund, a return, a card dispute or a fee taken back (a won dispute gives its amount and fee back)",
  }),
  transferId: Schema.optionalKey(Schema.String),
  refundId: Schema.optionalKey(Schema.String),
  amount: Ledger.SignedAmount,
})
export type PayoutItemView = typeof PayoutItemView.Type

export const viewOf = (doc: PayoutsProjection.PayoutDocument): PayoutView => ({
  payoutId: doc.payoutId,
  companyId: doc.companyId,
  direction: doc.direction ?? "Credit",
  amount: doc.amount,
  status: doc.status,
  createdAt: doc.createdAt,
  arrivalDate: doc.arrivalDate,
  itemCount: doc.items.length,
  payoutAccountId: doc.payoutAccountId,
  accountNumberMasked: doc.accountNumberMasked,
  ...(doc.returnCode !== undefined
    ? { returnCode: doc.returnCode, ...(doc.failureReason === undefined ? {} : { returnReason: doc.failureReason }) }
    : doc.status === "Failed"
      ? { returnCode: null, failureReason: doc.failureReason ?? "refused by the rail" }
      : {}),
})

export const itemViewOf = ({ entryId, ...item }: Ledger.LedgerEntry): PayoutItemView => ({ itemId: entryId, ...item })

// ---------------------------------------------------------------------------
// Reads

/**
 * The balance of the partner's company in `currency`: available (the ledger's entries not paid out and
 * past their availability date, `balances` read model) and pending (its transfers initiated and not
 * settled, `Ledger.pendingOf`, and its card money before the processor's availability date).
 */
export const balance = Traced.fn("Payouts.balance")(function* (
  partnerId: PartnerId,
  companyId: string,
  currency: Money.CurrencyCode,
) {
  yield* Companies.get(partnerId, companyId)
  const store = yield* ReadModelStore
  const stored = yield* store.get(BalancesProjection.collection, companyId)
  const doc = Option.isSome(stored) ? decodeDocument(BalancesProjection.projection, stored.value) : undefined
  let pending = 0
  let cursor: string | undefined
  while (true) {
    const page = yield* store.find(TransfersProjection.collection, {
      partnerId,
      keys: { companyId, status: "Pending" },
      limit: 500,
      order: "asc",
      ...(cursor === undefined ? {} : { startingAfter: cursor }),
    })
    pending += Ledger.pendingOf(
      page.items.map((item) => decodeDocument(TransfersProjection.projection, item)),
      currency,
    )
    if (!page.hasMore || page.items.length === 0) break
    cursor = page.items[page.items.length - 1]!.id
  }
  const now = yield* DateTime.now
  const maturing = BalancesProjection.notYetAvailableIn(doc, currency, now)
  const view: BalanceView = {
    available: { minorUnits: BalancesProjection.availableIn(doc, currency) - maturing, currency },
    pending: Money.make(pending + maturing, currency),
  }
  return view
})

const payoutNotFound = new NotFound({ entity: "Payout" })

/** The partner's payout document; another partner's (or a missing one) is NotFound. */
const findPayout = Traced.fn("Payouts.findPayout")(function* (partnerId: PartnerId, payoutId: string) {
  const store = yield* ReadModelStore
  const stored = yield* store.get(PayoutsProjection.collection, payoutId)
  if (Option.isNone(stored) || stored.value.index.partnerId !== partnerId) return yield* payoutNotFound
  return decodeDocument(PayoutsProjection.projection, stored.value)
})

/** One payout of the partner. */
export const get = Traced.fn("Payouts.get")(function* (partnerId: PartnerId, payoutId: string) {
  return viewOf(yield* findPayout(partnerId, payoutId))
})

export interface ListInput {
  readonly companyId?: string | undefined
  readonly status?: PayoutStatus | undefined
  readonly limit: number
  readonly startingAfter?: string | undefined
}

/** The partner's payouts, newest first, optionally of one company and of one status, one page at a time. */
export const list = Traced.fn("Payouts.list")(function* (partnerId: PartnerId, input: ListInput) {
  if (input.companyId !== undefined) yield* Companies.get(partnerId, input.companyId)
  const store = yield* ReadModelStore
  const page = yield* store.find(PayoutsProjection.collection, {
    partnerId,
    keys: {
      ...(input.companyId === undefined ? {} : { companyId: input.companyId }),
      ...(input.status === undefined ? {} : { status: input.status }),
    },
    limit: input.limit,
    ...(input.startingAfter === undefined ? {} : { startingAfter: input.startingAfter }),
  })
  return {
    data: page.items.map((item) => viewOf(decodeDocument(PayoutsProjection.projection, item))),
    hasMore: page.hasMore,
  }
})

export interface ItemsInput {
  readonly limit: number
  /** The `itemId` of the last item of the previous page. */
  readonly startingAfter?: string | undefined
}

/** A payout's items in ledger order, one page at a time; they add up to the payout's amount. */
export const items = Traced.fn("Payouts.items")(function* (partnerId: PartnerId, payoutId: string, input: ItemsInput) {
  const doc = yield* findPayout(partnerId, payoutId)
  const after =
    input.startingAfter === undefined ? -1 : doc.items.findIndex((item) => item.entryId === input.startingAfter)
  const start = input.startingAfter !== undefined && after === -1 ? doc.items.length : after + 1
  return {
    data: doc.items.slice(start, start + input.limit).map(itemViewOf),
    hasMore: start + input.limit < doc.items.length,
  }
})

// ---------------------------------------------------------------------------
// The payout workers' entry points

/** The schedule and threshold of payouts (the app's settings). */
export interface PayoutSchedule {
  /** The least amount paid out, in minor units. */
  readonly minimumMinorUnits: number
  /** No payout of a currency sooner than this after the company's last one (ms). */
  readonly intervalMillis: number
  /**
   * How long a negative available balance may last before the payout account is debited for it (ms,
   * from the first run that found it negative); absent: deficits are only netted by later collections.
   */
  readonly deficitGraceMillis?: number
}

/** A payout `payOutDue` created. */
export interface CreatedPayout {
  readonly payoutId: PayoutId
  readonly companyId: CompanyId
  readonly amount: Money.Money
}

/**
 * Pays out the company's available balance, one payout per currency, when the company has a payout
 * account, the balance reaches the minimum and the schedule allows; else creates nothing. One unit of
 * work: the balance is taken and the payout created together (`PayoutCreationPolicy`).
 */
export const payOutDue = UseCase.fn("Payouts.payOutDue")(function* (companyId: CompanyId, schedule: PayoutSchedule) {
  const company = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Company.aggregate, companyId))
  const account = company.state._tag === "Initial" ? undefined : company.state.payoutAccount
  // An Errored account pauses the company's payouts: its balance accumulates until another account is set.
  // A Suspended company's payouts pause too (until the KYB provider reactivates it).
  if (
    account === undefined ||
    account.status === "Errored" ||
    company.state._tag === "Rejected" ||
    company.state._tag === "Suspended"
  )
    return [] as ReadonlyArray<CreatedPayout>
  const ledger = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Balance.aggregate, companyId))
  if (ledger.state._tag === "Initial") return [] as ReadonlyArray<CreatedPayout>
  const at = yield* DateTime.now
  const ids = yield* IdGenerator
  const created: Array<CreatedPayout> = []
  for (const currency of Ledger.currenciesOf(ledger.state.entries)) {
    const payoutId = PayoutId.make(yield* ids.next)
    const handled = yield* CommandHandler.handle(
      Balance.aggregate,
      companyId,
      {
        _tag: "PayOutBalance",
        companyId,
        payoutId,
        currency,
        minimumMinorUnits: schedule.minimumMinorUnits,
        intervalMillis: schedule.intervalMillis,
        ...(schedule.deficitGraceMillis === undefined ? {} : { deficitGraceMillis: schedule.deficitGraceMillis }),
        payoutAccountId: account.payoutAccountId,
        accountNumberMasked: account.accountNumberMasked,
        at,
      },
      { metadata: { partnerId: ledger.state.partnerId } },
    )
    for (const event of handled.events)
      if (event._tag === "BalancePaidOut") created.push({ payoutId, companyId, amount: event.amount })
  }
  return created as ReadonlyArray<CreatedPayout>
})

/** A payout's command but its instant. */
type Unstamped<C> = C extends unknown ? Omit<C, "at"> : never

/** Handles a command of an existing payout (the one its `payoutId` names), stamped now. */
const handleNow = (command: Unstamped<Exclude<Payout.Command, Payout.CreatePayout>>) =>
  Effect.flatMap(DateTime.now, (at) =>
    CommandHandler.handle(Payout.aggregate, command.payoutId, { ...command, at } as Payout.Command),
  )

const recordOrigination = UseCase.fn("Payouts.recordOrigination")(function* (
  payoutId: PayoutId,
  providerReference: string,
) {
  yield* handleNow({ _tag: "RecordPayoutOrigination", payoutId, providerReference })
})

/**
 * Records a payout's outcome, whatever its path (polling or the provider's notification): Settled
 * makes it Paid, Failed or Returned makes it Failed and gives its items back to the balance. A repeat
 * changes nothing. Answers the payout's status afterwards.
 */
export const recordOutcome = UseCase.fn("Payouts.recordOutcome")(function* (
  payoutId: PayoutId,
  outcome: Payout.PayoutOutcome,
) {
  const handled = yield* handleNow({ _tag: "RecordPayoutOutcome", payoutId, outcome })
  return Payout.statusOf(handled.state)
})

/** The rail was unavailable to originate the payout: deferred with backoff, or Failed after the outage limit. */
const recordUnavailable = UseCase.fn("Payouts.recordUnavailable")(function* (payoutId: PayoutId, reason: string) {
  const jitter = yield* Random.next
  yield* handleNow({ _tag: "RecordPayoutUnavailable", payoutId, reason, jitter })
})

/** The code when a payout's account changed between its creation and its origination. */
export const accountChangedCode = Payout.accountChangedCode

/**
 * Originates a Pending payout not yet originated through `MoneyMovement.originatePayout` (idempotency
 * key: the payout id), then records the provider's reference. Safe to repeat: an originated payout is
 * left alone, and a second origination with the same key answers the first movement. A refusal by the
 * provider fails the payout (its money goes back to the balance). Answers whether it originated.
 */
export const originate = Traced.fn("Payouts.originate")(function* (payoutId: PayoutId) {
  const payout = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Payout.aggregate, payoutId))
  const state = payout.state
  if (state._tag !== "Pending" || state.providerReference !== undefined) return false
  // Deferred while the rail is unavailable: not before its next attempt (`MovementAttempts.ts`).
  if (!MovementAttempts.isDue(state.originationAttempts, yield* DateTime.now)) return false
  const details = state.details
  const company = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Company.aggregate, details.companyId))
  const account = company.state._tag === "Initial" ? undefined : company.state.payoutAccount
  if (account === undefined || account.payoutAccountId !== details.payoutAccountId) {
    yield* recordOutcome(payoutId, { status: "Failed", returnCode: accountChangedCode })
    return false
  }
  const movement = yield* MoneyMovement.MoneyMovement
  const reference = yield* movement
    .originatePayout({
      idempotencyKey: payoutId,
      companyId: details.companyId,
      payoutAccount: account.payoutAccountId,
      destination: {
        accountHolderName: account.accountHolderName,
        routingNumber: account.routingNumber,
        accountNumber: account.accountNumber,
        accountType: account.accountType,
      },
      amount: details.amount,
      ...(details.direction === "Debit" ? { direction: "Debit" as const } : {}),
    })
    .pipe(
      Effect.catchTags({
        MovementRefused: (refused) =>
          recordOutcome(payoutId, { status: "Refused", code: refused.code, reason: refused.reason }).pipe(
            Effect.as(undefined),
          ),
        ProviderUnavailable: (error) => recordUnavailable(payoutId, error.reason).pipe(Effect.as(undefined)),
      }),
    )
  if (reference === undefined) return false
  yield* recordOrigination(payoutId, reference.providerReference)
  return true
})

/** The rail was unavailable to answer the payout's status: deferred with backoff, or Failed after the outage limit. */
const recordStatusUnavailable = UseCase.fn("Payouts.recordStatusUnavailable")(function* (
  payoutId: PayoutId,
  reason: string,
) {
  const jitter = yield* Random.next
  const handled = yield* handleNow({ _tag: "RecordPayoutStatusUnavailable", payoutId, reason, jitter })
  return Payout.statusOf(handled.state)
})

/** The rail answered the payout's status again (still Pending): a status outage recorded is over. */
const recordStatusAnswered = UseCase.fn("Payouts.recordStatusAnswered")(function* (payoutId: PayoutId) {
  yield* handleNow({ _tag: "RecordPayoutStatusAnswered", payoutId })
})

/**
 * Asks the provider for an originated Pending payout's outcome and records it; answers the status
 * after. An unavailable rail (a timeout, a 5xx, a 429) defers the status question with the
 * origination's backoff (`MovementAttempts.ts`; Failed after 72 hours of outage); a payout deferred
 * and not due yet is not asked about; the first answer after an outage ends it.
 */
export const pollOutcome = Traced.fn("Payouts.pollOutcome")(function* (payoutId: PayoutId) {
  const payout = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Payout.aggregate, payoutId))
  const state = payout.state
  if (state._tag !== "Pending" || state.providerReference === undefined) return Payout.statusOf(state)
  if (!MovementAttempts.isDue(state.statusAttempts, yield* DateTime.now)) return "Pending" as const
  const movement = yield* MoneyMovement.MoneyMovement
  const answered = yield* movement
    .status({
      kind: "Payout",
      id: payoutId,
      providerReference: state.providerReference,
    })
    .pipe(
      Effect.map((outcome) => ({ _tag: "Answered" as const, outcome })),
      Effect.catchTag("ProviderUnavailable", (error) =>
        Effect.logWarning("payout: provider unavailable, status asked again later (backoff)", {
          payoutId,
          reason: error.reason,
        }).pipe(Effect.as({ _tag: "Unavailable" as const, reason: error.reason })),
      ),
    )
  if (answered._tag === "Unavailable") return yield* recordStatusUnavailable(payoutId, answered.reason)
  const outcome = answered.outcome
  if (outcome.status === "Pending") {
    if (state.statusAttempts !== undefined) yield* recordStatusAnswered(payoutId)
    return "Pending" as const
  }
  return yield* recordOutcome(payoutId, outcome)
})
