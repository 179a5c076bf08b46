/**
 * The ledger: how money movements become a company's balance, as pure
 * functions of the domain's events (Stripe's balance transactions, Dwolla's
 * balance, GoCardless's payout items).
 *
 * - A transfer initiated and not yet settled is **pending** money of its
 *   company (`pendingOf`: the company's Pending transfers).
 * - A transfer that settles becomes **available**: one entry of type
 *   "payment" (a payment request's transfer) or "instalment" (a plan's),
 *   plus its amount.
 * - A refund takes money back when it is asked for: an entry "refund", minus
 *   its amount (a refund whose credit fails gives it back: a "refund" entry
 *   plus its amount); a return (a settled transfer the bank brought back,
 *   R10...) likewise, "return", minus the transfer's amount.
 * - A transfer that carries a platform fee (a charity gift's) settles as a
 *   "charity" entry of its whole amount plus a "fee" entry, minus the fee
 *   (`feeEntryOf`): the company nets what the gift promised it
 *   (`charityReceives`). A return gives the fee back (the money never
 *   stayed); a refund does not (the fee was earned on a gift that arrived).
 * - A payout takes every available entry at once (its items); a failed payout
 *   gives them back (`Balance.ts`).
 * - The available balance may go negative (a refund or return after its
 *   money was paid out): the negative entry stays available and later
 *   collections recover it, as Stripe does; a payout happens only when the
 *   entries add up to at least the minimum.
 *
 * One function per event kind (`entryOfSettled`, `entryOfRefunded`, ...);
 * `entryOfTransferEvent` dispatches. A new movement (a returned transfer, a
 * refund as its own transfer, a card payment, a charity gift, a fee) is one
 * more function and one more case: the policy that records entries
 * (`LedgerPolicy.ts`) and the balance need nothing else.
 *
 * Each entry has an id derived from what caused it (`<transferId>:settled`,
 * `<transferId>:refund:<refundId>`), so recording one twice changes nothing.
 */
import { Schema } from "effect"
import * as Ids from "../kernel/Ids.ts"
import * as Money from "../kernel/Money.ts"
import { type PaymentRequest, type PaymentRequestEvents, type Transfer, TransferEvents } from "../payments/index.ts"

/** What an entry is: the items of a payout (GET /Payouts/{payoutId}/Items) have these types. */
export const entryTypes = ["payment", "instalment", "charity", "card", "refund", "return", "fee"] as const
export const EntryType = Schema.Literals(entryTypes)
export type EntryType = typeof EntryType.Type

/** A signed whole number of minor units: credits are positive, refunds, returns and fees negative. */
export const SignedMinorUnits = Schema.Finite.check(
  Schema.isInt({ message: "must be a whole number of minor units" }),
  Schema.isBetween({ minimum: -Money.maxMinorUnits, maximum: Money.maxMinorUnits }),
)

/** An amount that may be negative (a balance, a debit entry), in one currency. */
export const SignedAmount = Schema.Struct({ minorUnits: SignedMinorUnits, currency: Money.CurrencyCode })
export type SignedAmount = typeof SignedAmount.Type

/** One line of a company's ledger: what moved, because of what, and how much (signed). */
export const LedgerEntry = Schema.Struct({
  entryId: Schema.String,
  type: EntryType,
  transferId: Schema.optionalKey(Ids.TransferId),
  refundId: Schema.optionalKey(TransferEvents.RefundId),
  /** The card payment, for an entry of type "card". */
  cardPaymentId: Schema.optionalKey(Ids.CardPaymentId),
  amount: SignedAmount,
})
export type LedgerEntry = typeof LedgerEntry.Type

/** The sum of entries of one currency (minor units; may be negative). */
export const sumOf = (entries: ReadonlyArray<LedgerEntry>, currency: Money.CurrencyCode): number =>
  entries.reduce((sum, entry) => (entry.amount.currency === currency ? sum + entry.amount.minorUnits : sum), 0)

/** The currencies the entries are in, sorted. */
export const currenciesOf = (entries: ReadonlyArray<LedgerEntry>): ReadonlyArray<Money.CurrencyCode> =>
  [...new Set(entries.map((entry) => entry.amount.currency))].sort()

// ---------------------------------------------------------------------------
// Transfers: one function per event kind

/** What the ledger reads of a transfer: whose money it is and what kind of collection. */
type TransferDetails = Transfer.TransferDetails

const collectionType = (details: TransferDetails): EntryType =>
  details.charityTransactionId !== undefined
    ? "charity"
    : details.paymentPlanId === undefined
      ? "payment"
      : "instalment"

/** A settled transfer: its amount becomes available to the company. */
export const entryOfSettled = (details: TransferDetails): LedgerEntry => ({
  entryId: `${details.transferId}:settled`,
  type: collectionType(details),
  transferId: details.transferId,
  amount: { minorUnits: details.amount.minorUnits, currency: details.amount.currency },
})

/**
 * A refund asked for on a settled transfer (`TransferRefundRequested`): its amount leaves the company's
 * balance at once (as Stripe does: the money is reserved for the payer while the credit moves).
 */
export const entryOfRefundRequested = (
  details: TransferDetails,
  event: TransferEvents.TransferRefundRequested,
): LedgerEntry => ({
  entryId: `${details.transferId}:refund:${event.refundId}`,
  type: "refund",
  transferId: details.transferId,
  refundId: event.refundId,
  amount: { minorUnits: -event.amount.minorUnits, currency: event.amount.currency },
})

/** A refund whose credit failed (`TransferRefundFailed`): its amount comes back to the company's balance. */
export const entryOfRefundFailed = (
  details: TransferDetails,
  event: TransferEvents.TransferRefundFailed,
): LedgerEntry => ({
  entryId: `${details.transferId}:refund:${event.refundId}:failed`,
  type: "refund",
  transferId: details.transferId,
  refundId: event.refundId,
  amount: { minorUnits: event.amount.minorUnits, currency: event.amount.currency },
})

/** A refund recorded at once (`TransferRefunded`, before refunds were movements of their own). */
export const entryOfRefunded = (details: TransferDetails, event: TransferEvents.TransferRefunded): LedgerEntry => ({
  entryId: `${details.transferId}:refund:${event.refundId}`,
  type: "refund",
  transferId: details.transferId,
  refundId: event.refundId,
  amount: { minorUnits: -event.amount.minorUnits, currency: event.amount.currency },
})

/** A settled transfer the bank brought back (`TransferReturned`, e.g. R10): its amount leaves the balance. */
export const entryOfReturned = (details: TransferDetails): LedgerEntry => ({
  entryId: `${details.transferId}:return`,
  type: "return",
  transferId: details.transferId,
  amount: { minorUnits: -details.amount.minorUnits, currency: details.amount.currency },
})

/**
 * The entry a transfer's event adds to its company's ledger, given the transfer's state after it;
 * undefined for events that move no available money (initiation and failure before settlement change
 * only what is pending, `pendingOf`; originations and a refund's completion move nothing more;
 * reimbursements are the provider's money).
 */
export const entryOfTransferEvent = (
  event: TransferEvents.TransferEvent,
  state: Transfer.State,
): LedgerEntry | undefined => {
  if (state._tag === "Initial") return undefined
  switch (event._tag) {
    case "TransferSettled":
      return entryOfSettled(state.details)
    case "TransferReturned":
      return entryOfReturned(state.details)
    case "TransferRefundRequested":
      return entryOfRefundRequested(state.details, event)
    case "TransferRefundFailed":
      return entryOfRefundFailed(state.details, event)
    case "TransferRefunded":
      return entryOfRefunded(state.details, event)
    // Stryker disable StringLiteral,ConditionalExpression: equivalent, an event no case names returns undefined too (the cases are listed for the exhaustiveness check)
    case "TransferInitiated":
    case "TransferFailed":
    case "TransferOriginated":
    case "TransferRefundOriginated":
    case "TransferRefundCompleted":
    case "TransferOriginationDeferred":
    case "TransferReimbursementApplied":
    case "TransferReimbursed":
      return undefined
  }
}
// Stryker restore StringLiteral,ConditionalExpression

/**
 * The platform's fee of a transfer that carries one (`TransferInitiated.platformFee`, a charity gift's):
 * settled, a "fee" entry minus the fee; returned, a "fee" entry giving it back (`:fee:returned`).
 * Undefined for other events and transfers without a fee.
 */
export const feeEntryOf = (event: TransferEvents.TransferEvent, state: Transfer.State): LedgerEntry | undefined => {
  if (state._tag === "Initial") return undefined
  const fee = state.details.platformFee
  if (fee === undefined || fee.minorUnits === 0) return undefined
  const transferId = state.details.transferId
  switch (event._tag) {
    case "TransferSettled":
      return {
        entryId: `${transferId}:fee`,
        type: "fee",
        transferId,
        amount: { minorUnits: -fee.minorUnits, currency: fee.currency },
      }
    case "TransferReturned":
      return {
        entryId: `${transferId}:fee:returned`,
        type: "fee",
        transferId,
        amount: { minorUnits: fee.minorUnits, currency: fee.currency },
      }
    // Stryker disable next-line ConditionalExpression: equivalent, without the default case the switch falls through to undefined too
    default:
      return undefined
  }
}

// ---------------------------------------------------------------------------
// Payment requests paid by card

/** A payment request paid in the app with a saved card: the card processor's money becomes available. */
export const entryOfPaidByCard = (
  request: PaymentRequest.RequestDetails,
  event: PaymentRequestEvents.PaymentRequestPaidByCard,
): LedgerEntry => ({
  entryId: `${event.cardPaymentId}:card`,
  type: "card",
  cardPaymentId: event.cardPaymentId,
  amount: { minorUnits: request.amount.minorUnits, currency: request.amount.currency },
})

// ---------------------------------------------------------------------------
// Card payments on a terminal

/** A terminal card payment registered for one of the partner's companies (POST /cardpayment): available at once. */
export const entryOfCardPayment = (event: CardPaymentRegisteredFacts): LedgerEntry => ({
  entryId: `${event.cardPaymentId}:card`,
  type: "card",
  cardPaymentId: event.cardPaymentId,
  amount: { minorUnits: event.amount.minorUnits, currency: event.amount.currency },
})

/** What the ledger reads of a registered card payment. */
export interface CardPaymentRegisteredFacts {
  readonly cardPaymentId: Ids.CardPaymentId
  readonly amount: Money.Money
}

// ---------------------------------------------------------------------------
// Pending money

/** What `pendingOf` reads of a transfer (a `transfers` read-model document fits). */
export interface TransferStatusAndAmount {
  readonly status: string
  readonly amount: Money.Money
}

/** The company's pending money in `currency`: its transfers initiated and not yet settled or failed. */
export const pendingOf = (transfers: ReadonlyArray<TransferStatusAndAmount>, currency: Money.CurrencyCode): number =>
  transfers.reduce(
    (sum, transfer) =>
      transfer.status === "Pending" && transfer.amount.currency === currency ? sum + transfer.amount.minorUnits : sum,
    0,
  )
