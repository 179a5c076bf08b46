/**
 * Sandbox disputes: a company's card payment made with the sandbox card
 * ending in 0259 (in the app, or on a terminal for one of the partner's
 * companies) is disputed by its cardholder one settlement cycle after the
 * payment (`fraudulent`, the whole amount, a dispute fee of 15.00 in the
 * payment's currency: `CardDisputes.open`, NeedsResponse) and the dispute is
 * lost one cycle after it opened (`CardDisputes.close`): the company's
 * balance loses the amount and the fee at once, and the partner receives
 * CARD_DISPUTE_STATUS_CHANGED (NeedsResponse, then Lost).
 *
 * Due work is the `sandbox_card_disputes` read model
 * (`SandboxDisputesProjection`, read by `PgDueWork.sandboxCardsToDispute` and
 * `sandboxDisputesToLose`), judged on each partner's sandbox clock. Safe with several instances: the dispute's id is
 * derived from the card payment's (`dp_sandbox_<cardPaymentId>`), and opening
 * or losing it again changes nothing.
 */
import { PgDueWork } from "@partnerpay/adapters-pg"
import { CardDisputes, type Ids, SandboxDisputesProjection, Traced } from "@partnerpay/domain"
import { DateTime, Effect } from "effect"
import * as SandboxClock from "../sandbox/SandboxClock.ts"
import { worker } from "./Polling.ts"

export const name = "sandbox-card-disputes"

/** The last four digits of the sandbox card whose payments are disputed and lost. */
export const disputedLast4 = SandboxDisputesProjection.disputedLast4

/** The sandbox's dispute fee, in minor units of the payment's currency. */
export const sandboxFeeMinorUnits = 1_500

/** Disputes opened or lost per poll. */
export const batchSize = 100

const logged = <A, E, R>(what: string, id: string, self: Effect.Effect<A, E, R>) =>
  self.pipe(
    Effect.as(1),
    Effect.catch((error) =>
      Effect.as(
        Effect.logWarning(`sandbox dispute could not ${what}`, { id, error: (error as { _tag?: string })._tag }),
        0,
      ),
    ),
  )

const open = Traced.fn("SandboxCardDisputes.open")(function* (row: PgDueWork.SandboxDisputedCard) {
  const cardPaymentId = row.id as Ids.CardPaymentId
  const at = yield* DateTime.now
  return yield* logged(
    "open",
    row.id,
    Effect.flatMap(
      CardDisputes.feeCurrencyOf(
        row.payment_request_id === null
          ? { _tag: "CardPayment", cardPaymentId }
          : { _tag: "PaymentRequest", paymentRequestId: row.payment_request_id as Ids.PaymentRequestId },
      ),
      ({ payment, currency }) =>
        CardDisputes.open({
          disputeId: PgDueWork.sandboxDisputeId(row.id),
          payment,
          fee: { minorUnits: sandboxFeeMinorUnits, currency },
          reason: "fraudulent",
          status: "NeedsResponse",
          at,
        }),
    ),
  )
})

const lose = Traced.fn("SandboxCardDisputes.lose")(function* (row: PgDueWork.SandboxOpenDispute) {
  return yield* logged("be lost", row.id, CardDisputes.close(row.id, "Lost", yield* DateTime.now))
})

export const layer = (options: { readonly cycleMillis: number }) =>
  worker(
    name,
    Math.min(1000, Math.max(100, Math.floor(options.cycleMillis / 4))),
    Effect.gen(function* () {
      const clocks = yield* SandboxClock.current
      const cutoff = new Date((yield* clocks.latestMillis) - options.cycleMillis).toISOString()
      let done = 0
      const cards = yield* PgDueWork.sandboxCardsToDispute(cutoff, batchSize)
      for (const [partnerId, due] of yield* SandboxClock.duePerPartner(clocks, cards, options.cycleMillis))
        for (const row of due) done += yield* clocks.within(partnerId, open(row))
      const disputes = yield* PgDueWork.sandboxDisputesToLose(cutoff, batchSize)
      for (const [partnerId, due] of yield* SandboxClock.duePerPartner(clocks, disputes, options.cycleMillis))
        for (const row of due) done += yield* clocks.within(partnerId, lose(row))
      return done
    }),
  )
