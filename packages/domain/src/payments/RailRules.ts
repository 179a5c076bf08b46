/**
 * The rail's capabilities (`RailCapabilities.ts`) as the use cases check
 * them: the currencies, where a collection, a plan, a debit authorization, a
 * charity gift or a refund is asked for; the payer limit at Accept (422), and
 * again when any debit is originated (`MoneyMovements.originate`): an
 * automatic collection (an instalment, an autopay or debit-authorization
 * collection, a recurring gift) that would take the payer past it fails with
 * that reason instead of being originated. The
 * capabilities are the money-movement provider's (`MoneyMovement.capabilities`);
 * without a provider (or one that declares none) nothing is refused.
 */
import { DateTime, Effect, Option } from "effect"
import { decodeDocument, ReadModelStore } from "../infrastructure/ReadModel.ts"
import type * as Money from "../kernel/Money.ts"
import * as Traced from "../kernel/Traced.ts"
import { MoneyMovement } from "./MoneyMovement.ts"
import * as RailCapabilities from "./RailCapabilities.ts"
import * as TransfersProjection from "./TransfersProjection.ts"

/** The rail's capabilities, when a provider declares them. */
export const capabilities = Effect.map(Effect.serviceOption(MoneyMovement), (provider) =>
  Option.isSome(provider) ? provider.value.capabilities : undefined,
)

/** Fails with 422 CURRENCY_NOT_SUPPORTED (naming `field`) when the rail does not move `currency`. */
export const checkCurrency = Traced.fn("RailRules.checkCurrency")(function* (
  currency: string,
  field = "amount.currencyCode",
) {
  const refusal = RailCapabilities.currencyRefusal(yield* capabilities, currency, field)
  if (refusal !== undefined) return yield* refusal
})

/** The payer's debits (transfers) initiated within the limit's window, as the limit counts them. */
const debitsOf = Traced.fn("RailRules.debitsOf")(function* (
  partnerId: string,
  payerRegistrationId: string,
  limit: RailCapabilities.PayerLimit,
  at: DateTime.Utc,
) {
  const store = yield* ReadModelStore
  const debits: Array<RailCapabilities.CountedDebit & { readonly transferId: string }> = []
  let cursor: string | undefined
  while (true) {
    const page = yield* store.find(TransfersProjection.collection, {
      partnerId,
      keys: { payerRegistrationId },
      sortKeyFrom: RailCapabilities.windowStart(limit, at),
      limit: 500,
      order: "asc",
      ...(cursor === undefined ? {} : { startingAfter: cursor }),
    })
    for (const item of page.items) debits.push(decodeDocument(TransfersProjection.projection, item))
    if (!page.hasMore || page.items.length === 0) break
    cursor = page.items[page.items.length - 1]!.id
  }
  return debits
})

/**
 * Fails with 422 PAYER_LIMIT_EXCEEDED when a debit of `amount` would take the payer past the rail's
 * rolling limit, counting their Pending and Settled debits initiated within its window.
 */
export const checkPayerLimit = Traced.fn("RailRules.checkPayerLimit")(function* (
  partnerId: string,
  payerRegistrationId: string,
  amount: Money.Money,
  /** The debit being checked when it is already initiated (at origination): not counted twice. */
  excludeTransferId?: string,
) {
  const limit = yield* RailCapabilities.CurrentPayerLimit
  if (limit === undefined || amount.currency !== limit.amount.currency) return
  const at = yield* DateTime.now
  const debits = (yield* debitsOf(partnerId, payerRegistrationId, limit, at)).filter(
    (debit) => debit.transferId !== excludeTransferId,
  )
  const refusal = RailCapabilities.payerLimitRefusal(limit, amount, debits, at)
  if (refusal !== undefined) return yield* refusal
})

/**
 * The payer limit where an automatic collection is set up with its amount known (a payment request
 * created with autopay or a debit authorization: no Accept comes before its debit): 422
 * PAYER_LIMIT_EXCEEDED when it cannot pass. Due today or earlier, it is collected within the
 * current window: checked as at Accept (`checkPayerLimit`); due later, the window will have moved
 * by then: refused only when the amount alone exceeds the limit (the window is checked again at
 * origination, where an automatic collection past it fails with that reason).
 */
export const checkAutoCollection = Traced.fn("RailRules.checkAutoCollection")(function* (
  partnerId: string,
  payerRegistrationId: string,
  amount: Money.Money,
  dueDate: string,
) {
  const limit = yield* RailCapabilities.CurrentPayerLimit
  if (limit === undefined) return
  const at = yield* DateTime.now
  if (dueDate <= DateTime.formatIsoDateUtc(at)) return yield* checkPayerLimit(partnerId, payerRegistrationId, amount)
  const refusal = RailCapabilities.payerLimitRefusal(limit, amount, [], at)
  if (refusal !== undefined) return yield* refusal
})
