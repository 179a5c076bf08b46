/**
 * Schema changes cannot be skipped: every migration of the code is applied to
 * a database that lacks it, whatever its id (a migration merged below the
 * highest applied id is applied, not skipped as Effect's migrator would), a
 * database that applied a migration the code does not know is refused, and
 * the code's migrations have unique ids, each in a file named after its key.
 * On PGlite and PostgreSQL (fresh schema).
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../src/Migrations.ts"
import { databases } from "./readSideSupport.ts"

const key = (m: { readonly id: number; readonly name: string }) => `${String(m.id).padStart(4, "0")}_${m.name}`

describe("the code's migrations", () => {
  it("have unique ids (two branches adding the same id collide here, not on a deployed database)", () => {
    const ids = Migrations.known.map((m) => m.id)
    assert.strictEqual(new Set(ids).size, ids.length)
  })

  it("each live in src/migrations/<key>.ts and every file there is listed", () => {
    const folder = join(import.meta.dirname, "..", "src", "migrations")
    const files = readdirSync(folder).filter((file) => file.endsWith(".ts"))
    assert.deepStrictEqual(files.map((file) => file.replace(/\.ts$/, "")).sort(), Migrations.known.map(key).sort())
    const source = readFileSync(join(import.meta.dirname, "..", "src", "Migrations.ts"), "utf8")
    for (const migration of Migrations.known)
      assert.include(source, `"${key(migration)}": `, `${key(migration)} listed under its own key`)
  })
})

for (const database of databases) {
  describe(`migrations on ${database.name}`, () => {
    it.effect(
      "a migration missing below the highest applied id is applied, and only it",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient
          const first = yield* Migrations.run
          assert.deepStrictEqual(
            first.map(([id]) => id),
            Migrations.known.map((m) => m.id),
          )
          // A deployed database that never got 0016 (merged after 0017 was applied there).
          yield* sql`DROP INDEX read_models_unverified_companies`
          yield* sql`DROP INDEX read_models_pending_transfers`
          yield* sql`DELETE FROM partnerpay_migrations WHERE migration_id = 16`
          const second = yield* Migrations.run
          assert.deepStrictEqual(second, [[16, "due_work_indexes"]])
          const indexes = yield* sql<{ indexname: string }>`
            SELECT indexname FROM pg_indexes WHERE indexname LIKE 'read_models_%' ORDER BY indexname`
          assert.includeMembers(
            indexes.map((row) => row.indexname),
            ["read_models_pending_transfers", "read_models_unverified_companies"],
          )
          assert.deepStrictEqual(yield* Migrations.run, [])
        }).pipe(Effect.provide(database.layer())),
      60_000,
    )

    it.effect(
      "0043 files the rows written before it under their partner (from the events, the scope, the subject)",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient
          yield* Migrations.run
          // A database as 0043 found it: no partner_id columns yet.
          for (const table of [
            "streams",
            "events",
            "snapshots",
            "idempotency_keys",
            "personal_data_keys",
            "token_generations",
          ]) {
            yield* sql`ALTER TABLE ${sql(table)} DROP COLUMN partner_id`
          }
          yield* sql`DELETE FROM partnerpay_migrations WHERE migration_id = 43`
          const partner = "11111111-1111-4111-8111-111111111111"
          const other = "22222222-2222-4222-8222-222222222222"
          yield* sql`INSERT INTO streams (stream_id, stream_type, version) VALUES
            ('Company-c1', 'Company', 2), ('Customer-r1', 'Customer', 1), ('Payment-p1', 'Payment', 1)`
          yield* sql`INSERT INTO events (stream_id, stream_type, stream_version, event_id, event_type, schema_version,
              data, metadata) VALUES
            ('Company-c1', 'Company', 1, gen_random_uuid(), 'CompanyRegistered', 1, '{}', ${JSON.stringify({ partnerId: partner })}::jsonb),
            ('Company-c1', 'Company', 2, gen_random_uuid(), 'CompanyVerified', 1, '{}', '{}'),
            ('Customer-r1', 'Customer', 1, gen_random_uuid(), 'CustomerRegistered', 1, ${JSON.stringify({ partnerId: other })}::jsonb, '{}'),
            ('Payment-p1', 'Payment', 1, gen_random_uuid(), 'PaymentCreated', 1, '{}', '{}')`
          yield* sql`INSERT INTO read_models (collection, id, partner_id, keys, sort_key, data, revision)
            VALUES ('payments', 'p1', ${partner}, '{}', '', '{}', 1)`
          yield* sql`INSERT INTO snapshots (stream_id, stream_version, schema_version, state)
            VALUES ('Company-c1', 2, 1, '{}')`
          yield* sql`INSERT INTO idempotency_keys (scope, key, request_hash, started_at, expires_at)
            VALUES (${`partner:${partner}`}, 'k1', 'h', now(), now()), (${`customer:${other}:r1`}, 'k2', 'h', now(), now())`
          yield* sql`INSERT INTO personal_data_keys (subject, wrapped_key, master_key_id)
            VALUES (${`partner-webhook:${partner}`}, 'w', 'm'), ('customer:r1', 'w', 'm'), ('company:c1', 'w', 'm')`
          yield* sql`INSERT INTO token_generations (subject, generation) VALUES (${`partner:${partner}`}, 1)`
          assert.deepStrictEqual(yield* Migrations.run, [[43, "partner_columns"]])
          const filed = yield* sql<{ readonly row: string; readonly partner_id: string }>`
            SELECT 'stream ' || stream_id AS row, partner_id FROM streams
            UNION ALL SELECT 'event ' || stream_id || '/' || stream_version, partner_id FROM events
            UNION ALL SELECT 'snapshot ' || stream_id, partner_id FROM snapshots
            UNION ALL SELECT 'key ' || key, partner_id FROM idempotency_keys
            UNION ALL SELECT 'data key ' || subject, partner_id FROM personal_data_keys
            UNION ALL SELECT 'generation ' || subject, partner_id FROM token_generations
            ORDER BY 1`
          assert.deepStrictEqual(
            filed.map((row) => [row.row, row.partner_id]),
            [
              [`data key company:c1`, partner],
              [`data key customer:r1`, other],
              [`data key partner-webhook:${partner}`, partner],
              ["event Company-c1/1", partner],
              ["event Company-c1/2", partner],
              ["event Customer-r1/1", other],
              ["event Payment-p1/1", partner],
              [`generation partner:${partner}`, partner],
              ["key k1", partner],
              ["key k2", other],
              ["snapshot Company-c1", partner],
              ["stream Company-c1", partner],
              ["stream Customer-r1", other],
              ["stream Payment-p1", partner],
            ],
          )
        }).pipe(Effect.provide(database.layer())),
      60_000,
    )

    it.effect(
      "a database that applied a migration the code does not know is refused, naming it",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient
          yield* Migrations.run
          yield* sql`INSERT INTO partnerpay_migrations (migration_id, name) VALUES (9999, 'from_a_newer_build')`
          const exit = yield* Effect.exit(Migrations.run)
          assert.isTrue(Exit.isFailure(exit))
          if (Exit.isFailure(exit)) assert.include(String(exit.cause), "9999_from_a_newer_build")
        }).pipe(Effect.provide(database.layer())),
      60_000,
    )
  })
}
