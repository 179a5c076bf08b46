/**
 * Events of the CompanyBalance aggregate (`Balance.ts`): a company's ledger
 * entries as they become available, the payouts that take them, and the
 * failed payouts that give them back. Amounts of entries are signed
 * (`Ledger.SignedAmount`); a payout's amount is positive and equals the sum of
 * its items exactly.
 */
import { Schema } from "effect"
import { unionOf } from "../kernel/EventSchema.ts"
import { CompanyId, PartnerId, PayoutAccountId, PayoutId } from "../kernel/Ids.ts"
import { Money } from "../kernel/Money.ts"
import { LedgerEntry } from "./Ledger.ts"
import { PayoutDirection } from "./PayoutEvents.ts"

/**
 * Every event of a company's balance, by tag: the codec of its stream, each event's schema in its
 * `cases`. Each names the company and its partner, and the
 * instant `at`, around what it says.
 */
export const BalanceEvent = unionOf(
  { companyId: CompanyId, partnerId: PartnerId },
  {
    /** An entry became available in the company's balance (a settled transfer, a refund, a return...). */
    LedgerEntryRecorded: { entry: LedgerEntry },
    /** The available entries of one currency were taken by a payout (its items), to the payout account named. */
    BalancePaidOut: {
      payoutId: PayoutId,
      /** Absent: Credit. Debit: the items add up to a deficit, recovered from the payout account (`amount` is its size). */
      direction: Schema.optionalKey(PayoutDirection),
      amount: Money,
      items: Schema.Array(LedgerEntry),
      payoutAccountId: PayoutAccountId,
      accountNumberMasked: Schema.String,
    },
    /** A payout failed: its items are available again (and will be in the next payout). */
    PayoutItemsRestored: { payoutId: PayoutId, items: Schema.Array(LedgerEntry) },
    /**
     * A payout run found the available balance of `currency` negative (`deficit`, its size): the grace
     * period starts; a run after it debits the payout account for the deficit (a Debit payout).
     */
    BalanceDeficitObserved: { deficit: Money },
  },
)
export type BalanceEvent = typeof BalanceEvent.Type

/** The balance event tagged `Tag`. */
export type Of<Tag extends BalanceEvent["_tag"]> = Extract<BalanceEvent, { readonly _tag: Tag }>
