/**
 * A card refund left Pending because the card processor could not be reached
 * (the call failed or timed out) is asked again (issue 38): the worker
 * `CardRefundRetry` (app) finds the Pending refunds not submitted and calls
 * `retry` for each, which asks the processor again once `CardRefundAttempts`
 * says the attempt is due (backoff), outside any unit of work, then records
 * its answer: Completed; accepted and decided later (Submitted: its
 * notification decides); or unreachable again (the attempt counted: the last
 * allowed one fails the refund, REFUND_STATUS_CHANGED Failed).
 *
 * Asking again is safe: the refund's id is the processor's idempotency key,
 * so a refund the processor made although the call timed out is answered,
 * never made twice.
 */
import { DateTime, Effect } from "effect"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import type { CardPaymentId } from "../kernel/Ids.ts"
import * as Traced from "../kernel/Traced.ts"
import { CardCharger, type TransferEvents } from "../payments/index.ts"
import * as CardRefundAttempts from "./CardRefundAttempts.ts"
import * as CardRefunds from "./CardRefunds.ts"

/** Records how the processor answered a call for the refund (its own unit, after the call). */
export const recordAttempt = UseCase.fn("CardRefundRetries.recordAttempt")(function* (
  cardPaymentId: CardPaymentId,
  refundId: TransferEvents.RefundId,
  answer: CardRefundAttempts.RecordCardRefundAttempt["answer"],
) {
  yield* CommandHandler.handle(CardRefundAttempts.aggregate, refundId, {
    _tag: "RecordCardRefundAttempt",
    refundId,
    cardPaymentId,
    answer,
    at: yield* DateTime.now,
  })
})

const recordCompleted = UseCase.fn("CardRefundRetries.recordCompleted")(function* (
  cardPaymentId: CardPaymentId,
  refundId: TransferEvents.RefundId,
) {
  yield* CommandHandler.handle(CardRefunds.aggregate, cardPaymentId, {
    _tag: "RecordCardRefundOutcome",
    refundId,
    outcome: { _tag: "Completed" },
    at: yield* DateTime.now,
  })
})

/** What a retry did. */
export type Retried = "Completed" | "Submitted" | "Unreachable" | "NotDue" | "Decided"

/**
 * Asks the processor again for the Pending refund `refundId` of `cardPaymentId` when its next attempt is
 * due (`CardRefundAttempts.nextAttemptAt` with `baseMillis`), and records the answer.
 */
export const retry = Traced.fn("CardRefundRetries.retry")(function* (
  cardPaymentId: CardPaymentId,
  refundId: TransferEvents.RefundId,
  baseMillis: number,
) {
  const refunds = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(CardRefunds.aggregate, cardPaymentId))
  if (refunds.state._tag === "Initial") return "Decided" as Retried
  const payment = refunds.state.payment
  const refund = refunds.state.refunds.find((candidate) => candidate.refundId === refundId)
  if (refund === undefined || refund.status !== "Pending") return "Decided" as Retried
  const attempts = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(CardRefundAttempts.aggregate, refundId))
  const due = CardRefundAttempts.nextAttemptAt(attempts.state, baseMillis)
  if (due === undefined) return "Decided" as Retried
  if (DateTime.isGreaterThan(due, yield* DateTime.now)) return "NotDue" as Retried
  const charger = yield* CardCharger.CardCharger
  const answered = yield* Effect.result(
    charger.refund(payment.processorReference, { idempotencyKey: refundId, amount: refund.amount, cardPaymentId }),
  )
  if (answered._tag === "Failure") {
    yield* recordAttempt(cardPaymentId, refundId, { _tag: "Unreachable", reason: answered.failure.reason })
    return "Unreachable" as Retried
  }
  if (answered.success === "Pending") {
    yield* recordAttempt(cardPaymentId, refundId, { _tag: "Submitted" })
    return "Submitted" as Retried
  }
  yield* recordCompleted(cardPaymentId, refundId)
  return "Completed" as Retried
})
