/**
 * Claims and backoff of per-item provider work (migration 37's `work_claims`),
 * shared by every instance on the database:
 *
 * - `claim(kind, id, leaseMillis)`: takes the item when no instance holds it
 *   and its backoff is over (`not_before <= now()`), counting the attempt and
 *   holding it for the lease; `undefined` when another instance holds it or it
 *   is backing off. One statement (an upsert guarded by `not_before`), so of
 *   two instances racing for an item exactly one gets it.
 * - `deferUntil(kind, id, millis, error?)`: the item may be taken again in
 *   `millis` (the backoff after a failure, or the next poll's interval).
 * - `finish(kind, id)`: the item is done (its row deleted).
 * - `backoffMillis(attempts, base, max)`: the exponential backoff after
 *   `attempts` failures (`base * 2^(attempts-1)`, at most `max`).
 *
 * Times are the database's (`now()`), never an instance's clock.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

/** Takes `id` of `kind` for `leaseMillis`: its attempt number, or undefined when it cannot be taken now. */
export const claim = (kind: string, id: string, leaseMillis: number) =>
  Effect.flatMap(SqlClient, (sql) =>
    sql<{ readonly attempts: number }>`
      INSERT INTO work_claims (kind, id, attempts, not_before)
      VALUES (${kind}, ${id}, 1, now() + make_interval(secs => ${leaseMillis / 1000}))
      ON CONFLICT (kind, id) DO UPDATE
        SET attempts = work_claims.attempts + 1, not_before = EXCLUDED.not_before
        WHERE work_claims.not_before <= now()
      RETURNING attempts`.pipe(Effect.map((rows) => rows[0]?.attempts)),
  )

/** `id` of `kind` may be taken again in `millis` (`error`: why, for the operator; never personal data). */
export const deferUntil = (kind: string, id: string, millis: number, error?: string) =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql`
      UPDATE work_claims SET not_before = now() + make_interval(secs => ${millis / 1000}),
        last_error = ${error ?? null}
      WHERE kind = ${kind} AND id = ${id}`,
  ).pipe(Effect.asVoid)

/** `id` of `kind` succeeded: its next claim starts counting attempts from one. */
export const resetAttempts = (kind: string, id: string) =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql`UPDATE work_claims SET attempts = 0, last_error = NULL WHERE kind = ${kind} AND id = ${id}`,
  ).pipe(Effect.asVoid)

/** `id` of `kind` is done. */
export const finish = (kind: string, id: string) =>
  Effect.flatMap(SqlClient, (sql) => sql`DELETE FROM work_claims WHERE kind = ${kind} AND id = ${id}`).pipe(
    Effect.asVoid,
  )

/** The backoff after `attempts` failed attempts: `base * 2^(attempts-1)`, at most `max`. */
export const backoffMillis = (attempts: number, base: number, max: number): number =>
  Math.min(max, base * 2 ** Math.max(0, Math.min(30, attempts - 1)))

/** A company due for KYB work. */
export interface KybCompany {
  readonly id: string
  readonly partner_id: string
  readonly submission_id: string | null
}

/**
 * Up to `limit` Unverified companies (every partner), oldest first, whose `kind` work is not held nor
 * backing off: those without a KYB submission (`submitted` false) or with one (`submitted` true).
 */
export const dueKybCompanies = (kind: string, submitted: boolean, limit: number) =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql<KybCompany>`
      SELECT r.id, r.partner_id::text AS partner_id, r.data ->> 'kybSubmissionId' AS submission_id
      FROM read_models r
      LEFT JOIN work_claims w ON w.kind = ${kind} AND w.id = r.id
      WHERE r.collection = 'companies' AND r.data ->> 'status' = 'Unverified'
        AND (r.data ->> 'kybSubmissionId' IS NOT NULL) = ${submitted}
        AND (w.id IS NULL OR w.not_before <= now())
      ORDER BY r.sort_key, r.id LIMIT ${limit}`,
  )

/** The company whose KYB submission is `submissionId` (the provider's reference), if any. */
export const companyOfKybSubmission = (submissionId: string) =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql<{ readonly id: string; readonly partner_id: string }>`
      SELECT id, partner_id::text AS partner_id FROM read_models
      WHERE collection = 'companies' AND data ->> 'kybSubmissionId' = ${submissionId}
      LIMIT 1`,
  ).pipe(Effect.map((rows) => rows[0]))
