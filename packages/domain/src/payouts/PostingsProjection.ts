/**
 * The `ledger_postings` read model: the platform's books, one document per
 * money event posted (`Postings.postingOf`), kept from the events alone
 * (pure), so it is rebuilt with the other read models. The trial balance sums
 * its lines up to an instant (`TrialBalance.ts`; on PostgreSQL one statement
 * over the documents, `PgLedger`). Sort key: when it was posted; index keys:
 * `companyId`. Two projections keep it:
 *
 * - `projection`: the events that name their partner and company (the
 *   CompanyBalance streams', a transfer's initiation with its provider cost,
 *   a company's card payment, or a payment request paid in the app by card,
 *   with its processor's cost). Id: the event's id.
 * - `returnFees`: the return fee the platform keeps of a transfer the bank
 *   brings back (`TransferFailed`/`TransferReturned`, which name neither
 *   partner nor company). Its document (id `<transferId>:returnFee`) is opened
 *   when the transfer is initiated with a return fee not passed on: a posting
 *   with no lines yet (it weighs nothing in the trial balance) holding the
 *   transfer's partner and company, the state the books keep per transfer;
 *   the return posts its lines into it, at the return's instant; a failure
 *   without a return fee (the rail refused it, an outage) deletes it. A
 *   transfer initiated without those terms (an old stream) opens nothing and
 *   its return posts nothing.
 */
import type { CardPaymentsProjection } from "../cards-and-charity/index.ts"
import type { Projection } from "../infrastructure/ReadModel.ts"
import type { PaymentRequestsProjection, TransfersProjection } from "../payments/index.ts"
import type { BalanceEnvelope } from "./BalancesProjection.ts"
import * as Postings from "./Postings.ts"

export const collection = "ledger_postings"

export const PostingDocument = Postings.Posting
export type PostingDocument = Postings.Posting

/** The envelopes the books read. */
export type PostingsEnvelope =
  | BalanceEnvelope
  | TransfersProjection.TransferEnvelope
  | CardPaymentsProjection.CardPaymentEnvelope
  | PaymentRequestsProjection.PaymentRequestEnvelope

/** The posting of an envelope that names its partner and company (undefined: none). */
const postingOf = (envelope: PostingsEnvelope): Postings.Posting | undefined => {
  switch (envelope.streamType) {
    case "CompanyBalance":
      return Postings.postingOf(envelope.event)
    case "Transfer":
      return envelope.event._tag === "TransferInitiated" ? Postings.postingOf(envelope.event) : undefined
    case "CardPayment":
      return Postings.postingOf(envelope.event)
    case "PaymentRequest":
      return envelope.event._tag === "PaymentRequestPaidByCard" ? Postings.postingOf(envelope.event) : undefined
    default:
      return undefined
  }
}

const index = (doc: PostingDocument) => ({
  partnerId: doc.partnerId,
  keys: doc.companyId === undefined ? {} : { companyId: doc.companyId },
  sortKey: Postings.postedAtIso(doc),
})

export const projection: Projection<PostingDocument, PostingsEnvelope> = {
  collection,
  document: PostingDocument,
  streamTypes: ["CompanyBalance", "Transfer", "CardPayment", "PaymentRequest"],
  creates: [
    "LedgerEntryRecorded",
    "BalancePaidOut",
    "PayoutItemsRestored",
    "TransferInitiated",
    "CardPaymentRegistered",
    "PaymentRequestPaidByCard",
  ],
  key: (envelope) => (postingOf(envelope) === undefined ? undefined : envelope.eventId),
  apply: (_current, envelope) => postingOf(envelope),
  index,
}

/** The document of a transfer's kept return fee, opened at initiation (undefined: the platform keeps none). */
const openedFor = (envelope: TransfersProjection.TransferEnvelope): PostingDocument | undefined => {
  const event = envelope.event
  if (event._tag !== "TransferInitiated") return undefined
  const terms = event.returnFeeTerms
  if (terms === undefined || terms.passedOn || terms.amount.minorUnits === 0) return undefined
  return {
    eventType: event._tag,
    partnerId: event.partnerId,
    companyId: event.companyId,
    reference: Postings.returnFeeReference(event.transferId),
    postedAt: event.at,
    lines: [],
  }
}

/**
 * Whether the event ends the transfer's chance of a return fee: a failure (posting the fee it carries,
 * if kept, or closing the opened document: a rail refusal or an outage has no return fee), or a return
 * with a kept fee. The document keyed by the transfer is read first.
 */
const endsReturnFee = (envelope: TransfersProjection.TransferEnvelope): boolean => {
  const event = envelope.event
  return (
    event._tag === "TransferFailed" ||
    (event._tag === "TransferReturned" && event.returnFee !== undefined && !event.returnFee.passedOn)
  )
}

export const returnFees: Projection<PostingDocument, TransfersProjection.TransferEnvelope> = {
  collection,
  document: PostingDocument,
  streamTypes: ["Transfer"],
  creates: ["TransferInitiated"],
  key: (envelope) =>
    envelope.streamType === "Transfer" && (openedFor(envelope) !== undefined || endsReturnFee(envelope))
      ? Postings.returnFeeReference(envelope.event.transferId)
      : undefined,
  apply: (current, envelope) => {
    const event = envelope.event
    if (event._tag === "TransferInitiated") return openedFor(envelope)
    if (current?.companyId === undefined || (event._tag !== "TransferFailed" && event._tag !== "TransferReturned"))
      return current
    // Nothing to post (a failure without a return fee): the transfer will not be returned, the document goes.
    return Postings.postingOf(event, { partnerId: current.partnerId, companyId: current.companyId })
  },
  index,
}
