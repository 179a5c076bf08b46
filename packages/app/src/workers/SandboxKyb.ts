/**
 * Sandbox KYB: a company that has been Unverified for PARTNERPAY_KYB_DELAY_MS
 * becomes Verified, or Rejected when its name contains "reject" (any case),
 * through `Companies.completeKyb` (which causes the
 * COMPANY_VERIFICATION_STATUS_CHANGED webhook). Due companies are found in the
 * `companies` read model (all partners; sort key = registration instant) by
 * `PgDueWork.unverifiedCompanies`, which reads a partial index of the
 * Unverified ones only.
 * Batches: each poll reads up to 100 due companies in one query (oldest
 * first) and records their verdicts with `Companies.completeKybBatch`, one
 * unit of work (one commit) for the batch.
 * Safe with several instances: the verdict is a pure function of the name and
 * completing KYB is idempotent (a racing loser gets a version conflict, reported
 * as skipped, or changes nothing); both take the companies in the same order.
 */

import { PgDueWork } from "@partnerpay/adapters-pg"
import { Companies, Ids, Traced } from "@partnerpay/domain"
import { Effect } from "effect"
import * as SandboxClock from "../sandbox/SandboxClock.ts"
import { worker } from "./Polling.ts"

/** The sandbox verdict for a company name. */
export const verdictFor = (name: string): "Verified" | "Rejected" =>
  name.toLowerCase().includes("reject") ? "Rejected" : "Verified"

/** Companies decided per poll. */
export const batchSize = 100

export const layer = (options: { readonly delayMillis: number }) =>
  worker(
    "sandbox-kyb",
    Math.min(1000, Math.max(100, Math.floor(options.delayMillis / 4))),
    Effect.gen(function* () {
      const clocks = yield* SandboxClock.current
      // Up to the furthest-ahead partner's time; each company is due on its own partner's time.
      const cutoff = new Date((yield* clocks.latestMillis) - options.delayMillis).toISOString()
      const rows = yield* PgDueWork.unverifiedCompanies(cutoff, batchSize)
      let done = 0
      for (const [partnerId, due] of yield* SandboxClock.duePerPartner(clocks, rows, options.delayMillis)) {
        done += yield* clocks.within(partnerId, complete(due))
      }
      return done
    }),
  )

const complete = Traced.fn("SandboxKyb.complete")(function* (due: ReadonlyArray<{ id: string; name: string }>) {
  const results = yield* Companies.completeKybBatch(
    due.map((company) => {
      const outcome = verdictFor(company.name ?? "")
      return {
        companyId: Ids.CompanyId.make(company.id),
        outcome,
        ...(outcome === "Rejected" ? { reason: 'sandbox: the company name contains "reject"' } : {}),
      }
    }),
  ).pipe(
    Effect.catch((error) =>
      Effect.logWarning("sandbox KYB batch could not complete", { companies: due.length, error: error._tag }).pipe(
        Effect.as([]),
      ),
    ),
  )
  let done = 0
  for (const result of results) {
    if (result._tag === "Skipped") {
      yield* Effect.logWarning("sandbox KYB could not complete", {
        companyId: result.companyId,
        error: result.error,
      })
      continue
    }
    done++
    if (result.changed) yield* Effect.logInfo("sandbox KYB completed", { companyId: result.companyId })
  }
  // Failures are not counted: a step that only failed waits before retrying.
  return done
})
