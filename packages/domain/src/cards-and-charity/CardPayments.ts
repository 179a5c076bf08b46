/**
 * Use case of POST /cardpayment (spec v0.4.8, v0.4.10): the partner registers
 * a card payment made on an external terminal for a merchant (`merchantId`).
 *
 * Retry-safe: the merchant and the terminal's `externalReference` identify the
 * payment. Registering again with the same merchant and external reference
 * answers the same `cardPaymentId` when the details are the same, and
 * AlreadyExists (409) when they differ. The merchant id is recorded as given:
 * the interface has no merchant registry to check it against.
 */
import { DateTime, Effect } from "effect"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import { IdGenerator } from "../infrastructure/IdGenerator.ts"
import { ReadModelStore } from "../infrastructure/ReadModel.ts"
import { unitOfWork } from "../infrastructure/UseCase.ts"
import * as Amounts from "../kernel/Amounts.ts"
import type { CardPaymentId, MerchantId, PartnerId } from "../kernel/Ids.ts"
import * as CardPayment from "./CardPayment.ts"
import * as CardPayments from "./CardPaymentsProjection.ts"

export interface RegisterInput {
  readonly partnerId: PartnerId
  readonly merchantId: MerchantId
  readonly amount: Amounts.WireAmount
  readonly last4: string
  readonly brand: string
  readonly externalReference: string
}

export interface Registered {
  readonly cardPaymentId: CardPaymentId
  readonly status: "Registered"
}

export const register = Effect.fn("CardPayments.register")(function* (input: RegisterInput) {
  const amount = yield* Amounts.fromWire("amount", input.amount)
  return yield* unitOfWork(
    Effect.gen(function* () {
      const store = yield* ReadModelStore
      const existing = yield* store.find(CardPayments.collection, {
        partnerId: input.partnerId,
        keys: { merchantId: input.merchantId, externalReference: input.externalReference },
        limit: 1,
      })
      const known = existing.items[0]
      const cardPaymentId = (known?.id ?? (yield* (yield* IdGenerator).next)) as CardPaymentId
      const at = yield* DateTime.now
      yield* CommandHandler.handle(CardPayment.aggregate, cardPaymentId, {
        _tag: "RegisterCardPayment",
        cardPaymentId,
        partnerId: input.partnerId,
        merchantId: input.merchantId,
        amount,
        last4: input.last4,
        brand: input.brand,
        externalReference: input.externalReference,
        at,
      })
      const registered: Registered = { cardPaymentId, status: "Registered" }
      return registered
    }),
  )
})
