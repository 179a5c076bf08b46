/**
 * Policy: a transfer's outcome reaches the payment request it pays. Settled
 * makes the request Paid, Failed makes it Failed, Returned (after settlement)
 * makes it Returned, a completed refund refunds it (a pending one not yet); the
 * transfer's other events concern only the transfer. The reaction itself is
 * `fromTransferEvent` (the request's id is the transfer's,
 * from its state; a transfer paying no request issues nothing).
 */
import * as Policy from "../infrastructure/Policy.ts"
import type { PaymentRequestId } from "../kernel/Ids.ts"
import * as PaymentRequest from "./PaymentRequest.ts"
import * as Transfer from "./Transfer.ts"
import type { TransferEvent } from "./TransferEvents.ts"

export const policy = Policy.make({
  name: "a transfer's outcome reaches the payment request it pays",
  source: Transfer.aggregate,
  reactsTo: ["TransferSettled", "TransferFailed", "TransferReturned", "TransferRefunded", "TransferRefundCompleted"],
  target: PaymentRequest.aggregate,
  react: (event: Transfer.Event, state: Transfer.State) => {
    const paymentRequestId = state._tag === "Initial" ? undefined : state.details.paymentRequestId
    if (paymentRequestId === undefined) return undefined
    const command = fromTransferEvent(paymentRequestId, event)
    return command === undefined ? undefined : { id: paymentRequestId, command }
  },
})

/**
 * The command a transfer event implies for the payment request it pays
 * (`paymentRequestId` is the transfer's, from TransferInitiated), or undefined
 * when the event concerns only the transfer.
 */
export const fromTransferEvent = (
  paymentRequestId: PaymentRequestId,
  event: TransferEvent,
): PaymentRequest.Command | undefined => {
  switch (event._tag) {
    case "TransferSettled":
      return { _tag: "RecordTransferSettled", paymentRequestId, transferId: event.transferId, at: event.at }
    case "TransferFailed":
      return {
        _tag: "RecordTransferFailed",
        paymentRequestId,
        transferId: event.transferId,
        ...(event.returnCode === undefined ? {} : { returnCode: event.returnCode }),
        reason: event.reason,
        at: event.at,
      }
    case "TransferReturned":
      return {
        _tag: "RecordTransferReturned",
        paymentRequestId,
        transferId: event.transferId,
        returnCode: event.returnCode,
        reason: event.reason,
        at: event.at,
      }
    case "TransferRefunded":
    case "TransferRefundCompleted":
      return PaymentRequest.refundCommand(paymentRequestId, event)
    // Stryker disable StringLiteral,ConditionalExpression: equivalent, an event no case names returns undefined too (the list keeps the switch exhaustive)
    case "TransferInitiated":
    case "TransferOriginated":
    case "TransferRefundRequested":
    case "TransferRefundOriginated":
    case "TransferRefundFailed":
    case "TransferOriginationDeferred":
    case "TransferStatusDeferred":
    case "TransferStatusResumed":
    case "TransferReimbursementApplied":
    case "TransferReimbursed":
      return undefined
  }
}
// Stryker restore StringLiteral,ConditionalExpression
