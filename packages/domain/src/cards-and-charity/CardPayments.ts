/**
 * Use case of POST /cardpayment (spec v0.4.8, v0.4.10): the partner registers
 * a card payment made on an external terminal for a merchant (`merchantId`).
 *
 * The card processor registers the payment first (`CardProcessor`, customers
 * area's port): a declined card is refused (CARD_DECLINED) and not recorded;
 * the processor's reference is recorded with the payment.
 *
 * Retry-safe: the merchant and the terminal's `externalReference` identify the
 * payment. Registering again with the same merchant and external reference
 * answers the same `cardPaymentId` when the details are the same, and
 * AlreadyExists (409) when they differ. The event store enforces it: the
 * first registration claims the (partner, merchant, external reference)
 * `NaturalKey` stream expecting no stream yet, so of concurrent registrations
 * one creates the payment and the others (run again after the conflict) find
 * it. The merchant id is recorded as given: the interface has no merchant
 * registry to check it against. A merchant id that is the id of one of the
 * partner's companies makes the payment that company's money (its balance is
 * credited at once, `LedgerPolicy.terminalCardPolicy`); such a company must be
 * Verified (who may collect), checked before the processor is asked.
 */

import { DateTime, Effect } from "effect"
import { Company } from "../companies/index.ts"
import { CustomerProviders } from "../customers/index.ts"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import { EventStoreUnavailable } from "../infrastructure/EventStore.ts"
import { IdGenerator } from "../infrastructure/IdGenerator.ts"
import * as NaturalKey from "../infrastructure/NaturalKey.ts"
import { notAvailable } from "../infrastructure/Providers.ts"
import { ReadModelStore } from "../infrastructure/ReadModel.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import * as Amounts from "../kernel/Amounts.ts"
import { RuleViolated } from "../kernel/DomainError.ts"
import type { CardPaymentId, CompanyId, MerchantId, PartnerId } from "../kernel/Ids.ts"
import * as Traced from "../kernel/Traced.ts"
import { PlatformFees } from "../payments/index.ts"
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

/** The payment already recorded under (partner, merchant, external reference), by the read model. */
const knownPayment = Traced.fn("CardPayments.knownPayment")(function* (input: RegisterInput) {
  const store = yield* ReadModelStore
  const existing = yield* store.find(CardPaymentsProjection.collection, {
    partnerId: input.partnerId,
    keys: { merchantId: input.merchantId, externalReference: input.externalReference },
    limit: 1,
  })
  return existing.items[0]?.id as CardPaymentId | undefined
})

/** The partner's company whose id is the merchant id, with its KYB status; undefined for any other merchant. */
const merchantCompany = Traced.fn("CardPayments.merchantCompany")(function* (input: RegisterInput) {
  const { state } = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Company.aggregate, input.merchantId))
  if (state._tag === "Initial" || state.partnerId !== input.partnerId) return undefined
  return { companyId: state.companyId as CompanyId, status: state._tag }
})

/** Records the payment the processor registered (its own unit, after the processor answered). */
const record = UseCase.fn("CardPayments.record")(function* (
  input: RegisterInput,
  command: CardPayment.RegisterCardPayment,
  known: CardPaymentId | undefined,
) {
  const claimed = yield* CommandHandler.handle(
    NaturalKey.aggregate,
    naturalKeyOf(input.partnerId, input.merchantId, input.externalReference),
    { _tag: "ClaimNaturalKey", scope: "CardPayment", ownerId: command.cardPaymentId, at: command.at },
    { expectNew: known === undefined },
  )
  const cardPaymentId = NaturalKey.ownerOf(claimed.state, command.cardPaymentId) as CardPaymentId
  const isNew = claimed.events.length > 0 && known === undefined
  yield* CommandHandler.handle(
    CardPayment.aggregate,
    cardPaymentId,
    { ...command, cardPaymentId },
    { expectNew: isNew },
  )
  const registered: Registered = { cardPaymentId, status: "Registered" }
  return registered
})

/**
 * Registers a terminal card payment: checked (the decider, before anyone is asked), registered
 * with the card processor (`CardProcessor.registerCardPayment`: a declined card is RuleViolated
 * `CARD_DECLINED`, 422, and nothing is recorded; the processor unavailable is a 503; a service
 * without a card processor answers `FEATURE_NOT_AVAILABLE`, 422), then
 * recorded with the processor's reference. A payment already recorded under the same merchant and
 * external reference is not sent to the processor again: the recording answers it (same details)
 * or refuses it (AlreadyExists).
 */
export const register = Traced.fn("CardPayments.register")(function* (input: RegisterInput) {
  const amount = yield* Amounts.fromWire("amount", input.amount)
  const known = yield* knownPayment(input)
  const company = yield* merchantCompany(input)
  // A company's payment records the partner's card fee schedule in force now (no return fee on cards).
  const { returnFeeTerms: _none, ...fees } =
    company === undefined ? {} : yield* PlatformFees.appliedFor(input.partnerId, "Card", amount)
  const command: CardPayment.RegisterCardPayment = {
    _tag: "RegisterCardPayment",
    ...fees,
    cardPaymentId: known ?? ((yield* (yield* IdGenerator).next) as CardPaymentId),
    partnerId: input.partnerId,
    merchantId: input.merchantId,
    amount,
    last4: input.last4,
    brand: input.brand,
    externalReference: input.externalReference,
    processorReference: "",
    ...(company === undefined ? {} : { company }),
    at: yield* DateTime.now,
  }
  // Decide first (pure): an invalid payment never reaches the processor.
  const checked = CardPayment.decide(command, CardPayment.initialState)
  if (checked._tag === "Failure") return yield* Effect.fail(checked.failure)
  if (known !== undefined) return yield* record(input, command, known)
  const processor = yield* CustomerProviders.CardProcessor
  const { processorReference, availableAt } = yield* processor
    .registerCardPayment({
      cardPaymentId: command.cardPaymentId,
      merchantId: input.merchantId,
      amount,
      last4: input.last4,
      brand: input.brand,
      externalReference: input.externalReference,
    })
    .pipe(
      Effect.catchTags({
        CardProcessorRefused: (refusal) =>
          Effect.fail(
            new RuleViolated({
              code: "CARD_DECLINED",
              reason: `the card processor declined the payment (${refusal.code}): ${refusal.reason}`,
            }),
          ),
        ProviderUnavailable: (error) =>
          Effect.fail(new EventStoreUnavailable({ reason: `the card processor is unavailable: ${error.message}` })),
        FeatureNotAvailable: (error) => Effect.fail(notAvailable(error)),
      }),
    )
  return yield* record(
    input,
    { ...command, processorReference, ...(availableAt === undefined ? {} : { availableAt }) },
    known,
  )
})
