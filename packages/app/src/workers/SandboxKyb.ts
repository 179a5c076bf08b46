/**
 * Sandbox KYB: a company that has been Unverified for PARTNERPAY_KYB_DELAY_MS
 * becomes Verified, or Rejected when its name contains "reject" (any case),
 * through `Companies.completeKyb` (which causes the
 * COMPANY_VERIFICATION_STATUS_CHANGED webhook). Due companies are found in the
 * `companies` read model (all partners; sort key = registration instant).
 * Safe with several instances: the verdict is a pure function of the name and
 * `completeKyb` is idempotent (a racing loser gets a version conflict or
 * changes nothing).
 */
import { Companies, Ids } from "@partnerpay/domain"
import { Clock, Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { worker } from "./Polling.ts"

/** The sandbox verdict for a company name. */
export const verdictFor = (name: string): "Verified" | "Rejected" =>
  name.toLowerCase().includes("reject") ? "Rejected" : "Verified"

export const layer = (options: { readonly delayMillis: number }) =>
  worker(
    "sandbox-kyb",
    Math.min(1000, Math.max(100, Math.floor(options.delayMillis / 4))),
    Effect.gen(function* () {
      const sql = yield* SqlClient
      const cutoff = new Date((yield* Clock.currentTimeMillis) - options.delayMillis).toISOString()
      const due = yield* sql<{ id: string; name: string }>`
        SELECT id, data ->> 'name' AS name FROM read_models
        WHERE collection = 'companies' AND data ->> 'status' = 'Unverified' AND sort_key <= ${cutoff}
        ORDER BY sort_key LIMIT 50`
      let done = 0
      for (const company of due) {
        const outcome = verdictFor(company.name ?? "")
        yield* Companies.completeKyb(
          Ids.CompanyId.make(company.id),
          outcome,
          ...(outcome === "Rejected" ? ['sandbox: the company name contains "reject"'] : []),
        ).pipe(
          Effect.tap(({ changed }) => {
            done++
            return changed ? Effect.logInfo("sandbox KYB completed", { companyId: company.id, outcome }) : Effect.void
          }),
          Effect.catch((error) =>
            Effect.logWarning("sandbox KYB could not complete", { companyId: company.id, error: error._tag }),
          ),
        )
      }
      // Failures are not counted: a step that only failed waits before retrying.
      return done
    }),
  )
