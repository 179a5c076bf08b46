/**
 * Use case of POST /Transaction/{id}/Refund naming a card payment (issue
 * 38): `id` is a payment request paid in the app by card, or a terminal card
 * payment of one of the partner's companies (its `cardPaymentId`). The
 * refund is recorded Pending first (its own unit: the `CardRefunds` decider
 * keeps pending and completed refunds within the payment, concurrent
 * requests included), then the card processor refunds it (`CardCharger.refund`,
 * the refund id as its idempotency key, outside any unit), then its outcome
 * is recorded: Completed, or Failed when the processor's refusal is known.
 * The processor accepting it without deciding (its notification decides), or
 * unavailable (nothing is known to have happened: counted as a failed
 * attempt, asked again later by `CardRefundRetries`), leaves it Pending.
 *
 * Another partner's payment, a payment of a merchant outside the service or
 * an unknown id: NotFound (the caller then answers as for a transfer).
 */
import { DateTime, Effect } from "effect"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import { IdGenerator } from "../infrastructure/IdGenerator.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import type { WireAmount } from "../kernel/Amounts.ts"
import { NotFound, RuleViolated, ValidationFailed } from "../kernel/DomainError.ts"
import type { CardPaymentId, PartnerId, PaymentRequestId } from "../kernel/Ids.ts"
import * as Money from "../kernel/Money.ts"
import * as Traced from "../kernel/Traced.ts"
import { CardCharger, PaymentRequest, type TransferEvents } from "../payments/index.ts"
import * as CardPayment from "./CardPayment.ts"
import * as CardRefundRetries from "./CardRefundRetries.ts"
import * as CardRefunds from "./CardRefunds.ts"

export interface RefundInput {
  readonly partnerId: PartnerId
  /** A payment request paid by card, or a terminal card payment's id. */
  readonly id: string
  /** Omitted: everything not refunded yet. */
  readonly amount?: WireAmount | undefined
  readonly reason?: string | undefined
}

const notFound = new NotFound({ entity: "Transfer" })

/** The card payment `id` names, with whose money it is; NotFound for anything else. */
const paymentOf = UseCase.fn("CardRefundPayments.paymentOf")(function* (partnerId: PartnerId, id: string) {
  const request = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(PaymentRequest.aggregate, id))
  if (request.state._tag === "PaidByCard") {
    if (request.state.request.partnerId !== partnerId) return yield* notFound
    const payment: CardRefunds.RefundedPayment = {
      cardPaymentId: request.state.card.cardPaymentId,
      paymentRequestId: request.state.request.paymentRequestId as PaymentRequestId,
      partnerId,
      companyId: request.state.request.companyId,
      amount: request.state.request.amount,
      processorReference: request.state.card.processorReference,
    }
    return payment
  }
  const terminal = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(CardPayment.aggregate, id))
  const state = terminal.state
  if (state._tag === "Initial" || state.partnerId !== partnerId || state.companyId === undefined) return yield* notFound
  const payment: CardRefunds.RefundedPayment = {
    cardPaymentId: state.cardPaymentId as CardPaymentId,
    partnerId,
    companyId: state.companyId,
    amount: state.amount,
    processorReference: state.processorReference ?? "",
  }
  return payment
})

const recordRefund = UseCase.fn("CardRefundPayments.recordRefund")(function* (
  payment: CardRefunds.RefundedPayment,
  refundId: TransferEvents.RefundId,
  amount: Money.Money | undefined,
) {
  const loaded = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(CardRefunds.aggregate, payment.cardPaymentId))
  const refunds = loaded.state._tag === "Initial" ? [] : loaded.state.refunds
  const remaining = payment.amount.minorUnits - CardRefunds.heldOf(refunds)
  if (amount === undefined && remaining === 0)
    return yield* new RuleViolated({
      code: "NOTHING_TO_REFUND",
      reason: "the card payment is already fully refunded (counting pending refunds)",
    })
  const refunded = amount ?? Money.make(remaining, payment.amount.currency)
  yield* CommandHandler.handle(CardRefunds.aggregate, payment.cardPaymentId, {
    _tag: "RefundCardPayment",
    payment,
    refundId,
    amount: refunded,
    at: yield* DateTime.now,
  })
  return refunded
})

const recordOutcome = UseCase.fn("CardRefundPayments.recordOutcome")(function* (
  cardPaymentId: CardPaymentId,
  refundId: TransferEvents.RefundId,
  outcome: CardRefunds.RecordCardRefundOutcome["outcome"],
) {
  const handled = yield* CommandHandler.handle(CardRefunds.aggregate, cardPaymentId, {
    _tag: "RecordCardRefundOutcome",
    refundId,
    outcome,
    at: yield* DateTime.now,
  })
  return handled
})

/**
 * The processor's later answer about a card refund (its notification): Completed, or Failed with its
 * reason (the amount back in the company's balance). A repeat changes nothing; an unknown refund is NotFound.
 */
export const recordProcessorOutcome = UseCase.fn("CardRefundPayments.recordProcessorOutcome")(function* (
  cardPaymentId: CardPaymentId,
  refundId: TransferEvents.RefundId,
  outcome: CardRefunds.RecordCardRefundOutcome["outcome"],
) {
  const handled = yield* recordOutcome(cardPaymentId, refundId, outcome)
  return { recorded: handled.events.length > 0 }
})

/** Refunds a card payment through the processor; answers the refund, Pending or Completed. */
export const refund = Traced.fn("CardRefundPayments.refund")(function* (input: RefundInput) {
  if (input.reason !== undefined && input.reason.length > 500)
    return yield* ValidationFailed.of("reason", "must be at most 500 characters")
  let amount: Money.Money | undefined
  if (input.amount !== undefined) {
    const converted = Money.fromDecimal(input.amount.value, input.amount.currencyCode)
    if (converted._tag === "Failure")
      return yield* ValidationFailed.of("amount.value", Money.describeProblem(converted.failure))
    amount = converted.success
  }
  const payment = yield* paymentOf(input.partnerId, input.id)
  const refundId = (yield* (yield* IdGenerator).next) as TransferEvents.RefundId
  const refunded = yield* recordRefund(payment, refundId, amount)
  const charger = yield* CardCharger.CardCharger
  const answer = yield* Effect.result(
    charger.refund(payment.processorReference, {
      idempotencyKey: refundId,
      amount: refunded,
      cardPaymentId: payment.cardPaymentId,
    }),
  )
  if (answer._tag === "Failure")
    yield* CardRefundRetries.recordAttempt(payment.cardPaymentId, refundId, {
      _tag: "Unreachable",
      reason: answer.failure.reason,
    })
  else if (answer.success === "Pending")
    yield* CardRefundRetries.recordAttempt(payment.cardPaymentId, refundId, { _tag: "Submitted" })
  const answered = answer._tag === "Success" && answer.success === "Completed"
  const state = answered
    ? (yield* recordOutcome(payment.cardPaymentId, refundId, { _tag: "Completed" })).state
    : (yield* UseCase.dieOnCorruptEvent(CommandHandler.load(CardRefunds.aggregate, payment.cardPaymentId))).state
  const refunds = state._tag === "Initial" ? [] : state.refunds
  return {
    refundId,
    status: answered ? ("Completed" as const) : ("Pending" as const),
    amount: refunded,
    refundedAmount: Money.make(CardRefunds.completedOf(refunds), payment.amount.currency),
  }
})
