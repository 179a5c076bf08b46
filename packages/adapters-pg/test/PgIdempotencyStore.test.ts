/**
 * The PostgreSQL IdempotencyStore passes the store contract on PGlite and,
 * when a server is reachable (always with CI=true, see support.ts), on
 * PostgreSQL; plus the purge of expired rows.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { IdempotencyStore } from "@partnerpay/domain"
import { IdempotencyStoreContract } from "@partnerpay/domain/testing"
import { DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../src/Migrations.ts"
import * as PgDatabase from "../src/PgDatabase.ts"
import * as PgIdempotencyStore from "../src/PgIdempotencyStore.ts"
import * as PgServiceInstance from "../src/PgServiceInstance.ts"
import { postgresAvailable, postgresDatabase } from "./support.ts"

const storeOn = <E>(database: Layer.Layer<SqlClient, E>, options: PgIdempotencyStore.Options = {}) =>
  PgIdempotencyStore.layer(options).pipe(
    Layer.provideMerge(PgServiceInstance.layer()),
    Layer.provideMerge(Migrations.layer),
    Layer.provideMerge(database),
  )

const runner = { describe, it, beforeAll, afterAll }

IdempotencyStoreContract.idempotencyStoreContract("PGlite", storeOn(PgDatabase.layerPglite()), runner, {
  timeout: 60_000,
})

if (postgresAvailable) {
  IdempotencyStoreContract.idempotencyStoreContract("PostgreSQL", storeOn(postgresDatabase()), runner, {
    timeout: 60_000,
  })
}

describe("PgIdempotencyStore purge", () => {
  it.effect(
    "begin deletes expired rows of every scope (at most once per interval)",
    () =>
      Effect.gen(function* () {
        const store = yield* IdempotencyStore.IdempotencyStore
        const sql = yield* SqlClient
        const t0 = DateTime.makeUnsafe("2030-01-01T00:00:00Z")
        const begun = yield* store.begin("partner:a", "old", "h", t0)
        assert.strictEqual(begun._tag, "Started")
        if (begun._tag !== "Started") return
        yield* store.complete("partner:a", "old", begun.claim, {
          status: 200,
          contentType: undefined,
          body: new Uint8Array(),
        })
        const later = DateTime.makeUnsafe(DateTime.toEpochMillis(t0) + 25 * 60 * 60 * 1000)
        yield* store.begin("partner:b", "new", "h", later)
        const rows = yield* sql<{ scope: string; key: string }>`SELECT scope, key FROM idempotency_keys ORDER BY scope`
        assert.deepStrictEqual(
          rows.map((r) => `${r.scope}/${r.key}`),
          ["partner:b/new"],
        )
      }).pipe(Effect.provide(storeOn(PgDatabase.layerPglite(), { purgeEveryMillis: 0 }))),
    60_000,
  )
})
