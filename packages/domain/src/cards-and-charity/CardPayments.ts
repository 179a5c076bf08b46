/**
 * Use case of POST /cardpayment (spec v0.4.8, v0.4.10): the partner registers
 * a card payment made on an external terminal for a merchant (`merchantId`).
 *
 * Retry-safe: the merchant and the terminal's `externalReference` identify the
 * payment. Registering again with the same merchant and external reference
 * answers the same `cardPaymentId` when the details are the same, and
 * AlreadyExists (409) when they differ. The event store enforces it: the
 * first registration claims the (partner, merchant, external reference)
 * `NaturalKey` stream expecting no stream yet, so of concurrent registrations
 * one creates the payment and the others (run again after the conflict) find
 * it. The merchant id is recorded as given: the interface has no merchant
 * registry to check it against.
 */

import { DateTime } from "effect"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import { IdGenerator } from "../infrastructure/IdGenerator.ts"
import * as NaturalKey from "../infrastructure/NaturalKey.ts"
import { ReadModelStore } from "../infrastructure/ReadModel.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import * as Amounts from "../kernel/Amounts.ts"
import type { CardPaymentId, MerchantId, PartnerId } from "../kernel/Ids.ts"
import * as CardPayment from "./CardPayment.ts"
import * as CardPaymentsProjection from "./CardPaymentsProjection.ts"

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

/** The natural key of a card payment: one per (partner, merchant, external reference). */
export const naturalKeyOf = (partnerId: PartnerId, merchantId: MerchantId, externalReference: string): string =>
  NaturalKey.idOf("CardPayment", [partnerId, merchantId, externalReference])

export const register = UseCase.fn("CardPayments.register")(function* (input: RegisterInput) {
  const amount = yield* Amounts.fromWire("amount", input.amount)
  const store = yield* ReadModelStore
  const existing = yield* store.find(CardPaymentsProjection.collection, {
    partnerId: input.partnerId,
    keys: { merchantId: input.merchantId, externalReference: input.externalReference },
    limit: 1,
  })
  // A payment registered before keys were claimed has no key yet: it claims it now.
  const known = existing.items[0]
  const candidate = known?.id ?? (yield* (yield* IdGenerator).next)
  const at = yield* DateTime.now
  const claimed = yield* CommandHandler.handle(
    NaturalKey.aggregate,
    naturalKeyOf(input.partnerId, input.merchantId, input.externalReference),
    { _tag: "ClaimNaturalKey", scope: "CardPayment", ownerId: candidate, at },
    { expectNew: known === undefined },
  )
  const cardPaymentId = NaturalKey.ownerOf(claimed.state, candidate) as CardPaymentId
  const isNew = claimed.events.length > 0 && known === undefined
  yield* CommandHandler.handle(
    CardPayment.aggregate,
    cardPaymentId,
    {
      _tag: "RegisterCardPayment",
      cardPaymentId,
      partnerId: input.partnerId,
      merchantId: input.merchantId,
      amount,
      last4: input.last4,
      brand: input.brand,
      externalReference: input.externalReference,
      at,
    },
    { expectNew: isNew },
  )
  const registered: Registered = { cardPaymentId, status: "Registered" }
  return registered
})
