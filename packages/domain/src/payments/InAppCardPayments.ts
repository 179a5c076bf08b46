/**
 * In-app card payment of a payment request (POST
 * /Transaction/PaymentRequest/{paymentRequestId}/PayWithCard): the payer
 * chooses one of their saved cards, the card processor charges it
 * (`CardCharger`), and the request becomes Paid at once, recording the card
 * payment (`PaymentRequestPaidByCard`: card payment id, card, processor
 * reference) and sending the usual PAYMENT_REQUEST_STATUS_CHANGED webhook.
 *
 * - Someone other than the payer, another partner's request, or a card the
 *   payer did not save: NotFound, like a missing one.
 * - A declined card: RuleViolated CARD_DECLINED (422); nothing changes.
 * - A service without a card processor: RuleViolated FEATURE_NOT_AVAILABLE (422).
 * - The request must be Pending (decided before charging: a refused payment
 *   never charges). Paying again with the same card answers Paid.
 * - The charge is idempotent by payment request id; if recording fails after
 *   the charge (the request was accepted or cancelled meanwhile), the charge
 *   is refunded and the error reported.
 * - A card whose issuer asks for the payer's authentication (3-D Secure):
 *   answered `RequiresAction` with the processor's payment and client secret
 *   (`CardAuthentication` records it); the request stays Pending (payable)
 *   and the processor's notification completes it (`InAppCardAuthentication`).
 *   Paying again with the same card answers the same; another card, or the
 *   card again after a failed authentication, is a new attempt (its own
 *   idempotency key, `CardAuthentication.keyOf`).
 */

import { DateTime, Effect } from "effect"
import { Customer } from "../customers/index.ts"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import { EventStoreUnavailable } from "../infrastructure/EventStore.ts"
import { IdGenerator } from "../infrastructure/IdGenerator.ts"
import { notAvailable } from "../infrastructure/Providers.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import { NotFound, RuleViolated } from "../kernel/DomainError.ts"
import type { CardPaymentId, PartnerId, RegistrationId } from "../kernel/Ids.ts"
import * as Traced from "../kernel/Traced.ts"
import * as AuthorizationEvidence from "./AuthorizationEvidence.ts"
import * as CardAuthentication from "./CardAuthentication.ts"
import { CardCharger, isAuthenticationRequired } from "./CardCharger.ts"
import * as PaymentRequest from "./PaymentRequest.ts"
import * as PlatformFees from "./PlatformFees.ts"

export interface PayInput {
  readonly partnerId: PartnerId
  readonly registrationId: RegistrationId
  readonly paymentRequestId: string
  readonly paymentMethodId: string
  /** The request that carried the payer's authorization of the charge, recorded as its evidence. */
  readonly client?: AuthorizationEvidence.ClientContext | undefined
}

const processorUnavailable = (reason: string) =>
  new EventStoreUnavailable({ reason: `the card processor is unavailable: ${reason}` })

/** Records the charged payment on the request (its own unit, after the card was charged). */
const recordPayment = UseCase.fn("InAppCardPayments.recordPayment")(function* (
  paymentRequestId: string,
  command: PaymentRequest.PayWithCard,
) {
  return yield* CommandHandler.handle(PaymentRequest.aggregate, paymentRequestId, command)
})

/** Records that the charge waits for the payer's authentication (its own unit, after the processor answered). */
const recordAwaiting = UseCase.fn("InAppCardPayments.recordAwaiting")(function* (
  command: CardAuthentication.AwaitCardAuthentication,
) {
  return yield* CommandHandler.handle(CardAuthentication.aggregate, command.paymentRequestId, command)
})

/**
 * Charges the payer's saved card and marks the request Paid; answers its status and the card payment id,
 * or `RequiresAction` when the payer must authenticate the charge first (3-D Secure): the processor's
 * payment, the client secret and the next action the app completes with the processor's SDK.
 */
export const pay = Traced.fn("InAppCardPayments.pay")(function* (input: PayInput) {
  const { state } = yield* UseCase.dieOnCorruptEvent(
    CommandHandler.load(PaymentRequest.aggregate, input.paymentRequestId),
  )
  if (
    state._tag === "Initial" ||
    state.request.partnerId !== input.partnerId ||
    state.request.payerRegistrationId !== input.registrationId
  )
    return yield* new NotFound({ entity: "PaymentRequest" })
  const request = state.request
  const customer = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Customer.aggregate, input.registrationId))
  const card = Customer.cardPaymentMethods(customer.state).find((method) => method.id === input.paymentMethodId)
  if (card === undefined) return yield* new NotFound({ entity: "CardPaymentMethod" })
  const cardPaymentId = (yield* (yield* IdGenerator).next) as CardPaymentId
  const at = yield* DateTime.now
  // The partner's card fee schedule in force now (a card payment records no return fee).
  const { returnFeeTerms: _none, ...fees } = yield* PlatformFees.appliedFor(request.partnerId, "Card", request.amount)
  // The card charged and its fees: what the request records, or the payment that awaits an authentication.
  const chargeOf = (processorReference: string): CardAuthentication.AwaitedCardPayment => ({
    registrationId: input.registrationId,
    cardPaymentId,
    paymentMethodId: card.id,
    brand: card.brand,
    last4: card.last4,
    processorReference,
    ...fees,
  })
  const command = (processorReference: string, availableAt?: DateTime.Utc): PaymentRequest.PayWithCard => ({
    ...chargeOf(processorReference),
    _tag: "PayWithCard",
    paymentRequestId: request.paymentRequestId,
    payerKyc: Customer.kycStatus(customer.state),
    ...(availableAt === undefined ? {} : { availableAt }),
    ...(input.client === undefined ? {} : { client: input.client }),
    at,
  })
  // Decide first (pure): a payment the request refuses never charges the card.
  const decision = PaymentRequest.decide(command("pending"), state)
  if (decision._tag === "Failure") return yield* Effect.fail(decision.failure)
  if (decision.success.length === 0 && state._tag === "PaidByCard")
    return { status: "Paid" as const, cardPaymentId: state.card.cardPaymentId }
  const authentication = yield* UseCase.dieOnCorruptEvent(
    CommandHandler.load(CardAuthentication.aggregate, request.paymentRequestId),
  )
  const attempt = CardAuthentication.attemptFor(authentication.state, card.id)
  // The same card again while its authentication is awaited: the same card payment (the processor answers it again).
  const awaited =
    authentication.state._tag === "Awaiting" && authentication.state.attempt === attempt
      ? authentication.state.payment
      : undefined
  const charger = yield* CardCharger
  const charged = yield* charger
    .charge({
      idempotencyKey: CardAuthentication.keyOf(request.paymentRequestId, attempt),
      paymentRequestId: request.paymentRequestId,
      paymentMethodId: card.id,
      last4: card.last4,
      amount: request.amount,
      description: request.description,
    })
    .pipe(
      Effect.catchTags({
        CardDeclined: (declined) =>
          Effect.fail(new RuleViolated({ code: "CARD_DECLINED", reason: `the card was declined (${declined.code})` })),
        ProviderUnavailable: (unavailable) => Effect.fail(processorUnavailable(unavailable.reason)),
        FeatureNotAvailable: (error) => Effect.fail(notAvailable(error)),
      }),
    )
  if (isAuthenticationRequired(charged)) {
    const payment: CardAuthentication.AwaitedCardPayment = awaited ?? {
      ...chargeOf(charged.processorReference),
      ...(input.client === undefined
        ? {}
        : { authorization: AuthorizationEvidence.evidenceOf("CardPayment", input.client, at) }),
    }
    const recorded = yield* recordAwaiting({
      _tag: "AwaitCardAuthentication",
      paymentRequestId: request.paymentRequestId,
      payment: { ...payment, processorReference: charged.processorReference },
      at,
    })
    const kept = recorded.state._tag === "Awaiting" ? recorded.state.payment.cardPaymentId : payment.cardPaymentId
    return {
      status: "RequiresAction" as const,
      cardPaymentId: kept,
      processorReference: charged.processorReference,
      clientSecret: charged.clientSecret,
      nextAction: charged.nextAction,
    }
  }
  const paid = command(charged.processorReference, charged.availableAt)
  const handled = yield* recordPayment(request.paymentRequestId, paid).pipe(
    Effect.tapError(() => charger.refund(charged.processorReference).pipe(Effect.ignore)),
  )
  // A concurrent payment with the same card may have recorded its own card payment id first.
  const recorded = handled.state._tag === "PaidByCard" ? handled.state.card.cardPaymentId : cardPaymentId
  return { status: "Paid" as const, cardPaymentId: recorded }
})
