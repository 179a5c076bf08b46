/**
 * The recurring-charity scheduler: every second, the recurring charity gifts
 * due today or earlier (`Charity.dueGifts`, all partners) are collected again
 * (`Charity.collectDue`): the gift records the collection and a new Transfer
 * from the donor's account is initiated, in one unit of work (the
 * money-movement workers then originate, settle, fail or return it like any
 * transfer); or the gift stops (the donor unlinked the account, the charity or
 * the donor may no longer collect). "Today" is the gift's partner's (each
 * partner has its own sandbox time, SandboxClock.ts; real time in
 * production). Runs in both environments.
 *
 * Which gifts are due and what a collection is are the domain's rules
 * (`RecurringGift.ts`, the CharityTransaction decider); this worker only polls.
 *
 * Exactly once per due date, with any number of instances, as the plan
 * scheduler: each gift is collected under its claim (`ItemClaims.exclusively`,
 * kind `recurring-gift`: no transaction is held); an instance that does not get
 * it skips the gift this round. Under the claim `collectDue` reloads the gift from its stream, so a due date collected a
 * moment earlier by another instance is seen and nothing is recorded; the
 * stream's optimistic concurrency is the backstop.
 */
import { CalendarDate, Charity } from "@partnerpay/domain"
import { Effect, Option } from "effect"
import * as SandboxClock from "../sandbox/SandboxClock.ts"
import * as ItemClaims from "./ItemClaims.ts"
import { worker } from "./Polling.ts"

/** The claims' kind (`work_claims`). */
export const claimKind = "recurring-gift"

/** Gifts tried per round. */
export const batchSize = 50

/** The worker's name in logs and `GET /readyz`. */
export const name = "recurring-charity-scheduler"

export const layer = (options: { readonly pollMillis?: number } = {}) =>
  worker(
    name,
    options.pollMillis ?? 1000,
    Effect.gen(function* () {
      const clocks = yield* SandboxClock.current
      // Up to the furthest-ahead partner's today; each gift is due by its own partner's today.
      const due = yield* Charity.dueGifts(CalendarDate.fromEpochMillis(yield* clocks.latestMillis), batchSize)
      let done = 0
      for (const gift of due) {
        const today = CalendarDate.fromEpochMillis(yield* SandboxClock.nowFor(clocks, gift.partnerId))
        if (gift.nextDueDate > today) continue
        const transaction = ItemClaims.exclusively(
          claimKind,
          gift.charityTransactionId,
          Charity.collectDue(gift.charityTransactionId, today),
        ).pipe(Effect.map((outcome) => outcome ?? Option.none<Charity.CollectOutcome>()))
        const outcome = yield* clocks.within(gift.partnerId, transaction).pipe(
          Effect.catch((error) =>
            Effect.logWarning("recurring gift not collected", {
              charityTransactionId: gift.charityTransactionId,
              error: (error as { _tag?: string })._tag ?? "unknown",
            }).pipe(Effect.as(Option.none<Charity.CollectOutcome>())),
          ),
        )
        if (Option.isNone(outcome)) continue
        done++
        if (outcome.value._tag === "Collected")
          yield* Effect.logInfo("recurring gift collected", {
            charityTransactionId: outcome.value.charityTransactionId,
            dueDate: outcome.value.dueDate,
            collectionNumber: outcome.value.collectionNumber,
            transferId: outcome.value.transferId,
          })
        else
          yield* Effect.logInfo("recurring gift stopped", {
            charityTransactionId: outcome.value.charityTransactionId,
            reason: outcome.value.reason,
          })
      }
      // Gifts locked by another instance stay due: wait for the next round rather than spin.
      return done
    }),
  )
