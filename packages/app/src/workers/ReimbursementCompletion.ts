/**
 * The reimbursement-completion worker, in the sandbox AND in production (the
 * provider differs: the domain's sandbox e-signature, whose payer signs after
 * the sandbox's settlement delay, or the operator's bridge,
 * `providers/ESignatureBridge.ts`, operation `envelope-status`): transfers
 * applied for reimbursement and not reimbursed yet
 * (`PgDueWork.pendingReimbursements`, every partner) have their envelope's
 * status asked (`Transfers.checkReimbursement`); once the payer signed
 * (Completed) the transfer records TransferReimbursed and reads
 * `isReimbursed: true`. Its cursor walks through the set and wraps around.
 *
 * Which status completes a reimbursement is the domain's rule
 * (`Transfer.fromEnvelopeStatus`); this worker only polls. Safe with several
 * instances: completing a reimbursement twice changes nothing (the second is
 * a no-op, or loses its version race and is logged). Work is done on each
 * partner's sandbox clock (`SandboxClock.within`; in production the real clock).
 */
import { PgDueWork } from "@partnerpay/adapters-pg"
import { Ids, Traced, Transfers } from "@partnerpay/domain"
import { Effect } from "effect"
import * as SandboxClock from "../sandbox/SandboxClock.ts"
import { worker } from "./Polling.ts"

/** The worker's name in logs and `GET /readyz`. */
export const name = "reimbursement-completion"

/** Transfers asked about per poll. */
export const batchSize = 50

/** One step: the reimbursements it completed. */
export const step = Traced.fn("ReimbursementCompletion.step")(function* (cursor: { startingAfter: string }) {
  const clocks = yield* SandboxClock.current
  const pending = yield* PgDueWork.pendingReimbursements(batchSize, cursor.startingAfter)
  cursor.startingAfter = pending.length < batchSize ? "" : pending[pending.length - 1]!.sort_key
  let done = 0
  for (const row of pending) {
    const checked = yield* clocks
      .within(row.partner_id, Transfers.checkReimbursement(Ids.TransferId.make(row.id)))
      .pipe(
        Effect.catch((error) =>
          Effect.logWarning("reimbursement not checked", {
            transferId: row.id,
            error: (error as { _tag?: string })._tag ?? "unknown",
          }).pipe(Effect.as({ reimbursed: false })),
        ),
      )
    if (!checked.reimbursed) continue
    done++
    yield* Effect.logInfo("reimbursement completed", { transferId: row.id })
  }
  return done
})

/** The worker: every `pollMillis` (the sandbox follows its settlement delay, production its poll setting). */
export const layer = (options: { readonly pollMillis: number }) => {
  const cursor = { startingAfter: "" }
  return worker(
    name,
    options.pollMillis,
    Effect.suspend(() => step(cursor)),
  )
}
