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
import type { DateTime } from "effect"
import { CardDispute, CardPayment, CardRefunds } from "../cards-and-charity/index.ts"
import * as Policy from "../infrastructure/Policy.ts"
import type { CompanyId, PartnerId } from "../kernel/Ids.ts"
import { PaymentRequest, Transfer } from "../payments/index.ts"
import * as Balance from "./Balance.ts"
import * as Ledger from "./Ledger.ts"

/** The company an entry is recorded for. */
interface Owner {
  readonly companyId: CompanyId
  readonly partnerId: PartnerId
}

/** The reaction recording `entry` on its company's balance, or none when there is no entry (or no company). */
const record = (owner: Owner | undefined, entry: Ledger.LedgerEntry | undefined, at: DateTime.Utc) => {
  // Stryker disable next-line ConditionalExpression: equivalent, no owner (a transfer not initiated) comes with no entry either (the test narrows the type)
  if (owner === undefined || entry === undefined) return undefined
  const { companyId, partnerId } = owner
  const command: Balance.RecordLedgerEntry = { _tag: "RecordLedgerEntry", companyId, partnerId, entry, at }
  return { id: companyId, command }
}

/** The company of a transfer, undefined before it exists. */
const transferOwner = (state: Transfer.State): Owner | undefined =>
  // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent, an Initial transfer has no entry (the test narrows the type)
  state._tag === "Initial" ? undefined : state.details

/** A policy carrying a transfer's event to its company's ledger: the entry `entryOf` derives from it, if any. */
const fromTransfer = (
  name: string,
  reactsTo: ReadonlyArray<Transfer.Event["_tag"]>,
  entryOf: (event: Transfer.Event, state: Transfer.State) => Ledger.LedgerEntry | undefined,
) =>
  Policy.make({
    name,
    source: Transfer.aggregate,
    reactsTo,
    target: Balance.aggregate,
    react: (event: Transfer.Event, state: Transfer.State) =>
      record(transferOwner(state), entryOf(event, state), event.at),
  })

/** The transfer events that move a company's available money (see `Ledger.entryOfTransferEvent`). */
export const reactsTo: ReadonlyArray<Transfer.Event["_tag"]> = [
  "TransferSettled",
  "TransferReturned",
  "TransferRefundRequested",
  "TransferRefundFailed",
  "TransferRefunded",
]

/** A policy carrying a payment request paid by card to its company's ledger: the entry `entryOf` derives, if any. */
const fromPaidByCard = (
  name: string,
  entryOf: (
    request: PaymentRequest.RequestDetails,
    event: Extract<PaymentRequest.Event, { readonly _tag: "PaymentRequestPaidByCard" }>,
  ) => Ledger.LedgerEntry | undefined,
) =>
  Policy.make({
    name,
    source: PaymentRequest.aggregate,
    reactsTo: ["PaymentRequestPaidByCard"],
    target: Balance.aggregate,
    react: (event: PaymentRequest.Event, state: PaymentRequest.State) =>
      event._tag !== "PaymentRequestPaidByCard" || state._tag === "Initial"
        ? undefined
        : record(state.request, entryOf(state.request, event), event.at),
  })

/** A payment request paid by card (`PaymentRequestPaidByCard`): the card payment's money reaches the ledger. */
export const cardPolicy = fromPaidByCard(
  "a payment request paid by card reaches its company's ledger",
  Ledger.entryOfPaidByCard,
)

/** A payment request paid by card with a platform fee: the fee leaves the company's ledger beside the payment. */
export const cardFeePolicy = fromPaidByCard("a card payment's platform fee reaches its company's ledger", (_, event) =>
  Ledger.cardFeeEntryOf(event),
)

/** A policy carrying a terminal card payment for a company (with a `companyId`) to its ledger: `entryOf`'s entry. */
const fromTerminalCard = (
  name: string,
  entryOf: (event: Parameters<typeof Ledger.entryOfCardPayment>[0]) => Ledger.LedgerEntry | undefined,
) =>
  Policy.make({
    name,
    source: CardPayment.aggregate,
    reactsTo: ["CardPaymentRegistered"],
    target: Balance.aggregate,
    react: (event: CardPayment.Event, _state: CardPayment.State) =>
      event.companyId === undefined
        ? undefined
        : record({ companyId: event.companyId, partnerId: event.partnerId }, entryOf(event), event.at),
  })

/**
 * A terminal card payment registered for one of the partner's companies (`CardPaymentRegistered` with a
 * `companyId`): its amount reaches the company's ledger, available from the processor's availability
 * date as an in-app card payment's (absent: at once).
 */
export const terminalCardPolicy = fromTerminalCard(
  "a terminal card payment for a company reaches its ledger",
  Ledger.entryOfCardPayment,
)

/** A terminal card payment's platform fee (the partner's card schedule) leaves its company's ledger beside it. */
export const terminalCardFeePolicy = fromTerminalCard(
  "a terminal card payment's platform fee reaches its company's ledger",
  Ledger.terminalCardFeeEntryOf,
)

/** A policy carrying a card dispute opened or closed to its company's ledger: the entry `entryOf` derives, if any. */
const fromDispute = (name: string, entryOf: (event: CardDispute.Event) => Ledger.LedgerEntry | undefined) =>
  Policy.make({
    name,
    source: CardDispute.aggregate,
    reactsTo: ["CardDisputeOpened", "CardDisputeClosed"],
    target: Balance.aggregate,
    react: (event: CardDispute.Event, _state: CardDispute.State) =>
      record(event.dispute.payment, entryOf(event), event.at),
  })

/**
 * A card dispute's amount reaches its company's ledger (`Ledger.disputeEntryOf`): opened, taken at once;
 * won, given back. The balance records each entry once.
 */
export const disputePolicy = fromDispute("a card dispute's amount reaches its company's ledger", Ledger.disputeEntryOf)

/** A card refund's money reaches its company's ledger (`Ledger.cardRefundEntryOf`): taken when asked, back when failed. */
export const cardRefundPolicy = Policy.make({
  name: "a card refund's money reaches its company's ledger",
  source: CardRefunds.aggregate,
  reactsTo: ["CardRefundRequested", "CardRefundFailed"],
  target: Balance.aggregate,
  react: (event: CardRefunds.Event, _state: CardRefunds.State) =>
    record(event.payment, Ledger.cardRefundEntryOf(event), event.at),
})

/** A card dispute's fee reaches its company's ledger beside its amount (`Ledger.disputeFeeEntryOf`). */
export const disputeFeePolicy = fromDispute(
  "a card dispute's fee reaches its company's ledger",
  Ledger.disputeFeeEntryOf,
)

/**
 * A transfer's platform fee (a charity gift's) reaches its company's ledger beside the transfer's own
 * entry: settled, minus the fee; returned, the fee given back (`Ledger.feeEntryOf`). Applied after
 * `policy` in the same unit, so the gift's entry and its fee commit together.
 */
export const feePolicy = fromTransfer(
  "a transfer's platform fee reaches its company's ledger",
  ["TransferSettled", "TransferReturned"],
  Ledger.feeEntryOf,
)

/**
 * A return fee passed on to the company (`TransferFailed`/`TransferReturned` with `returnFee.passedOn`)
 * leaves its ledger (`Ledger.returnFeeEntryOf`), in the same unit as the return.
 */
export const returnFeePolicy = fromTransfer(
  "a return fee passed on reaches its company's ledger",
  ["TransferFailed", "TransferReturned"],
  Ledger.returnFeeEntryOf,
)

export const policy = fromTransfer(
  "a transfer's money reaches its company's ledger",
  reactsTo,
  Ledger.entryOfTransferEvent,
)
