/**
 * The refund rule of a paid payment request, written once for the two ways a
 * request is paid: by the transfer its payer accepted (`Paid`, then
 * `Refunded`) and in the app by card (`PaidByCard`, whose completed card
 * refunds are mirrored: `PaymentRequestCardRefunds.ts`). A refund id is
 * recorded once (repeating it with its amount changes nothing, with another
 * amount is refused); a fully refunded request takes no more; the refunds
 * never total more than the paid amount; a refund without an amount refunds
 * what is left. The refund that reaches the paid amount is
 * `PaymentRequestRefunded`, one before it `PaymentRequestPartiallyRefunded`.
 * The command that brings a refund completed elsewhere is built here too.
 */
import type { DateTime } from "effect"
import { accept, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import { IllegalTransition, RuleViolated } from "../kernel/DomainError.ts"
import type { PaymentRequestId } from "../kernel/Ids.ts"
import * as Money from "../kernel/Money.ts"
import type * as PaymentRequestCommands from "./PaymentRequestCommands.ts"
import type { PaymentRequestEvent as Event, Of } from "./PaymentRequestEvents.ts"
import type { RefundId } from "./TransferEvents.ts"

/** What the rule reads of a paid request: its id and paid amount, the refunds recorded and their total. */
export interface Refundable {
  readonly request: { readonly paymentRequestId: PaymentRequestId; readonly amount: Money.Money }
  readonly refunds: ReadonlyArray<{ readonly refundId: RefundId; readonly amount: Money.Money }>
  readonly refundedAmount: Money.Money
}

/** The request's refund command, as the rule reads it (the request's id is the state's). */
export type RefundPaymentRequest = Omit<PaymentRequestCommands.RefundPaymentRequest, "paymentRequestId">

/**
 * The request's refund command for a refund completed on what paid it (a transfer's refund credit:
 * `TransferOutcomePolicy`; a card refund: `CardRefundMirrorPolicy`): the refund's id, amount and instant.
 */
export const refundCommand = (
  paymentRequestId: PaymentRequestId,
  refund: { readonly refundId: RefundId; readonly amount: Money.Money; readonly at: DateTime.Utc },
): PaymentRequestCommands.RefundPaymentRequest => ({
  _tag: "RefundPaymentRequest",
  paymentRequestId,
  refundId: refund.refundId,
  amount: refund.amount,
  at: refund.at,
})

/** A refund of a paid request: recorded (partial, or the one that refunds it fully), nothing, or refused. */
export const refund = (command: RefundPaymentRequest, state: Refundable): Decision<Event> => {
  const earlier = state.refunds.find((recorded) => recorded.refundId === command.refundId)
  if (earlier !== undefined)
    return command.amount === undefined || command.amount.minorUnits === earlier.amount.minorUnits
      ? nothing
      : refuse(
          new RuleViolated({ code: "REFUND_ID_REUSED", reason: "this refund id was already used for another amount" }),
        )
  const paid = state.request.amount
  const refunded = state.refundedAmount.minorUnits
  if (refunded >= paid.minorUnits)
    return refuse(
      new IllegalTransition({
        entity: "PaymentRequest",
        state: "Refunded",
        command: command._tag,
        reason: "the payment request is already fully refunded",
      }),
    )
  const amount = command.amount ?? Money.make(paid.minorUnits - refunded, paid.currency)
  const total = refunded + amount.minorUnits
  if (total > paid.minorUnits)
    return refuse(
      new RuleViolated({
        code: "REFUND_EXCEEDS_PAYMENT",
        reason: `refunds would total ${total} minor units, more than the ${paid.minorUnits} paid`,
      }),
    )
  const recorded = {
    paymentRequestId: state.request.paymentRequestId,
    refundId: command.refundId,
    amount,
    totalRefunded: Money.make(total, paid.currency),
    at: command.at,
  }
  return total === paid.minorUnits
    ? accept<Event>({ _tag: "PaymentRequestRefunded", ...recorded })
    : accept<Event>({ _tag: "PaymentRequestPartiallyRefunded", ...recorded })
}

/** A recorded refund: the refunds with it added, and the refunded total it brings the request to. */
export const withRefund = (
  refunds: Refundable["refunds"],
  event: Of<"PaymentRequestPartiallyRefunded"> | Of<"PaymentRequestRefunded">,
): Pick<Refundable, "refunds" | "refundedAmount"> => ({
  refunds: [...refunds, { refundId: event.refundId, amount: event.amount }],
  refundedAmount: event.totalRefunded,
})
