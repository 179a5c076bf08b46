/**
 * Sandbox settlement: a transfer Pending for PARTNERPAY_SETTLEMENT_DELAY_MS
 * settles (`Payments.settleTransfer`), except amounts whose decimal form ends
 * in ".13" (e.g. 10.13 USD), which fail with bank return code R01
 * ("insufficient funds", `Payments.failTransfer`). Due transfers are found in
 * the `transfers` read model (all partners; sort key = initiation instant).
 * Safe with several instances: the outcome is a pure function of the amount
 * and both use cases change nothing when repeated.
 */
import { Ids, Money, Payments } from "@partnerpay/domain"
import { Clock, Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { worker } from "./Polling.ts"

export const failingReturnCode = "R01"

/** The sandbox outcome for an amount. */
export const outcomeFor = (amount: Money.Money): "Settle" | "Fail" =>
  Money.toDecimalString(amount).endsWith(".13") ? "Fail" : "Settle"

export const layer = (options: { readonly delayMillis: number }) =>
  worker(
    "sandbox-settlement",
    Math.min(1000, Math.max(100, Math.floor(options.delayMillis / 4))),
    Effect.gen(function* () {
      const sql = yield* SqlClient
      const cutoff = new Date((yield* Clock.currentTimeMillis) - options.delayMillis).toISOString()
      const due = yield* sql<{ id: string; minor_units: string; currency: string }>`
        SELECT id, data -> 'amount' ->> 'minorUnits' AS minor_units, data -> 'amount' ->> 'currency' AS currency
        FROM read_models
        WHERE collection = 'transfers' AND keys ->> 'status' = 'Pending' AND sort_key <= ${cutoff}
        ORDER BY sort_key LIMIT 50`
      let done = 0
      for (const transfer of due) {
        const amount = { minorUnits: Number(transfer.minor_units), currency: transfer.currency } as Money.Money
        const transferId = Ids.TransferId.make(transfer.id)
        const outcome = outcomeFor(amount)
        yield* (
          outcome === "Settle"
            ? Payments.settleTransfer(transferId)
            : Payments.failTransfer(transferId, failingReturnCode, "sandbox: insufficient funds (amount ends in .13)")
        ).pipe(
          Effect.tap(() => {
            done++
            return Effect.logInfo("sandbox settlement", { transferId: transfer.id, outcome })
          }),
          Effect.catch((error) =>
            Effect.logWarning("sandbox settlement could not complete", {
              transferId: transfer.id,
              error: (error as { _tag?: string })._tag ?? "unknown",
            }),
          ),
        )
      }
      // Failures are not counted: a step that only failed waits before retrying.
      return done
    }),
  )
