/**
 * The CompanyBalance aggregate: one company's available money, as ledger
 * entries not yet paid out (`Ledger.ts`), one stream per company
 * (`CompanyBalance-<companyId>`).
 *
 * - `RecordLedgerEntry` (issued by `LedgerPolicy.ts` when a transfer settles,
 *   is refunded...) makes an entry available; the same entry twice changes
 *   nothing.
 * - `PayOutBalance` (the payout worker, through `Payouts.payOutDue`) takes
 *   every available entry of one currency (an entry with an availability
 *   date, card money, only from that date on: `Ledger.isAvailable`) as the
 *   items of a new payout, when
 *   they add up to at least the minimum and the schedule allows (no payout of
 *   that currency within `interval` of the last one); otherwise nothing
 *   happens. The payout's amount is the items' sum, exactly. Of two workers
 *   racing for the same company, one wins (the stream's version) and the other
 *   finds nothing left: a balance is paid out once.
 * - `RestorePayoutItems` (`PayoutOutcomePolicy.ts`, when a payout fails) makes
 *   the payout's items available again.
 *
 * The available balance may be negative (a refund after the money was paid
 * out); no payout happens until later collections recover it.
 *
 * The stream grows with every settled transfer: its state is snapshotted
 * every 50 events (`snapshot`). State table: packages/domain/docs/Payout.md.
 */
import { DateTime, Schema } from "effect"
import { type Aggregate, accept, byCommand, byEvent, type Decision, nothing } from "../kernel/Decider.ts"
import type { DomainError } from "../kernel/DomainError.ts"
import { CompanyId, PartnerId, type PayoutAccountId, type PayoutId } from "../kernel/Ids.ts"
import * as Money from "../kernel/Money.ts"
import { type BalanceEvent, BalanceEvent as BalanceEventCodec } from "./BalanceEvents.ts"
import * as Ledger from "./Ledger.ts"

// ---------------------------------------------------------------------------
// Commands

export interface RecordLedgerEntry {
  readonly _tag: "RecordLedgerEntry"
  readonly companyId: CompanyId
  readonly partnerId: PartnerId
  readonly entry: Ledger.LedgerEntry
  readonly at: DateTime.Utc
}

export interface PayOutBalance {
  readonly _tag: "PayOutBalance"
  readonly companyId: CompanyId
  /** A new id from the edge: the payout's, also the idempotency key of its movement. */
  readonly payoutId: PayoutId
  readonly currency: Money.CurrencyCode
  /** The least amount paid out, in minor units (at least 1). */
  readonly minimumMinorUnits: number
  /** The schedule: no payout of this currency sooner than this after the last one (milliseconds). */
  readonly intervalMillis: number
  /** Where the money goes: the company's payout account now. */
  readonly payoutAccountId: PayoutAccountId
  readonly accountNumberMasked: string
  /**
   * How long a negative balance of the currency may last before the payout account is debited for it
   * (milliseconds from the first run that found it negative); absent: deficits are never debited.
   */
  readonly deficitGraceMillis?: number
  readonly at: DateTime.Utc
}

export interface RestorePayoutItems {
  readonly _tag: "RestorePayoutItems"
  readonly companyId: CompanyId
  readonly payoutId: PayoutId
  readonly items: ReadonlyArray<Ledger.LedgerEntry>
  readonly at: DateTime.Utc
}

export type Command = RecordLedgerEntry | PayOutBalance | RestorePayoutItems
export type Event = BalanceEvent

// ---------------------------------------------------------------------------
// State (declared as a Schema: it is snapshotted)

const LastPayout = Schema.Struct({ currency: Money.CurrencyCode, at: Schema.DateTimeUtcFromString })
/** A currency whose available balance a payout run found negative, and since when. */
const Deficit = Schema.Struct({ currency: Money.CurrencyCode, since: Schema.DateTimeUtcFromString })

const Initial = Schema.TaggedStruct("Initial", {})
const Open = Schema.TaggedStruct("Open", {
  companyId: CompanyId,
  partnerId: PartnerId,
  /** The entries available and not yet paid out, oldest first. */
  entries: Schema.Array(Ledger.LedgerEntry),
  /** When each currency was last paid out. */
  lastPayouts: Schema.Array(LastPayout),
  /** The currencies in deficit since a payout run found them negative (cleared once no longer negative). */
  deficits: Schema.optionalKey(Schema.Array(Deficit)),
})

export const State = Schema.Union([Initial, Open])
export type State = typeof State.Type

export const initialState: State = { _tag: "Initial" }

/** The balance of `currency` not paid out, available or not yet (minor units; may be negative). */
export const availableOf = (state: State, currency: Money.CurrencyCode): number =>
  state._tag === "Initial" ? 0 : Ledger.sumOf(state.entries, currency)

/** The balance of `currency` available at `at` (entries past their availability date; may be negative). */
export const availableAt = (state: State, currency: Money.CurrencyCode, at: DateTime.Utc): number =>
  state._tag === "Initial"
    ? 0
    : Ledger.sumOf(
        state.entries.filter((entry) => Ledger.isAvailable(entry, at)),
        currency,
      )

// ---------------------------------------------------------------------------
// Decide

const recordEntry = (command: RecordLedgerEntry, state: State): Decision<Event> => {
  if (state._tag === "Open" && state.entries.some((entry) => entry.entryId === command.entry.entryId)) return nothing
  return accept<Event>({
    _tag: "LedgerEntryRecorded",
    companyId: command.companyId,
    partnerId: command.partnerId,
    entry: command.entry,
    at: command.at,
  })
}

/** The balance's `items` leave it as payout `command.payoutId` of `minorUnits` (a Debit recovers a deficit). */
const paidOut = (
  command: PayOutBalance,
  state: Extract<State, { readonly _tag: "Open" }>,
  items: ReadonlyArray<Ledger.LedgerEntry>,
  minorUnits: number,
  direction: { readonly direction?: "Debit" },
): Decision<Event> =>
  accept<Event>({
    _tag: "BalancePaidOut",
    companyId: state.companyId,
    partnerId: state.partnerId,
    payoutId: command.payoutId,
    ...direction,
    amount: Money.make(minorUnits, command.currency),
    items,
    payoutAccountId: command.payoutAccountId,
    accountNumberMasked: command.accountNumberMasked,
    at: command.at,
  })

/**
 * A negative balance: the first run records the deficit (its grace period starts); a run once the
 * grace period has passed takes the entries as the items of a Debit payout of the deficit.
 */
const recoverDeficit = (
  command: PayOutBalance,
  state: Extract<State, { readonly _tag: "Open" }>,
  items: ReadonlyArray<Ledger.LedgerEntry>,
  deficit: number,
): Decision<Event> => {
  if (command.deficitGraceMillis === undefined) return nothing
  const since = state.deficits?.find((d) => d.currency === command.currency)?.since
  if (since === undefined)
    return accept<Event>({
      _tag: "BalanceDeficitObserved",
      companyId: state.companyId,
      partnerId: state.partnerId,
      deficit: Money.make(deficit, command.currency),
      at: command.at,
    })
  if (DateTime.toEpochMillis(command.at) - DateTime.toEpochMillis(since) < command.deficitGraceMillis) return nothing
  return paidOut(command, state, items, deficit, { direction: "Debit" })
}

const payOut = (command: PayOutBalance, state: State): Decision<Event> => {
  if (state._tag === "Initial") return nothing
  // Only money available now: a card payment's entry waits for the processor's availability date.
  const items = state.entries.filter(
    (entry) => entry.amount.currency === command.currency && Ledger.isAvailable(entry, command.at),
  )
  const amount = Ledger.sumOf(items, command.currency)
  if (amount < 0) return recoverDeficit(command, state, items, -amount)
  // No entries sum to 0, below the least payout of 1 minor unit: nothing to pay out.
  if (amount < Math.max(1, command.minimumMinorUnits)) return nothing
  const last = state.lastPayouts.find((payout) => payout.currency === command.currency)
  if (
    last !== undefined &&
    DateTime.toEpochMillis(command.at) - DateTime.toEpochMillis(last.at) < command.intervalMillis
  )
    return nothing
  return paidOut(command, state, items, amount, {})
}

const restore = (command: RestorePayoutItems, state: State): Decision<Event> => {
  if (state._tag === "Initial") return nothing
  const present = new Set(state.entries.map((entry) => entry.entryId))
  const items = command.items.filter((item) => !present.has(item.entryId))
  if (items.length === 0) return nothing
  return accept<Event>({
    _tag: "PayoutItemsRestored",
    companyId: state.companyId,
    partnerId: state.partnerId,
    payoutId: command.payoutId,
    items,
    at: command.at,
  })
}

export const decide: (command: Command, state: State) => Decision<Event> = byCommand<Command, State, Event>({
  RecordLedgerEntry: recordEntry,
  PayOutBalance: payOut,
  RestorePayoutItems: restore,
})

// ---------------------------------------------------------------------------
// Evolve

/** Forgets the deficits of currencies no longer negative. */
const withDeficitsSettled = (state: State): State => {
  // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent, an Initial state has no deficits (the test narrows the type)
  if (state._tag === "Initial" || state.deficits === undefined) return state
  const open = state.deficits.filter((d) => Ledger.sumOf(state.entries, d.currency) < 0)
  const { deficits: _deficits, ...rest } = state
  return open.length === 0 ? rest : { ...rest, deficits: open }
}

const evolveEntries = byEvent<Event, State>({
  BalanceDeficitObserved: (state, event) =>
    state._tag === "Initial"
      ? state
      : {
          ...state,
          deficits: [
            // Stryker disable next-line ArrayDeclaration: equivalent, an entry of no currency is never negative: withDeficitsSettled drops it
            ...(state.deficits ?? []).filter((d) => d.currency !== event.deficit.currency),
            { currency: event.deficit.currency, since: event.at },
          ],
        },
  LedgerEntryRecorded: (state, event) =>
    state._tag === "Initial"
      ? {
          _tag: "Open",
          companyId: event.companyId,
          partnerId: event.partnerId,
          entries: [event.entry],
          lastPayouts: [],
        }
      : { ...state, entries: [...state.entries, event.entry] },
  BalancePaidOut: (state, event) => {
    if (state._tag === "Initial") return state
    const taken = new Set(event.items.map((item) => item.entryId))
    const entries = state.entries.filter((entry) => !taken.has(entry.entryId))
    // A Debit payout recovers a deficit: it does not count as the currency's last payout.
    if (event.direction === "Debit") return { ...state, entries }
    return {
      ...state,
      entries,
      lastPayouts: [
        ...state.lastPayouts.filter((payout) => payout.currency !== event.amount.currency),
        { currency: event.amount.currency, at: event.at },
      ],
    }
  },
  PayoutItemsRestored: (state, event) =>
    state._tag === "Initial" ? state : { ...state, entries: [...state.entries, ...event.items] },
})

export const evolve = (state: State, event: Event): State => withDeficitsSettled(evolveEntries(state, event))

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "CompanyBalance",
  initialState,
  decide,
  evolve,
  events: BalanceEventCodec,
  eventVersion: () => 1,
  snapshot: { schemaVersion: 1, state: State as Schema.Codec<State, unknown>, every: 50 },
}
