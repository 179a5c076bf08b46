/**
 * CardAuthentication: an in-app card payment of a payment request that needs
 * the payer's authentication (3-D Secure), one stream per payment request
 * (`CardAuthentication-<paymentRequestId>`). The request itself stays Pending
 * (payable, by card or by bank) while the payer authenticates in the app;
 * the processor's later answer (Stripe's `payment_intent.succeeded` /
 * `payment_intent.payment_failed`) is recorded here, and a success then pays
 * the request by card (`InAppCardAuthentication.complete`). Decision table:
 * packages/domain/docs/CardPaymentAndCharity.md.
 *
 * - `AwaitCardAuthentication`: the processor answered "requires action":
 *   `CardAuthenticationRequired` (attempt 1, or the next attempt after a
 *   failed one or with another card). The same processor payment again
 *   changes nothing (the app asked again: the same answer).
 * - `RecordCardAuthenticationOutcome`: the awaited payment succeeded
 *   (`CardAuthenticationSucceeded`, with the money's availability) or failed
 *   (`CardAuthenticationFailed`, with the processor's code; the request stays
 *   payable). A repeat changes nothing; a contrary outcome is refused (an
 *   outcome is final); an outcome of a payment not awaited (none, or an
 *   attempt superseded by another) is NotFound.
 *
 * `attemptFor` (pure) tells the use case which attempt a new payment with a
 * card is, before the processor is asked (its idempotency key: `keyOf`).
 */
import type { DateTime } from "effect"
import { type Aggregate, accept, byCommand, byEvent, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import { type DomainError, IllegalTransition, NotFound } from "../kernel/DomainError.ts"
import type { PaymentRequestId } from "../kernel/Ids.ts"
import { type AwaitedCardPayment, CardAuthenticationEvent } from "./CardAuthenticationEvents.ts"

export * from "./CardAuthenticationEvents.ts"

export interface AwaitCardAuthentication {
  readonly _tag: "AwaitCardAuthentication"
  readonly paymentRequestId: PaymentRequestId
  readonly payment: AwaitedCardPayment
  readonly at: DateTime.Utc
}

export type AuthenticationOutcome =
  | { readonly _tag: "Succeeded"; readonly availableAt?: DateTime.Utc | undefined }
  | { readonly _tag: "Failed"; readonly code: string }

export interface RecordCardAuthenticationOutcome {
  readonly _tag: "RecordCardAuthenticationOutcome"
  readonly paymentRequestId: PaymentRequestId
  /** The processor's payment the outcome is about. */
  readonly processorReference: string
  readonly outcome: AuthenticationOutcome
  readonly at: DateTime.Utc
}

export type Command = AwaitCardAuthentication | RecordCardAuthenticationOutcome
export type Event = CardAuthenticationEvent

export type State =
  | { readonly _tag: "Initial" }
  | { readonly _tag: "Awaiting"; readonly attempt: number; readonly payment: AwaitedCardPayment }
  | {
      readonly _tag: "Succeeded"
      readonly attempt: number
      readonly payment: AwaitedCardPayment
      readonly availableAt?: DateTime.Utc | undefined
    }
  | { readonly _tag: "Failed"; readonly attempt: number; readonly processorReference: string; readonly code: string }

export const initialState: State = { _tag: "Initial" }

/**
 * The attempt a payment with the card `paymentMethodId` is: the awaited one again with the same card
 * (the processor answers it again), the first, or the next one (after a failure, or with another card).
 */
export const attemptFor = (state: State, paymentMethodId: string): number => {
  switch (state._tag) {
    case "Initial":
      return 1
    case "Awaiting":
    case "Succeeded":
      return state.payment.paymentMethodId === paymentMethodId ? state.attempt : state.attempt + 1
    case "Failed":
      return state.attempt + 1
  }
}

/** The processor's idempotency key of an attempt: the payment request id first, then one per attempt. */
export const keyOf = (paymentRequestId: string, attempt: number): string =>
  attempt <= 1 ? paymentRequestId : `${paymentRequestId}:attempt-${attempt}`

/** The card payment awaited with this processor payment, if it is the one awaited (or decided). */
const referenceOf = (state: State): string | undefined =>
  state._tag === "Initial"
    ? undefined
    : state._tag === "Failed"
      ? state.processorReference
      : state.payment.processorReference

const illegal = (state: State, command: Command, reason: string) =>
  refuse(new IllegalTransition({ entity: "CardAuthentication", state: state._tag, command: command._tag, reason }))

const await_ = (command: AwaitCardAuthentication, state: State): Decision<Event> => {
  if (referenceOf(state) === command.payment.processorReference) return nothing
  if (state._tag === "Succeeded")
    return illegal(state, command, "the card payment was authenticated and charged already")
  return accept<Event>({
    _tag: "CardAuthenticationRequired",
    paymentRequestId: command.paymentRequestId,
    attempt: state._tag === "Initial" ? 1 : state.attempt + 1,
    payment: command.payment,
    at: command.at,
  })
}

const recordOutcome = (command: RecordCardAuthenticationOutcome, state: State): Decision<Event> => {
  if (state._tag === "Initial" || referenceOf(state) !== command.processorReference)
    return refuse(new NotFound({ entity: "CardAuthentication" }))
  const outcome = command.outcome
  if (state._tag !== "Awaiting")
    return state._tag === outcome._tag
      ? nothing
      : illegal(state, command, `the authentication already ${state._tag === "Failed" ? "failed" : "succeeded"}`)
  return outcome._tag === "Succeeded"
    ? accept<Event>({
        _tag: "CardAuthenticationSucceeded",
        paymentRequestId: command.paymentRequestId,
        attempt: state.attempt,
        payment: state.payment,
        ...(outcome.availableAt === undefined ? {} : { availableAt: outcome.availableAt }),
        at: command.at,
      })
    : accept<Event>({
        _tag: "CardAuthenticationFailed",
        paymentRequestId: command.paymentRequestId,
        attempt: state.attempt,
        processorReference: state.payment.processorReference,
        code: outcome.code,
        at: command.at,
      })
}

export const decide = byCommand<Command, State, Event>({
  AwaitCardAuthentication: await_,
  RecordCardAuthenticationOutcome: recordOutcome,
})

export const evolve = byEvent<Event, State>({
  CardAuthenticationRequired: (_state, event) => ({
    _tag: "Awaiting",
    attempt: event.attempt,
    payment: event.payment,
  }),
  CardAuthenticationSucceeded: (_state, event) => ({
    _tag: "Succeeded",
    attempt: event.attempt,
    payment: event.payment,
    ...(event.availableAt === undefined ? {} : { availableAt: event.availableAt }),
  }),
  CardAuthenticationFailed: (_state, event) => ({
    _tag: "Failed",
    attempt: event.attempt,
    processorReference: event.processorReference,
    code: event.code,
  }),
})

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "CardAuthentication",
  initialState,
  decide,
  evolve,
  events: CardAuthenticationEvent,
  eventVersion: () => 1,
}
