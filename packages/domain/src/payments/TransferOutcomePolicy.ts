/**
 * Policy: a transfer's outcome reaches the payment request it pays. Settled
 * makes the request Paid, Failed makes it Failed, Returned (after settlement)
 * makes it Returned, a completed refund refunds it (a pending one not yet); the
 * transfer's other events concern only the transfer. The reaction itself is
 * `PaymentRequest.fromTransferEvent` (the request's id is the transfer's,
 * from its state; a transfer paying no request issues nothing).
 */
import * as Policy from "../infrastructure/Policy.ts"
import * as PaymentRequest from "./PaymentRequest.ts"
import * as Transfer from "./Transfer.ts"

export const policy = Policy.make({
  name: "a transfer's outcome reaches the payment request it pays",
  source: Transfer.aggregate,
  reactsTo: ["TransferSettled", "TransferFailed", "TransferReturned", "TransferRefunded", "TransferRefundCompleted"],
  target: PaymentRequest.aggregate,
  react: (event: Transfer.Event, state: Transfer.State) => {
    const paymentRequestId = state._tag === "Initial" ? undefined : state.details.paymentRequestId
    if (paymentRequestId === undefined) return undefined
    const command = PaymentRequest.fromTransferEvent(paymentRequestId, event)
    return command === undefined ? undefined : { id: paymentRequestId, command }
  },
})
