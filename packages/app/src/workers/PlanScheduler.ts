/**
 * The payment plan scheduler: every second, the plans due today or earlier
 * (`PaymentPlans.duePlans`, all partners) get their instalment collected
 * (`PaymentPlans.collectDue`): the plan records it and its Transfer is
 * initiated, in one unit of work (the sandbox settlement then settles or
 * fails it like any transfer). "Today" is the plan's partner's (each partner
 * has its own sandbox time, SandboxClock.ts; real time in production).
 *
 * Exactly once per due date, with any number of instances: each plan is
 * collected under its claim (`ItemClaims.exclusively`, kind `plan-collection`:
 * no transaction is held); an instance that does not get it skips the plan
 * this round. Under the claim `collectDue`
 * reloads the plan from the log, so a due date already collected (by another
 * instance a moment earlier) is seen and nothing is recorded; the plan
 * stream's optimistic concurrency is the backstop.
 */
import { CalendarDate, PaymentPlans } from "@partnerpay/domain"
import { Effect, Option } from "effect"
import * as SandboxClock from "../sandbox/SandboxClock.ts"
import * as ItemClaims from "./ItemClaims.ts"
import { worker } from "./Polling.ts"

/** The claims' kind (`work_claims`). */
export const claimKind = "plan-collection"

export const layer = (options: { readonly pollMillis?: number } = {}) =>
  worker(
    "payment-plan-scheduler",
    options.pollMillis ?? 1000,
    Effect.gen(function* () {
      const clocks = yield* SandboxClock.current
      // Up to the furthest-ahead partner's today; each plan is due by its own partner's today.
      const due = yield* PaymentPlans.duePlans(CalendarDate.fromEpochMillis(yield* clocks.latestMillis), 50)
      let collected = 0
      for (const plan of due) {
        if (plan.nextDueDate > CalendarDate.fromEpochMillis(yield* SandboxClock.nowFor(clocks, plan.partnerId)))
          continue
        const transaction = ItemClaims.exclusively(
          claimKind,
          plan.paymentPlanId,
          PaymentPlans.collectDue(plan.paymentPlanId),
        ).pipe(Effect.map((collected) => collected ?? Option.none()))
        const result = yield* clocks.within(plan.partnerId, transaction).pipe(
          Effect.catch((error) =>
            Effect.logWarning("instalment not collected", {
              paymentPlanId: plan.paymentPlanId,
              error: (error as { _tag?: string })._tag ?? "unknown",
            }).pipe(Effect.as(Option.none())),
          ),
        )
        if (Option.isSome(result)) {
          collected++
          yield* Effect.logInfo("instalment collected", {
            paymentPlanId: plan.paymentPlanId,
            dueDate: result.value.dueDate,
            instalmentNumber: result.value.instalmentNumber,
            transferId: result.value.transferId,
          })
        }
      }
      // Plans locked by another instance stay due: wait for the next round rather than spin.
      return collected
    }),
  )
