/**
 * One instance at a time per item, with no transaction open (issue 34): a
 * worker that handles one item at a time claims it in `work_claims`
 * (`PgWorkClaims.claim`, one statement, committed at once, leased), does its
 * work (its own units of work), then finishes the claim, whatever the outcome
 * (a failure leaves the item due: the next round takes it again). An instance
 * that does not get the claim skips the item this round. An instance that dies
 * holding a claim leaves it to lapse after `leaseMillis`.
 *
 * It replaces the transaction-level advisory locks the schedulers took
 * (`pg_try_advisory_xact_lock` inside `sql.withTransaction`): those kept a
 * transaction of the workers' pool open around the item's whole work, reads
 * through the service's other pool (the personal data vault's keys) included.
 */
import { PgWorkClaims } from "@partnerpay/adapters-pg"
import { Effect } from "effect"

/** How long a claim holds an item when its instance dies (default). */
export const defaultLeaseMillis = 60_000

/** `effect` run under the claim of `id` of `kind`; `undefined` when another instance holds it. */
export const exclusively = <A, E, R>(
  kind: string,
  id: string,
  effect: Effect.Effect<A, E, R>,
  leaseMillis: number = defaultLeaseMillis,
) =>
  Effect.flatMap(PgWorkClaims.claim(kind, id, leaseMillis), (attempt) =>
    attempt === undefined
      ? Effect.succeed(undefined)
      : Effect.ensuring(effect, PgWorkClaims.finish(kind, id).pipe(Effect.ignore)),
  )
