/**
 * The card-refund retry worker, in the sandbox AND in production (issue 38):
 * a card refund left Pending because the card processor could not be reached
 * (`POST /Transaction/{id}/Refund` answered Pending) is asked of the
 * processor again (`CardRefundRetries.retry`), with backoff
 * (PARTNERPAY_CARD_REFUND_RETRY_MS, doubled after each failed attempt), at
 * most `CardRefundAttempts.maxAttempts` times, then Failed with
 * REFUND_STATUS_CHANGED. Refunds the processor accepted without deciding
 * (Stripe's `pending`) are left to its notification.
 *
 * Due refunds are found in the `card_refund_retries` read model
 * (`PgDueWork.pendingCardRefunds`, `CardRefundRetriesProjection`, a cursor
 * walking through it); whether one is due is the domain's rule
 * (`CardRefundAttempts.nextAttemptAt`). The processor is called outside any
 * transaction (the charger is guarded: `ProviderGuard.ts`). Safe with several
 * instances: the refund's id is the processor's idempotency key, and an
 * attempt recorded twice loses its version race (logged). Work is done on
 * each partner's sandbox clock (`SandboxClock.within`; production: the real clock).
 */
import { PgDueWork } from "@partnerpay/adapters-pg"
import { CardRefundRetries, Ids, Traced, TransferEvents } from "@partnerpay/domain"
import { Effect, Schema } from "effect"
import * as SandboxClock from "../sandbox/SandboxClock.ts"
import { worker } from "./Polling.ts"

/** The worker's name in logs and `GET /readyz`. */
export const name = "card-refund-retry"

/** Refunds looked at per poll. */
export const batchSize = 50

const refundIdOf = Schema.decodeUnknownSync(TransferEvents.RefundId)

/** One step: the refunds it asked the processor for again. */
export const step = Traced.fn("CardRefundRetry.step")(function* (
  cursor: { startingAfter: string },
  baseMillis: number,
) {
  const clocks = yield* SandboxClock.current
  const pending = yield* PgDueWork.pendingCardRefunds(batchSize, cursor.startingAfter)
  cursor.startingAfter = pending.length < batchSize ? "" : pending[pending.length - 1]!.sort_key
  let done = 0
  for (const row of pending) {
    const retried = yield* clocks
      .within(
        row.partner_id,
        CardRefundRetries.retry(Ids.CardPaymentId.make(row.card_payment_id), refundIdOf(row.id), baseMillis),
      )
      .pipe(
        Effect.catch((error) =>
          Effect.logWarning("card refund not retried", {
            refundId: row.id,
            error: (error as { _tag?: string })._tag ?? "unknown",
          }).pipe(Effect.as("NotDue" as const)),
        ),
      )
    if (retried === "NotDue" || retried === "Decided") continue
    done++
    yield* Effect.logInfo("card refund asked again", { refundId: row.id, outcome: retried })
  }
  return done
})

/** The worker: every `baseMillis` when idle; the backoff of a refund's attempts starts at `baseMillis`. */
export const layer = (options: { readonly baseMillis: number }) => {
  const cursor = { startingAfter: "" }
  return worker(
    name,
    options.baseMillis,
    Effect.suspend(() => step(cursor, options.baseMillis)),
  )
}
