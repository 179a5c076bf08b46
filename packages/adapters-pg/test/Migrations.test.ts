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
