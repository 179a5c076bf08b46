/**
 * Sandbox settlement: a transfer (paying a payment request or collecting a
 * plan's instalment) Pending for PARTNERPAY_SETTLEMENT_DELAY_MS
 * settles (`Payments.settleTransfer`), except amounts whose decimal form ends
 * in ".13" (e.g. 10.13 USD), which fail with bank return code R01
 * ("insufficient funds", `Payments.failTransfer`). Due transfers are found in
 * the `transfers` read model (all partners; sort key = initiation instant) by
 * `PgDueWork.pendingTransfers`, which reads a partial index of the Pending
 * ones only.
 * Batches: each poll reads up to 100 due transfers in one query (oldest
 * first) and applies their outcomes with `Payments.settleBatch`, one unit of
 * work (one commit) for the batch, each transfer atomic on its own with what
 * its outcome causes (the request Paid or Failed, the instalment Settled or
 * Failed, through the policies).
 * Safe with several instances: the outcome is a pure function of the amount
 * and both outcomes change nothing when repeated (a racing loser is reported
 * as skipped); both take the transfers in the same order.
 */

import { PgDueWork } from "@partnerpay/adapters-pg"
import { Ids, Money, Payments, Traced } from "@partnerpay/domain"
import { Effect } from "effect"
import * as SandboxClock from "../SandboxClock.ts"
import { worker } from "./Polling.ts"

export const failingReturnCode = "R01"

/** The sandbox outcome for an amount. */
export const outcomeFor = (amount: Money.Money): "Settle" | "Fail" =>
  Money.toDecimalString(amount).endsWith(".13") ? "Fail" : "Settle"

/** Transfers decided per poll. */
export const batchSize = 100

export const layer = (options: { readonly delayMillis: number }) =>
  worker(
    "sandbox-settlement",
    Math.min(1000, Math.max(100, Math.floor(options.delayMillis / 4))),
    Effect.gen(function* () {
      const clocks = yield* SandboxClock.current
      // Up to the furthest-ahead partner's time; each transfer is due on its own partner's time.
      const cutoff = new Date((yield* clocks.latestMillis) - options.delayMillis).toISOString()
      const rows = yield* PgDueWork.pendingTransfers(cutoff, batchSize)
      let done = 0
      for (const [partnerId, due] of yield* SandboxClock.duePerPartner(clocks, rows, options.delayMillis)) {
        done += yield* clocks.within(partnerId, settle(due))
      }
      return done
    }),
  )

const settle = Traced.fn("SandboxSettlement.settle")(function* (
  due: ReadonlyArray<{ id: string; minor_units: string; currency: string }>,
) {
  const decisions = due.map((transfer): Payments.SettlementDecision => {
    const amount = { minorUnits: Number(transfer.minor_units), currency: transfer.currency } as Money.Money
    const transferId = Ids.TransferId.make(transfer.id)
    return outcomeFor(amount) === "Settle"
      ? { _tag: "Settle", transferId }
      : {
          _tag: "Fail",
          transferId,
          returnCode: failingReturnCode,
          reason: "sandbox: insufficient funds (amount ends in .13)",
        }
  })
  const results = yield* Payments.settleBatch(decisions).pipe(
    Effect.catch((error) =>
      Effect.logWarning("sandbox settlement batch could not complete", {
        transfers: due.length,
        error: (error as { _tag?: string })._tag ?? "unknown",
      }).pipe(Effect.as([])),
    ),
  )
  let done = 0
  for (const result of results) {
    if (result._tag === "Skipped") {
      yield* Effect.logWarning("sandbox settlement could not complete", {
        transferId: result.transferId,
        error: result.error,
      })
      continue
    }
    done++
    yield* Effect.logInfo("sandbox settlement", {
      transferId: result.transferId,
      outcome: result.decision === "Settle" ? "Settle" : "Fail",
    })
  }
  // Failures are not counted: a step that only failed waits before retrying.
  return done
})
