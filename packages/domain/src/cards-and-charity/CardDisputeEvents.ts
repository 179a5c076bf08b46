/**
 * The events of CardDispute (`CardDispute.ts`): a cardholder's dispute of a card payment opened at the
 * card processor, its status while open, and its outcome.
 */
import { Schema } from "effect"
import { eventsOf } from "../kernel/EventSchema.ts"
import { CardPaymentId, CompanyId, PartnerId, PaymentRequestId } from "../kernel/Ids.ts"
import * as Money from "../kernel/Money.ts"

/** Where a dispute stands: open (`NeedsResponse`, `UnderReview`) or decided (`Won`, `Lost`). */
export const DisputeStatus = Schema.Literals(["NeedsResponse", "UnderReview", "Won", "Lost"])
export type DisputeStatus = typeof DisputeStatus.Type

/** An open dispute's status. */
export const OpenStatus = Schema.Literals(["NeedsResponse", "UnderReview"])
export type OpenStatus = typeof OpenStatus.Type

/** A decided dispute's outcome. */
export const Outcome = Schema.Literals(["Won", "Lost"])
export type Outcome = typeof Outcome.Type

/** The payment disputed and whose money it is. */
export const DisputedPayment = Schema.Struct({
  cardPaymentId: CardPaymentId,
  /** The payment request paid in the app with this card payment (absent: a terminal payment). */
  paymentRequestId: Schema.optionalKey(PaymentRequestId),
  partnerId: PartnerId,
  companyId: CompanyId,
})
export type DisputedPayment = typeof DisputedPayment.Type

/** What a dispute is about, carried by each of its events (a webhook or ledger entry needs no lookup). */
export const Dispute = Schema.Struct({
  /** The processor's id of the dispute (Stripe `dp_...`): the stream's id. */
  disputeId: Schema.String,
  payment: DisputedPayment,
  /** The amount disputed (at most the payment's). */
  amount: Money.Money,
  /** The processor's dispute fee (may be zero), in the amount's currency. */
  fee: Money.Money,
  /** The cardholder's reason as the processor names it (e.g. `fraudulent`). */
  reason: Schema.String,
})
export type Dispute = typeof Dispute.Type

/** Every dispute event carries what the dispute is about, and the instant `at`. */
const disputeEvent = eventsOf({ dispute: Dispute })

/** The processor opened a dispute: its amount and fee leave the company's balance at once. */
export const CardDisputeOpened = disputeEvent("CardDisputeOpened", { status: OpenStatus })
export type CardDisputeOpened = typeof CardDisputeOpened.Type

/** An open dispute moved between NeedsResponse and UnderReview. */
export const CardDisputeStatusChanged = disputeEvent("CardDisputeStatusChanged", { status: OpenStatus })
export type CardDisputeStatusChanged = typeof CardDisputeStatusChanged.Type

/** The dispute was decided: Won gives the amount and fee back to the company, Lost keeps them taken. */
export const CardDisputeClosed = disputeEvent("CardDisputeClosed", { outcome: Outcome })
export type CardDisputeClosed = typeof CardDisputeClosed.Type

export const CardDisputeEvent = Schema.Union([CardDisputeOpened, CardDisputeStatusChanged, CardDisputeClosed])
export type CardDisputeEvent = typeof CardDisputeEvent.Type
