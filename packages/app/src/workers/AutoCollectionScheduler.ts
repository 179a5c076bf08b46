/**
 * The auto-collection scheduler: every second, the Pending payment requests
 * offering autopay or a debit authorization that are due today or earlier and were
 * not tried yet (`AutoCollection.due`, all partners) are collected by the
 * service itself (`AutoCollection.collect`): accepted from the payer's
 * designated account exactly like a manual acceptance (transfer, settlement,
 * PAYMENT_REQUEST_STATUS_CHANGED webhooks), or skipped once with a reason
 * (over the limit, no usable account, no debit authorization) and left
 * Pending for the payer. "Today" is the UTC date of the request's partner's
 * clock (in the sandbox each partner's own time, SandboxClock.ts), and a
 * request created with a due date of today is collected within a second or so.
 *
 * Which requests may be collected is the domain's rule (the PaymentRequest
 * decider's `TryAutoCollection`); this worker only polls.
 *
 * Exactly once, with any number of instances: each request is collected under
 * its claim (`ItemClaims.exclusively`, kind `auto-collection`: no transaction is
 * held); an instance that does not get it skips the request this round. Under
 * the claim `collect` reloads the request from its
 * stream, so a request collected a moment earlier by another instance is no
 * longer due and nothing is recorded; the stream's optimistic concurrency is
 * the backstop.
 */
import { AutoCollection, CalendarDate } from "@partnerpay/domain"
import { Effect } from "effect"
import * as SandboxClock from "../sandbox/SandboxClock.ts"
import * as ItemClaims from "./ItemClaims.ts"
import { worker } from "./Polling.ts"

/** The claims' kind (`work_claims`). */
export const claimKind = "auto-collection"

/** Requests tried per round. */
export const batchSize = 50

/** The worker's name in logs and `GET /readyz`; kept from before the module was named AutoCollectionScheduler (operators may watch it). */
export const name = "autopay-scheduler"

export const layer = (options: { readonly pollMillis?: number } = {}) =>
  worker(
    name,
    options.pollMillis ?? 1000,
    Effect.gen(function* () {
      const clocks = yield* SandboxClock.current
      // Up to the furthest-ahead partner's today; each request is due by its own partner's today.
      const due = yield* AutoCollection.due(CalendarDate.fromEpochMillis(yield* clocks.latestMillis), batchSize)
      let done = 0
      for (const request of due) {
        const today = CalendarDate.fromEpochMillis(yield* SandboxClock.nowFor(clocks, request.partnerId))
        if (request.dueDate > today) continue
        const transaction = ItemClaims.exclusively(
          claimKind,
          request.paymentRequestId,
          AutoCollection.collect(request.paymentRequestId, today),
        )
        const outcome = yield* clocks.within(request.partnerId, transaction).pipe(
          Effect.catch((error) =>
            Effect.logWarning("payment request not collected automatically", {
              paymentRequestId: request.paymentRequestId,
              error: (error as { _tag?: string })._tag ?? "unknown",
            }).pipe(Effect.as(undefined)),
          ),
        )
        if (outcome === undefined || outcome._tag === "NothingToDo") continue
        done++
        if (outcome._tag === "Collected")
          yield* Effect.logInfo("payment request collected automatically", {
            paymentRequestId: outcome.paymentRequestId,
            collection: outcome.collection,
            transferId: outcome.transferId,
          })
        else
          yield* Effect.logInfo("auto-collection skipped", {
            paymentRequestId: outcome.paymentRequestId,
            reason: outcome.reason,
          })
      }
      // Requests locked by another instance stay due: wait for the next round rather than spin.
      return done
    }),
  )
