/**
 * Events of the Payout aggregate (`Payout.ts`): one credit of a company's
 * available balance to its payout account, with the ledger entries it pays
 * out (its items, which add up to its amount exactly). The status an event
 * moves the payout to is its tag's, in one table (`statusOf`); events recorded
 * before it carry a `status` field too, which decoding ignores.
 */
import { Schema } from "effect"
import { CalendarDate } from "../kernel/CalendarDate.ts"
import { unionOf } from "../kernel/EventSchema.ts"
import { CompanyId, PartnerId, PayoutAccountId, PayoutId } from "../kernel/Ids.ts"
import { Money } from "../kernel/Money.ts"
import { LedgerEntry } from "./Ledger.ts"

/** The statuses of a payout: Pending until the bank pays it (Paid) or refuses it (Failed). */
export const payoutStatuses = ["Pending", "Paid", "Failed"] as const
export const PayoutStatus = Schema.Literals(payoutStatuses)
export type PayoutStatus = typeof PayoutStatus.Type

/**
 * Which way a payout moves money: Credit pays the company's available balance to its payout account;
 * Debit recovers a deficit (a negative available balance past its grace period) from that account.
 */
export const PayoutDirection = Schema.Literals(["Credit", "Debit"])
export type PayoutDirection = typeof PayoutDirection.Type

/** What an outage of the rail records: how many attempts failed, since when, and when to try again. */
const outageFields = {
  failures: Schema.Int,
  firstFailedAt: Schema.DateTimeUtcFromString,
  retryAt: Schema.DateTimeUtcFromString,
  reason: Schema.String,
}

/**
 * Every event of a payout, by tag: the codec of its stream, each event's schema in its `cases`. Each
 * names the payout, and the instant `at`, around what it says.
 */
export const PayoutEvent = unionOf(
  { payoutId: PayoutId },
  {
    /** A payout was created from the company's available balance; it is Pending until its movement's outcome. */
    PayoutCreated: {
      companyId: CompanyId,
      partnerId: PartnerId,
      /** Absent: Credit (every payout before deficits were recovered). A Debit's items add up to minus its amount. */
      direction: Schema.optionalKey(PayoutDirection),
      amount: Money,
      items: Schema.Array(LedgerEntry),
      payoutAccountId: PayoutAccountId,
      accountNumberMasked: Schema.String,
      /** When the money is expected on the account: the next business day. */
      arrivalDate: CalendarDate,
    },
    /** The money-movement provider accepted the payout (idempotency key: the payout id) under its reference. */
    PayoutOriginated: { providerReference: Schema.String },
    /** The money reached the company's payout account. */
    PayoutPaid: {},
    /**
     * The bank refused the payout (or returned it), with an ACH return code, or the rail refused to
     * originate it (no return code: `reason` is the rail's words); its money goes back to the balance.
     * `accountLevel`: the reason is the account itself (`CompanyPayoutAccount.isAccountLevel`): the
     * company's payout account becomes Errored (`PayoutAccountPolicy`).
     */
    PayoutFailed: {
      returnCode: Schema.optionalKey(Schema.String),
      reason: Schema.String,
      accountLevel: Schema.optionalKey(Schema.Literal(true)),
    },
    /**
     * The rail could not be reached to originate the payout: it stays Pending and is tried again at
     * `retryAt` (`MovementAttempts.ts`), not at the next payout cycle.
     */
    PayoutOriginationDeferred: outageFields,
    /**
     * The rail could not be reached to ask where the originated payout stands: it stays Pending and its
     * status is asked again at `retryAt` (`MovementAttempts.ts`, the origination's backoff).
     */
    PayoutStatusDeferred: outageFields,
    /** The rail answered the payout's status again after an outage: the outage is over, its backoff forgotten. */
    PayoutStatusResumed: {},
  },
)
export type PayoutEvent = typeof PayoutEvent.Type

/** The payout event tagged `Tag`. */
export type Of<Tag extends PayoutEvent["_tag"]> = Extract<PayoutEvent, { readonly _tag: Tag }>

/** The status each event moves a payout to (undefined: the status stays). */
const statusByEvent: { readonly [Tag in PayoutEvent["_tag"]]: PayoutStatus | undefined } = {
  PayoutCreated: "Pending",
  PayoutPaid: "Paid",
  PayoutFailed: "Failed",
  PayoutOriginated: undefined,
  PayoutOriginationDeferred: undefined,
  PayoutStatusDeferred: undefined,
  PayoutStatusResumed: undefined,
}

/** The status `event` moves its payout to, or undefined when it leaves the status as it was. */
export const statusOf = (event: PayoutEvent): PayoutStatus | undefined => statusByEvent[event._tag]
