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
 * - A transfer that carries a platform fee (a charity gift's, or the
 *   partner's ACH fee schedule's) settles as its entry of the whole amount
 *   plus a "fee" entry, minus the fee (`feeEntryOf`): a gift's company nets
 *   what the gift promised it (`charityReceives`). A return gives the fee back
 *   (the money never stayed); a refund does not (the fee was earned on money
 *   that arrived). A card payment's fee likewise (`cardFeeEntryOf`).
 * - A debit the bank brings back with a return code whose return fee is
 *   passed on to the company: a "returnFee" entry, minus that fee
 *   (`returnFeeEntryOf`; docs: packages/domain/docs/Fees.md).
 * - A payout takes every available entry at once (its items); a failed payout
 *   gives them back (`Balance.ts`).
 * - The available balance may go negative (a refund or return after its
 *   money was paid out): the negative entry stays available and later
 *   collections recover it, as Stripe does; a payout happens only when the
 *   entries add up to at least the minimum.
 *
 * One function per event kind (`entryOfSettled`, `entryOfRefundRequested`, ...);
 * `entryOfTransferEvent` dispatches. A new movement (a returned transfer, a
 * refund as its own transfer, a card payment, a charity gift, a fee) is one
 * more function and one more case: the policy that records entries
 * (`LedgerPolicy.ts`) and the balance need nothing else.
 *
 * Each entry has an id derived from what caused it (`<transferId>:settled`,
 * `<transferId>:refund:<refundId>`), so recording one twice changes nothing.
 */
import { DateTime, Schema } from "effect"
import * as Ids from "../kernel/Ids.ts"
import * as Money from "../kernel/Money.ts"
import { type PaymentRequest, type PaymentRequestEvents, type Transfer, TransferEvents } from "../payments/index.ts"

/** What an entry is: the items of a payout (GET /Payouts/{payoutId}/Items) have these types. */
export const entryTypes = [
  "payment",
  "instalment",
  "charity",
  "card",
  "refund",
  "return",
  "fee",
  "dispute",
  "returnFee",
] as const
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
  /** The card payment, for an entry of type "card" or "dispute". */
  cardPaymentId: Schema.optionalKey(Ids.CardPaymentId),
  amount: SignedAmount,
  /**
   * When the money becomes available (a card payment: the processor's availability date); until then
   * the entry is pending and no payout takes it. Absent: available when recorded.
   */
  availableAt: Schema.optionalKey(Schema.DateTimeUtcFromString),
})
export type LedgerEntry = typeof LedgerEntry.Type

/** Whether the entry's money is available at `at` (no availability date: since it was recorded). */
export const isAvailable = (entry: LedgerEntry, at: DateTime.Utc): boolean =>
  entry.availableAt === undefined || DateTime.toEpochMillis(entry.availableAt) <= DateTime.toEpochMillis(at)

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
 * balance at once (as Stripe does: the money is reserved for the payer while the credit moves). A refund
 * recorded at once (`TransferRefunded`, before refunds were movements of their own) leaves it the same way.
 */
export const entryOfRefundRequested = (
  details: TransferDetails,
  event: TransferEvents.Of<"TransferRefundRequested" | "TransferRefunded">,
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
  event: TransferEvents.Of<"TransferRefundFailed">,
): LedgerEntry => ({
  entryId: `${details.transferId}:refund:${event.refundId}:failed`,
  type: "refund",
  transferId: details.transferId,
  refundId: event.refundId,
  amount: { minorUnits: event.amount.minorUnits, currency: event.amount.currency },
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
    case "TransferRefunded":
      return entryOfRefundRequested(state.details, event)
    case "TransferRefundFailed":
      return entryOfRefundFailed(state.details, event)
    // Stryker disable StringLiteral,ConditionalExpression: equivalent, an event no case names returns undefined too (the cases are listed for the exhaustiveness check)
    case "TransferInitiated":
    case "TransferFailed":
    case "TransferOriginated":
    case "TransferRefundOriginated":
    case "TransferRefundCompleted":
    case "TransferOriginationDeferred":
    case "TransferStatusDeferred":
    case "TransferStatusResumed":
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

/**
 * The provider's return fee passed on to the company (`TransferFailed` or `TransferReturned` with a
 * `returnFee` whose `passedOn` is true): a "returnFee" entry minus it (`<transferId>:returnFee`).
 * Undefined for other events, and for a return fee the platform bears.
 */
export const returnFeeEntryOf = (
  event: TransferEvents.TransferEvent,
  state: Transfer.State,
): LedgerEntry | undefined => {
  if (state._tag === "Initial") return undefined
  // Stryker disable next-line ConditionalExpression: equivalent, the test only narrows the type (no other transfer event carries a returnFee: undefined below too)
  if (event._tag !== "TransferFailed" && event._tag !== "TransferReturned") return undefined
  const fee = event.returnFee
  if (fee === undefined || !fee.passedOn || fee.amount.minorUnits === 0) return undefined
  return {
    entryId: `${state.details.transferId}:returnFee`,
    type: "returnFee",
    transferId: state.details.transferId,
    amount: { minorUnits: -fee.amount.minorUnits, currency: fee.amount.currency },
  }
}

// ---------------------------------------------------------------------------
// Payment requests paid by card

/**
 * A payment request paid in the app with a saved card: the card processor's money, available to the
 * company from the processor's availability date (`availableAt`; absent: at once).
 */
export const entryOfPaidByCard = (
  request: PaymentRequest.RequestDetails,
  event: PaymentRequestEvents.Of<"PaymentRequestPaidByCard">,
): LedgerEntry => ({
  entryId: `${event.cardPaymentId}:card`,
  type: "card",
  cardPaymentId: event.cardPaymentId,
  amount: { minorUnits: request.amount.minorUnits, currency: request.amount.currency },
  ...(event.availableAt === undefined ? {} : { availableAt: event.availableAt }),
})

/**
 * The platform's fee of a payment request paid by card (`PaymentRequestPaidByCard.platformFee`): a "fee"
 * entry minus it (`<cardPaymentId>:fee`), available with the payment's money. Undefined without a fee.
 */
export const cardFeeEntryOf = (event: PaymentRequestEvents.Of<"PaymentRequestPaidByCard">): LedgerEntry | undefined =>
  feeOfCardPayment(event)

// ---------------------------------------------------------------------------
// Card payments on a terminal

/**
 * A terminal card payment registered for one of the partner's companies (POST /cardpayment): available
 * from the processor's availability date (absent: at once).
 */
export const entryOfCardPayment = (event: CardPaymentRegisteredFacts): LedgerEntry => ({
  entryId: `${event.cardPaymentId}:card`,
  type: "card",
  cardPaymentId: event.cardPaymentId,
  amount: { minorUnits: event.amount.minorUnits, currency: event.amount.currency },
  ...(event.availableAt === undefined ? {} : { availableAt: event.availableAt }),
})

/**
 * The platform's fee of a terminal card payment for a company (`CardPaymentRegistered.platformFee`): a
 * "fee" entry minus it (`<cardPaymentId>:fee`), available with the payment. Undefined without a fee.
 */
export const terminalCardFeeEntryOf = (event: CardPaymentRegisteredFacts): LedgerEntry | undefined =>
  feeOfCardPayment(event)

/** A card payment's platform fee as a "fee" entry minus it, available with the payment; undefined without a fee. */
const feeOfCardPayment = (event: Omit<CardPaymentRegisteredFacts, "amount">): LedgerEntry | undefined =>
  event.platformFee === undefined || event.platformFee.minorUnits === 0
    ? undefined
    : {
        entryId: `${event.cardPaymentId}:fee`,
        type: "fee",
        cardPaymentId: event.cardPaymentId,
        amount: { minorUnits: -event.platformFee.minorUnits, currency: event.platformFee.currency },
        ...(event.availableAt === undefined ? {} : { availableAt: event.availableAt }),
      }

// ---------------------------------------------------------------------------
// Card disputes

/** What the ledger reads of a card dispute's event: the dispute, and a closed one's outcome. */
export type DisputeFacts =
  | { readonly _tag: "CardDisputeOpened" | "CardDisputeStatusChanged"; readonly dispute: DisputedFacts }
  | { readonly _tag: "CardDisputeClosed"; readonly dispute: DisputedFacts; readonly outcome: "Won" | "Lost" }

/** What the ledger reads of the dispute each of its events carries. */
export interface DisputedFacts {
  readonly disputeId: string
  readonly payment: { readonly cardPaymentId: Ids.CardPaymentId }
  readonly amount: Money.Money
  readonly fee: Money.Money
}

const disputeEntry = (event: DisputeFacts, part: "amount" | "fee"): LedgerEntry | undefined => {
  const { disputeId, payment } = event.dispute
  const money = event.dispute[part]
  const opened = event._tag === "CardDisputeOpened"
  // Stryker disable next-line ConditionalExpression: equivalent as true, only a closed dispute's event has an outcome (DisputeFacts); the test narrows the type
  const closed = event._tag === "CardDisputeClosed"
  const won = closed && event.outcome === "Won"
  if ((!opened && !won) || money.minorUnits === 0) return undefined
  const sign = opened ? -1 : 1
  return {
    entryId: `${disputeId}:dispute${part === "fee" ? ":fee" : ""}${won ? ":won" : ""}`,
    type: part === "fee" ? "fee" : "dispute",
    cardPaymentId: payment.cardPaymentId,
    amount: { minorUnits: sign * money.minorUnits, currency: money.currency },
  }
}

/**
 * The entry of a card dispute's amount: opened, the disputed amount leaves the company's balance at
 * once ("dispute", negative); won, it comes back (positive); lost or a status change, nothing more.
 * The id names the dispute and the step (`<disputeId>:dispute`, `<disputeId>:dispute:won`), so a
 * notification recorded twice counts once.
 */
export const disputeEntryOf = (event: DisputeFacts): LedgerEntry | undefined => disputeEntry(event, "amount")

/** The entry of a card dispute's fee ("fee"): taken when opened, given back when won; none when zero. */
export const disputeFeeEntryOf = (event: DisputeFacts): LedgerEntry | undefined => disputeEntry(event, "fee")

/** What the ledger reads of a card refund's event. */
export interface CardRefundFacts {
  readonly _tag: "CardRefundRequested" | "CardRefundCompleted" | "CardRefundFailed"
  readonly payment: { readonly cardPaymentId: Ids.CardPaymentId }
  readonly refundId: TransferEvents.RefundId
  readonly amount: Money.Money
}

/**
 * The entry of a card refund: asked for, its amount leaves the company's balance at once ("refund",
 * negative, `<cardPaymentId>:refund:<refundId>`), as an ACH refund's; failed, it comes back (`...:failed`).
 */
export const cardRefundEntryOf = (event: CardRefundFacts): LedgerEntry | undefined => {
  if (event._tag === "CardRefundCompleted") return undefined
  const failed = event._tag === "CardRefundFailed"
  return {
    entryId: `${event.payment.cardPaymentId}:refund:${event.refundId}${failed ? ":failed" : ""}`,
    type: "refund",
    cardPaymentId: event.payment.cardPaymentId,
    refundId: event.refundId,
    amount: { minorUnits: (failed ? 1 : -1) * event.amount.minorUnits, currency: event.amount.currency },
  }
}

/** What the ledger reads of a registered card payment. */
export interface CardPaymentRegisteredFacts {
  readonly cardPaymentId: Ids.CardPaymentId
  readonly amount: Money.Money
  readonly availableAt?: DateTime.Utc | undefined
  readonly platformFee?: Money.Money | undefined
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
