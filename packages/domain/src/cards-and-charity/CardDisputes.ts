/**
 * Use cases of card disputes, driven by the card processor's notifications
 * (production: its webhooks; sandbox: a card ending in 0259 is disputed one
 * settlement cycle after its payment and lost). The disputed payment is named
 * by the processor's charge: a terminal card payment (`CardPayment`) or a
 * payment request paid in the app by card (`PaymentRequest`). The use case
 * reads whose money it is (partner, company) and its amount, then the
 * `CardDispute` decider decides; the policies take the money from (or give
 * it back to) the company's balance in the same unit of work.
 *
 * A payment that is not a card payment of a company (a terminal payment for a
 * merchant outside the service, an unknown id) is NotFound: there is no
 * company balance to take the money from.
 */
import { type DateTime, Effect } from "effect"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import { NotFound } from "../kernel/DomainError.ts"
import type { CardPaymentId, PaymentRequestId } from "../kernel/Ids.ts"
import type * as Money from "../kernel/Money.ts"
import { PaymentRequest } from "../payments/index.ts"
import * as CardDispute from "./CardDispute.ts"
import * as CardPayment from "./CardPayment.ts"

/** The disputed card payment, as the processor's charge names it. */
export type PaymentRef =
  | { readonly _tag: "CardPayment"; readonly cardPaymentId: CardPaymentId }
  | { readonly _tag: "PaymentRequest"; readonly paymentRequestId: PaymentRequestId }

export interface OpenInput {
  readonly disputeId: string
  readonly payment: PaymentRef
  /** The amount disputed; absent: the whole payment. */
  readonly amount?: Money.Money | undefined
  readonly fee: Money.Money
  readonly reason: string
  readonly status: CardDispute.OpenStatus
  readonly at: DateTime.Utc
}

const notACardPayment = new NotFound({ entity: "CardPayment" })

/** Whose money the payment is and how much: a company's card payment, or NotFound. */
const disputed = UseCase.fn("CardDisputes.disputed")(function* (payment: PaymentRef) {
  if (payment._tag === "CardPayment") {
    const { state } = yield* UseCase.dieOnCorruptEvent(
      CommandHandler.load(CardPayment.aggregate, payment.cardPaymentId),
    )
    if (state._tag === "Initial" || state.companyId === undefined) return yield* notACardPayment
    return {
      payment: { cardPaymentId: state.cardPaymentId, partnerId: state.partnerId, companyId: state.companyId },
      amount: state.amount,
    }
  }
  const { state } = yield* UseCase.dieOnCorruptEvent(
    CommandHandler.load(PaymentRequest.aggregate, payment.paymentRequestId),
  )
  if (state._tag !== "PaidByCard") return yield* notACardPayment
  return {
    payment: {
      cardPaymentId: state.card.cardPaymentId,
      paymentRequestId: state.request.paymentRequestId,
      partnerId: state.request.partnerId,
      companyId: state.request.companyId,
    },
    amount: state.request.amount,
  }
})

/** The disputed payment as the dispute names it, and its currency (a fee is in it). */
export const feeCurrencyOf = UseCase.fn("CardDisputes.feeCurrencyOf")(function* (payment: PaymentRef) {
  const found = yield* disputed(payment)
  return { payment, currency: found.amount.currency }
})

/** Tells dispute `disputeId` the processor's news; answers whether it recorded anything (a repeat records nothing). */
const tell = (disputeId: string, command: CardDispute.Command) =>
  CommandHandler.handle(CardDispute.aggregate, disputeId, command).pipe(
    Effect.map((handled) => ({ recorded: handled.events.length > 0 })),
  )

/** The processor opened a dispute of a card payment: its amount and fee leave the company's balance. */
export const open = UseCase.fn("CardDisputes.open")(function* (input: OpenInput) {
  const { payment, amount } = yield* disputed(input.payment)
  return yield* tell(input.disputeId, {
    _tag: "OpenCardDispute",
    dispute: {
      disputeId: input.disputeId,
      payment,
      amount: input.amount ?? amount,
      fee: input.fee,
      reason: input.reason,
    },
    paymentAmount: amount,
    status: input.status,
    at: input.at,
  })
})

/** An open dispute's status changed at the processor. */
export const changeStatus = UseCase.fn("CardDisputes.changeStatus")(function* (
  disputeId: string,
  status: CardDispute.OpenStatus,
  at: DateTime.Utc,
) {
  return yield* tell(disputeId, { _tag: "ChangeCardDisputeStatus", disputeId, status, at })
})

/** The processor decided a dispute: Won gives the money back to the company, Lost keeps it taken. */
export const close = UseCase.fn("CardDisputes.close")(function* (
  disputeId: string,
  outcome: CardDispute.Outcome,
  at: DateTime.Utc,
) {
  return yield* tell(disputeId, { _tag: "CloseCardDispute", disputeId, outcome, at })
})
