/**
 * Policy: a transfer's outcome reaches the payment plan whose instalment it
 * collects. Settled makes the instalment Settled, Failed makes it Failed (the
 * plan goes on with its next due date), Returned (after settlement) makes it Returned; a transfer collecting no instalment
 * issues nothing.
 */
import * as Policy from "../infrastructure/Policy.ts"
import { Transfer } from "../payments/index.ts"
import * as PaymentPlan from "./PaymentPlan.ts"

/** The plan's command for one transfer event; undefined for an event that is not an outcome. */
export const commandFor = (
  paymentPlanId: PaymentPlan.RecordInstalmentOutcome["paymentPlanId"],
  event: Transfer.Event,
): PaymentPlan.RecordInstalmentOutcome | undefined => {
  switch (event._tag) {
    case "TransferSettled":
      return {
        _tag: "RecordInstalmentOutcome",
        paymentPlanId,
        transferId: event.transferId,
        outcome: { _tag: "Settled" },
        at: event.at,
      }
    case "TransferFailed":
      return {
        _tag: "RecordInstalmentOutcome",
        paymentPlanId,
        transferId: event.transferId,
        outcome: {
          _tag: "Failed",
          ...(event.returnCode === undefined ? {} : { returnCode: event.returnCode }),
          reason: event.reason,
        },
        at: event.at,
      }
    case "TransferReturned":
      return {
        _tag: "RecordInstalmentOutcome",
        paymentPlanId,
        transferId: event.transferId,
        outcome: { _tag: "Returned", returnCode: event.returnCode, reason: event.reason },
        at: event.at,
      }
    // Stryker disable next-line ConditionalExpression: equivalent, without the default case the switch falls through to undefined too
    default:
      return undefined
  }
}

export const policy = Policy.make<Transfer.Event, Transfer.State, PaymentPlan.Command>({
  name: "a transfer's outcome reaches the plan instalment it collects",
  source: Transfer.aggregate,
  reactsTo: ["TransferSettled", "TransferFailed", "TransferReturned"],
  target: PaymentPlan.aggregate,
  react: (event, state) => {
    const paymentPlanId = state._tag === "Initial" ? undefined : state.details.paymentPlanId
    if (paymentPlanId === undefined) return undefined
    const command = commandFor(paymentPlanId, event)
    return command === undefined ? undefined : { id: paymentPlanId, command }
  },
})
