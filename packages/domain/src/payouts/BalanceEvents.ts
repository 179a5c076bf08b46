/**
 * Events of the CompanyBalance aggregate (`Balance.ts`): a company's ledger
 * entries as they become available, the payouts that take them, and the
 * failed payouts that give them back. Amounts of entries are signed
 * (`Ledger.SignedAmount`); a payout's amount is positive and equals the sum of
 * its items exactly.
 */
import { Schema } from "effect"
import { eventsOf } from "../kernel/EventSchema.ts"
import { CompanyId, PartnerId, PayoutAccountId, PayoutId } from "../kernel/Ids.ts"
import { Money } from "../kernel/Money.ts"
import { LedgerEntry } from "./Ledger.ts"
import { PayoutDirection } from "./PayoutEvents.ts"

/** Every balance event names the company and its partner, and the instant `at`. */
const balanceEvent = eventsOf({ companyId: CompanyId, partnerId: PartnerId })

/** An entry became available in the company's balance (a settled transfer, a refund, a return...). */
export const LedgerEntryRecorded = balanceEvent("LedgerEntryRecorded", { entry: LedgerEntry })
export type LedgerEntryRecorded = typeof LedgerEntryRecorded.Type

/** The available entries of one currency were taken by a payout (its items), to the payout account named. */
export const BalancePaidOut = balanceEvent("BalancePaidOut", {
  payoutId: PayoutId,
  /** Absent: Credit. Debit: the items add up to a deficit, recovered from the payout account (`amount` is its size). */
  direction: Schema.optionalKey(PayoutDirection),
  amount: Money,
  items: Schema.Array(LedgerEntry),
  payoutAccountId: PayoutAccountId,
  accountNumberMasked: Schema.String,
})
export type BalancePaidOut = typeof BalancePaidOut.Type

/** A payout failed: its items are available again (and will be in the next payout). */
export const PayoutItemsRestored = balanceEvent("PayoutItemsRestored", {
  payoutId: PayoutId,
  items: Schema.Array(LedgerEntry),
})
export type PayoutItemsRestored = typeof PayoutItemsRestored.Type

/**
 * A payout run found the available balance of `currency` negative (`deficit`, its size): the grace
 * period starts; a run after it debits the payout account for the deficit (a Debit payout).
 */
export const BalanceDeficitObserved = balanceEvent("BalanceDeficitObserved", { deficit: Money })
export type BalanceDeficitObserved = typeof BalanceDeficitObserved.Type

/** Every event of a company's balance: the codec of its stream. */
export const BalanceEvent = Schema.Union([
  LedgerEntryRecorded,
  BalancePaidOut,
  PayoutItemsRestored,
  BalanceDeficitObserved,
])
export type BalanceEvent = typeof BalanceEvent.Type
