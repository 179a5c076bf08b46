/**
 * Policy: a transfer's money reaches its company's ledger. When a transfer
 * settles, is returned, or a refund of it is asked for (or fails), the entry `Ledger.entryOfTransferEvent` derives
 * from the event and the transfer's state is recorded on the company's
 * balance (`Balance.ts`), in the same unit of work as the transfer's event:
 * the two commit together, so no settled money is ever missing from a
 * balance and none is counted twice.
 *
 * Initiation and failure before settlement record nothing: pending money is
 * read from the company's Pending transfers (`Ledger.pendingOf`), which keeps
 * the company's balance stream out of every payment's acceptance (no
 * contention between a company's concurrent payers).
 */
import { CardDispute, CardPayment, CardRefunds } from "../cards-and-charity/index.ts"
import * as Policy from "../infrastructure/Policy.ts"
import { PaymentRequest, Transfer } from "../payments/index.ts"
import * as Balance from "./Balance.ts"
import * as Ledger from "./Ledger.ts"

/** The transfer events that move a company's available money (see `Ledger.entryOfTransferEvent`). */
export const reactsTo: ReadonlyArray<Transfer.Event["_tag"]> = [
  "TransferSettled",
  "TransferReturned",
  "TransferRefundRequested",
  "TransferRefundFailed",
  "TransferRefunded",
]

/** A payment request paid by card (`PaymentRequestPaidByCard`): the card payment's money reaches the ledger. */
export const cardPolicy = Policy.make({
  name: "a payment request paid by card reaches its company's ledger",
  source: PaymentRequest.aggregate,
  reactsTo: ["PaymentRequestPaidByCard"],
  target: Balance.aggregate,
  react: (event: PaymentRequest.Event, state: PaymentRequest.State) => {
    if (event._tag !== "PaymentRequestPaidByCard" || state._tag === "Initial") return undefined
    const command: Balance.RecordLedgerEntry = {
      _tag: "RecordLedgerEntry",
      companyId: state.request.companyId,
      partnerId: state.request.partnerId,
      entry: Ledger.entryOfPaidByCard(state.request, event),
      at: event.at,
    }
    return { id: state.request.companyId, command }
  },
})

/** A payment request paid by card with a platform fee: the fee leaves the company's ledger beside the payment. */
export const cardFeePolicy = Policy.make({
  name: "a card payment's platform fee reaches its company's ledger",
  source: PaymentRequest.aggregate,
  reactsTo: ["PaymentRequestPaidByCard"],
  target: Balance.aggregate,
  react: (event: PaymentRequest.Event, state: PaymentRequest.State) => {
    if (event._tag !== "PaymentRequestPaidByCard" || state._tag === "Initial") return undefined
    const entry = Ledger.cardFeeEntryOf(event)
    if (entry === undefined) return undefined
    const command: Balance.RecordLedgerEntry = {
      _tag: "RecordLedgerEntry",
      companyId: state.request.companyId,
      partnerId: state.request.partnerId,
      entry,
      at: event.at,
    }
    return { id: state.request.companyId, command }
  },
})

/**
 * A terminal card payment registered for one of the partner's companies (`CardPaymentRegistered` with a
 * `companyId`): its amount reaches the company's ledger, available from the processor's availability
 * date as an in-app card payment's (absent: at once).
 */
export const terminalCardPolicy = Policy.make({
  name: "a terminal card payment for a company reaches its ledger",
  source: CardPayment.aggregate,
  reactsTo: ["CardPaymentRegistered"],
  target: Balance.aggregate,
  react: (event: CardPayment.Event, _state: CardPayment.State) => {
    if (event.companyId === undefined) return undefined
    const command: Balance.RecordLedgerEntry = {
      _tag: "RecordLedgerEntry",
      companyId: event.companyId,
      partnerId: event.partnerId,
      entry: Ledger.entryOfCardPayment(event),
      at: event.at,
    }
    return { id: event.companyId, command }
  },
})

/** A terminal card payment's platform fee (the partner's card schedule) leaves its company's ledger beside it. */
export const terminalCardFeePolicy = Policy.make({
  name: "a terminal card payment's platform fee reaches its company's ledger",
  source: CardPayment.aggregate,
  reactsTo: ["CardPaymentRegistered"],
  target: Balance.aggregate,
  react: (event: CardPayment.Event, _state: CardPayment.State) => {
    const entry = Ledger.terminalCardFeeEntryOf(event)
    if (event.companyId === undefined || entry === undefined) return undefined
    const command: Balance.RecordLedgerEntry = {
      _tag: "RecordLedgerEntry",
      companyId: event.companyId,
      partnerId: event.partnerId,
      entry,
      at: event.at,
    }
    return { id: event.companyId, command }
  },
})

const disputeReaction =
  (entryOf: (event: CardDispute.Event) => Ledger.LedgerEntry | undefined) =>
  (event: CardDispute.Event, _state: CardDispute.State) => {
    const entry = entryOf(event)
    if (entry === undefined) return undefined
    const { companyId, partnerId } = event.dispute.payment
    const command: Balance.RecordLedgerEntry = { _tag: "RecordLedgerEntry", companyId, partnerId, entry, at: event.at }
    return { id: companyId, command }
  }

/**
 * A card dispute's amount reaches its company's ledger (`Ledger.disputeEntryOf`): opened, taken at once;
 * won, given back. The balance records each entry once.
 */
export const disputePolicy = Policy.make({
  name: "a card dispute's amount reaches its company's ledger",
  source: CardDispute.aggregate,
  reactsTo: ["CardDisputeOpened", "CardDisputeClosed"],
  target: Balance.aggregate,
  react: disputeReaction(Ledger.disputeEntryOf),
})

/** A card refund's money reaches its company's ledger (`Ledger.cardRefundEntryOf`): taken when asked, back when failed. */
export const cardRefundPolicy = Policy.make({
  name: "a card refund's money reaches its company's ledger",
  source: CardRefunds.aggregate,
  reactsTo: ["CardRefundRequested", "CardRefundFailed"],
  target: Balance.aggregate,
  react: (event: CardRefunds.Event, _state: CardRefunds.State) => {
    const entry = Ledger.cardRefundEntryOf(event)
    if (entry === undefined) return undefined
    const { companyId, partnerId } = event.payment
    const command: Balance.RecordLedgerEntry = { _tag: "RecordLedgerEntry", companyId, partnerId, entry, at: event.at }
    return { id: companyId, command }
  },
})

/** A card dispute's fee reaches its company's ledger beside its amount (`Ledger.disputeFeeEntryOf`). */
export const disputeFeePolicy = Policy.make({
  name: "a card dispute's fee reaches its company's ledger",
  source: CardDispute.aggregate,
  reactsTo: ["CardDisputeOpened", "CardDisputeClosed"],
  target: Balance.aggregate,
  react: disputeReaction(Ledger.disputeFeeEntryOf),
})

/**
 * A transfer's platform fee (a charity gift's) reaches its company's ledger beside the transfer's own
 * entry: settled, minus the fee; returned, the fee given back (`Ledger.feeEntryOf`). Applied after
 * `policy` in the same unit, so the gift's entry and its fee commit together.
 */
export const feePolicy = Policy.make({
  name: "a transfer's platform fee reaches its company's ledger",
  source: Transfer.aggregate,
  reactsTo: ["TransferSettled", "TransferReturned"],
  target: Balance.aggregate,
  react: (event: Transfer.Event, state: Transfer.State) => {
    const entry = Ledger.feeEntryOf(event, state)
    // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent, an Initial transfer has no fee entry (the test narrows the type)
    if (entry === undefined || state._tag === "Initial") return undefined
    const command: Balance.RecordLedgerEntry = {
      _tag: "RecordLedgerEntry",
      companyId: state.details.companyId,
      partnerId: state.details.partnerId,
      entry,
      at: event.at,
    }
    return { id: state.details.companyId, command }
  },
})

/**
 * A return fee passed on to the company (`TransferFailed`/`TransferReturned` with `returnFee.passedOn`)
 * leaves its ledger (`Ledger.returnFeeEntryOf`), in the same unit as the return.
 */
export const returnFeePolicy = Policy.make({
  name: "a return fee passed on reaches its company's ledger",
  source: Transfer.aggregate,
  reactsTo: ["TransferFailed", "TransferReturned"],
  target: Balance.aggregate,
  react: (event: Transfer.Event, state: Transfer.State) => {
    const entry = Ledger.returnFeeEntryOf(event, state)
    if (entry === undefined || state._tag === "Initial") return undefined
    const command: Balance.RecordLedgerEntry = {
      _tag: "RecordLedgerEntry",
      companyId: state.details.companyId,
      partnerId: state.details.partnerId,
      entry,
      at: event.at,
    }
    return { id: state.details.companyId, command }
  },
})

export const policy = Policy.make({
  name: "a transfer's money reaches its company's ledger",
  source: Transfer.aggregate,
  reactsTo,
  target: Balance.aggregate,
  react: (event: Transfer.Event, state: Transfer.State) => {
    const entry = Ledger.entryOfTransferEvent(event, state)
    if (entry === undefined) return undefined
    // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent, an Initial transfer has no entry (the test narrows the type)
    if (state._tag === "Initial") return undefined
    const command: Balance.RecordLedgerEntry = {
      _tag: "RecordLedgerEntry",
      companyId: state.details.companyId,
      partnerId: state.details.partnerId,
      entry,
      at: event.at,
    }
    return { id: state.details.companyId, command }
  },
})
