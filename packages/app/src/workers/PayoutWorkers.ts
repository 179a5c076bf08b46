/**
 * The payout workers, in the sandbox and in production:
 *
 * - `payout-scheduler` pays out each company's available balance
 *   (`Payouts.payOutDue`): the companies whose balance is at or above the
 *   minimum and not paid out within the interval (`PgDueWork.payableBalances`,
 *   a partial index of migration 23); the domain decides (payout account,
 *   minimum, schedule) and takes the balance in one unit of work guarded by
 *   the balance stream's version, so of several instances one pays a company
 *   out and the others find nothing left.
 * - `payout-movements` originates each Pending payout not yet originated
 *   through `MoneyMovement.originatePayout` (idempotency key: the payout id: a
 *   payout originated twice, after a crash or by two instances, is one
 *   movement) and asks `MoneyMovement.status` for the outcome of the others
 *   (`Payouts.pollOutcome`): Paid, or Failed with its money back in the balance.
 *
 * The schedule: PARTNERPAY_PAYOUT_INTERVAL_MS (production default: daily; the
 * sandbox: every settlement cycle) and PARTNERPAY_PAYOUT_MINIMUM_MINOR_UNITS.
 * In the sandbox both run on each partner's sandbox clock.
 */
import { PgDueWork } from "@partnerpay/adapters-pg"
import { Ids, Payouts, Traced } from "@partnerpay/domain"
import { Effect, Layer } from "effect"
import * as SandboxClock from "../sandbox/SandboxClock.ts"
import { worker } from "./Polling.ts"

export const schedulerName = "payout-scheduler"
export const movementsName = "payout-movements"

/** Rows handled per poll. */
export const batchSize = 100

export interface Options {
  readonly schedule: Payouts.PayoutSchedule
  /** How long a worker waits when a poll found nothing to do. */
  readonly idleMillis: number
}

const payOut = Traced.fn("PayoutWorkers.payOut")(function* (
  clocks: SandboxClock.SandboxClock["Service"],
  row: PgDueWork.PayableBalance,
  schedule: Payouts.PayoutSchedule,
) {
  const created = yield* clocks
    .within(row.partner_id, Payouts.payOutDue(Ids.CompanyId.make(row.id), schedule))
    .pipe(
      Effect.catch((error) =>
        Effect.logWarning("payout could not be created", { companyId: row.id, error: error._tag }).pipe(
          Effect.as([] as ReadonlyArray<Payouts.CreatedPayout>),
        ),
      ),
    )
  for (const payout of created)
    yield* Effect.logInfo("payout created", { payoutId: payout.payoutId, companyId: payout.companyId })
  return created.length
})

const move = Traced.fn("PayoutWorkers.move")(function* (
  clocks: SandboxClock.SandboxClock["Service"],
  row: PgDueWork.PendingPayout,
) {
  const payoutId = Ids.PayoutId.make(row.id)
  const step = row.originated
    ? Effect.map(Payouts.pollOutcome(payoutId), (status) => (status === "Pending" ? 0 : 1))
    : Effect.map(Payouts.originate(payoutId), (originated) => (originated ? 1 : 0))
  return yield* clocks.within(row.partner_id, step).pipe(
    Effect.tap((done) =>
      done === 0 ? Effect.void : Effect.logInfo("payout moved", { payoutId, originated: row.originated }),
    ),
    Effect.catch((error) =>
      Effect.logWarning("payout could not move", { payoutId, error: error._tag }).pipe(Effect.as(0)),
    ),
  )
})

/** Both payout workers. */
export const layer = (options: Options) =>
  Layer.mergeAll(
    worker(
      schedulerName,
      options.idleMillis,
      Effect.gen(function* () {
        const clocks = yield* SandboxClock.current
        // Up to the furthest-ahead partner's time; the domain applies each partner's own.
        const lastPayoutBefore = new Date((yield* clocks.latestMillis) - options.schedule.intervalMillis).toISOString()
        const rows = yield* PgDueWork.payableBalances(
          Math.max(1, options.schedule.minimumMinorUnits),
          lastPayoutBefore,
          batchSize,
        )
        let created = 0
        for (const row of rows) created += yield* payOut(clocks, row, options.schedule)
        return created
      }),
    ),
    worker(
      movementsName,
      options.idleMillis,
      Effect.gen(function* () {
        const clocks = yield* SandboxClock.current
        const rows = yield* PgDueWork.pendingPayouts(batchSize, new Date(yield* clocks.latestMillis).toISOString())
        let moved = 0
        for (const row of rows) moved += yield* move(clocks, row)
        return moved
      }),
    ),
  )
