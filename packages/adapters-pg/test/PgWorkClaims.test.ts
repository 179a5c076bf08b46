/**
 * The claims and backoff of per-item provider work (migration 37) on PGlite
 * and PostgreSQL: an item is taken by one claimant until its lease or backoff
 * ends, attempts are counted across claims (a restart keeps them: they are
 * rows), a finished item starts over; the KYB worker's due companies leave out
 * those held or backing off; a provider notification finds its company by the
 * KYB submission; a provider's notification id is recorded once.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../src/Migrations.ts"
import * as PgProviderCallbacks from "../src/PgProviderCallbacks.ts"
import * as PgWorkClaims from "../src/PgWorkClaims.ts"
import { databases } from "./readSideSupport.ts"

const partner = "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b"

const company = (id: string, sortKey: string, status: string, kybSubmissionId?: string) =>
  Effect.flatMap(SqlClient, (sql) => {
    const data = { companyId: id, status, ...(kybSubmissionId === undefined ? {} : { kybSubmissionId }) }
    return sql`
      INSERT INTO read_models (collection, id, partner_id, keys, sort_key, data, revision)
      VALUES ('companies', ${id}, ${partner}::uuid, '{}'::jsonb, ${sortKey}, ${JSON.stringify(data)}::jsonb, 1)`
  })

const reset = Effect.flatMap(SqlClient, (sql) =>
  sql`DELETE FROM read_models`.pipe(
    Effect.andThen(sql`DELETE FROM work_claims`),
    Effect.andThen(sql`DELETE FROM provider_notifications`),
  ),
)

describe("the exponential backoff", () => {
  it("doubles from the base after each failed attempt, up to the maximum", () => {
    assert.deepStrictEqual(
      [1, 2, 3, 4, 10, 100].map((attempts) => PgWorkClaims.backoffMillis(attempts, 5_000, 60_000)),
      [5_000, 10_000, 20_000, 40_000, 60_000, 60_000],
    )
  })
})

for (const database of databases) {
  describe(`work claims on ${database.name}`, () => {
    const layer = Migrations.layer.pipe(Layer.provideMerge(database.layer()))

    it.layer(layer, { timeout: 120_000 })((it) => {
      it.effect("an item is taken once until its lease ends; attempts are counted; a finished item starts over", () =>
        Effect.gen(function* () {
          yield* reset
          assert.strictEqual(yield* PgWorkClaims.claim("kyb-submit", "c-1", 60_000), 1)
          // Held: no other claimant (another instance, or this one after a restart) takes it.
          assert.strictEqual(yield* PgWorkClaims.claim("kyb-submit", "c-1", 60_000), undefined)
          // Another kind or another item is independent.
          assert.strictEqual(yield* PgWorkClaims.claim("kyb-poll", "c-1", 60_000), 1)
          // The attempt failed: backing off; once the backoff is over the next claim is attempt 2.
          yield* PgWorkClaims.deferUntil("kyb-submit", "c-1", 60_000, "ProviderUnavailable")
          assert.strictEqual(yield* PgWorkClaims.claim("kyb-submit", "c-1", 60_000), undefined)
          yield* PgWorkClaims.deferUntil("kyb-submit", "c-1", 0)
          assert.strictEqual(yield* PgWorkClaims.claim("kyb-submit", "c-1", 60_000), 2)
          yield* PgWorkClaims.finish("kyb-submit", "c-1")
          assert.strictEqual(yield* PgWorkClaims.claim("kyb-submit", "c-1", 60_000), 1)
        }),
      )

      it.effect("of concurrent claimants of one item exactly one gets it", () =>
        Effect.gen(function* () {
          yield* reset
          const claims = yield* Effect.forEach(
            Array.from({ length: 8 }, () => PgWorkClaims.claim("kyb-submit", "c-race", 60_000)),
            (claim) => claim,
            { concurrency: "unbounded" },
          )
          assert.strictEqual(claims.filter((attempts) => attempts !== undefined).length, 1)
        }),
      )

      it.effect("due companies: Unverified, submitted or not as asked, not held nor backing off, oldest first", () =>
        Effect.gen(function* () {
          yield* reset
          yield* company("new-2", "2026-03-02T00:00:00.000Z", "Unverified")
          yield* company("new-1", "2026-03-01T00:00:00.000Z", "Unverified")
          yield* company("held", "2026-03-01T00:00:00.000Z", "Unverified")
          yield* company("submitted", "2026-03-01T00:00:00.000Z", "Unverified", "customer-1")
          yield* company("verified", "2026-03-01T00:00:00.000Z", "Verified", "customer-2")
          yield* PgWorkClaims.claim("kyb-submit", "held", 60_000)
          const unsubmitted = yield* PgWorkClaims.dueKybCompanies("kyb-submit", false, 10)
          assert.deepStrictEqual(
            unsubmitted.map((row) => row.id),
            ["new-1", "new-2"],
          )
          const submitted = yield* PgWorkClaims.dueKybCompanies("kyb-poll", true, 10)
          assert.deepStrictEqual(
            submitted.map((row) => [row.id, row.submission_id]),
            [["submitted", "customer-1"]],
          )
          assert.strictEqual((yield* PgWorkClaims.companyOfKybSubmission("customer-2"))?.id, "verified")
          assert.strictEqual(yield* PgWorkClaims.companyOfKybSubmission("nobody"), undefined)
        }),
      )

      it.effect("a provider's notification is recorded once by its event id", () =>
        Effect.gen(function* () {
          yield* reset
          assert.isFalse(yield* PgProviderCallbacks.seen("Dwolla", "event-1"))
          assert.isTrue(yield* PgProviderCallbacks.record("Dwolla", "event-1", "customer_verified", "customer-1"))
          assert.isTrue(yield* PgProviderCallbacks.seen("Dwolla", "event-1"))
          assert.isFalse(yield* PgProviderCallbacks.record("Dwolla", "event-1", "customer_verified", "customer-1"))
          assert.isFalse(yield* PgProviderCallbacks.seen("Plaid", "event-1"))
        }),
      )
    })
  })
}
