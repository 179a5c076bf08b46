/**
 * The end of an in-app card payment that waited for the payer's
 * authentication (3-D Secure, `CardAuthentication`): the card processor's
 * notification (Stripe's `payment_intent.succeeded` /
 * `payment_intent.payment_failed`, or the sandbox's authenticate call)
 * records its outcome, then:
 *
 * - succeeded: the request is Paid by card (`PayWithCard` with the awaited
 *   card payment, its fees and the payer's authorization evidence as they
 *   were when the payer paid), with the usual PAYMENT_REQUEST_STATUS_CHANGED
 *   webhook. When the request refuses it (paid by bank or cancelled
 *   meanwhile), the charge is refunded (`CardCharger.refund`) and the outcome
 *   says so.
 * - failed: nothing is charged; the request stays Pending and payable.
 *
 * A repeated notification changes nothing (and retries recording the payment
 * when the first try could not); one about a payment not awaited is NotFound.
 */
import { DateTime, Effect } from "effect"
import { Customer } from "../customers/index.ts"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import { EventStoreUnavailable } from "../infrastructure/EventStore.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import { NotFound } from "../kernel/DomainError.ts"
import type { PartnerId, PaymentRequestId } from "../kernel/Ids.ts"
import * as Traced from "../kernel/Traced.ts"
import * as CardAuthentication from "./CardAuthentication.ts"
import { CardCharger } from "./CardCharger.ts"
import * as PaymentRequest from "./PaymentRequest.ts"

const recordOutcome = UseCase.fn("InAppCardAuthentication.recordOutcome")(function* (
  command: CardAuthentication.RecordCardAuthenticationOutcome,
) {
  return yield* CommandHandler.handle(CardAuthentication.aggregate, command.paymentRequestId, command)
})

const recordPayment = UseCase.fn("InAppCardAuthentication.recordPayment")(function* (
  paymentRequestId: PaymentRequestId,
  command: PaymentRequest.PayWithCard,
) {
  return yield* CommandHandler.handle(PaymentRequest.aggregate, paymentRequestId, command)
})

/** What the outcome did: the request Paid, the charge refunded (the request refused it), or nothing charged. */
export type Completion = "Paid" | "Refunded" | "Failed"

/** Records the processor's answer about an awaited authentication, and pays the request when it succeeded. */
export const complete = Traced.fn("InAppCardAuthentication.complete")(function* (
  paymentRequestId: PaymentRequestId,
  processorReference: string,
  outcome: CardAuthentication.AuthenticationOutcome,
) {
  const at = yield* DateTime.now
  const recorded = yield* recordOutcome({
    _tag: "RecordCardAuthenticationOutcome",
    paymentRequestId,
    processorReference,
    outcome,
    at,
  })
  const state = recorded.state
  if (state._tag !== "Succeeded") return "Failed" as Completion
  const payment = state.payment
  const customer = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Customer.aggregate, payment.registrationId))
  const command: PaymentRequest.PayWithCard = {
    _tag: "PayWithCard",
    paymentRequestId,
    payerKyc: Customer.kycStatus(customer.state),
    ...payment,
    ...(state.availableAt === undefined ? {} : { availableAt: state.availableAt }),
    at,
  }
  const paid = yield* Effect.result(recordPayment(paymentRequestId, command))
  if (paid._tag === "Success") return "Paid" as Completion
  const failure = paid.failure
  if (failure._tag !== "IllegalTransition" && failure._tag !== "RuleViolated" && failure._tag !== "NotFound")
    return yield* Effect.fail(failure)
  // The request refuses the payment (paid another way, cancelled): the payer gets the charge back.
  const charger = yield* CardCharger
  yield* charger
    .refund(payment.processorReference)
    .pipe(
      Effect.mapError(
        (unavailable) =>
          new EventStoreUnavailable({ reason: `the card processor is unavailable: ${unavailable.reason}` }),
      ),
    )
  yield* Effect.logWarning("an authenticated card payment was refunded: its payment request refused it", {
    paymentRequestId,
    reason: failure._tag,
  })
  return "Refunded" as Completion
})

/**
 * The awaited authentication of one of the partner's payment requests, completed without a processor
 * notification (the sandbox's `POST /Sandbox/CardAuthentications`). Another partner's request, or one with
 * no authentication awaited: NotFound.
 */
export const completeAwaited = Traced.fn("InAppCardAuthentication.completeAwaited")(function* (
  partnerId: PartnerId,
  paymentRequestId: PaymentRequestId,
  outcome: CardAuthentication.AuthenticationOutcome,
) {
  const request = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(PaymentRequest.aggregate, paymentRequestId))
  if (request.state._tag === "Initial" || request.state.request.partnerId !== partnerId)
    return yield* new NotFound({ entity: "PaymentRequest" })
  const awaited = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(CardAuthentication.aggregate, paymentRequestId))
  if (awaited.state._tag !== "Awaiting") return yield* new NotFound({ entity: "CardAuthentication" })
  return yield* complete(paymentRequestId, awaited.state.payment.processorReference, outcome)
})
