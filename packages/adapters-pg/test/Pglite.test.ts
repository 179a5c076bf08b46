/**
 * PGlite through the @effect/sql-pg client: the EventStore contract on an
 * in-memory instance, and the bridge's guarantees on a persisted one
 * (transactions of concurrent fibers never interleave; data survives a reopen).
 */

import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { EventStore, ExpectedVersion } from "@partnerpay/domain"
import { eventStoreContract } from "@partnerpay/domain/testing"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as PgDatabase from "../src/PgDatabase.ts"
import { pgliteStore, storeOn } from "./support.ts"

eventStoreContract("PGlite (in memory)", pgliteStore(), { describe, it, beforeAll, afterAll }, { timeout: 60_000 })

describe("PGlite persisted in a data directory", () => {
  let dataDir = ""
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), "partnerpay-pglite-"))
  })
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  it("concurrent fibers each running a multi-statement transaction never interleave", { timeout: 60_000 }, () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient
        yield* sql`CREATE TABLE tx_log (fiber int NOT NULL, step int NOT NULL, seq bigint GENERATED ALWAYS AS IDENTITY)`
        // Each transaction writes 5 rows with yields between statements; if another
        // fiber's statements ran inside it, the rows would interleave by seq.
        // Odd fibers roll back, so a leak of a rolled-back statement would show too.
        yield* Effect.forEach(
          Array.from({ length: 16 }, (_, fiber) => fiber),
          (fiber) =>
            sql
              .withTransaction(
                Effect.gen(function* () {
                  for (let step = 0; step < 5; step++) {
                    yield* sql`INSERT INTO tx_log (fiber, step) VALUES (${fiber}, ${step})`
                    yield* Effect.yieldNow
                  }
                  if (fiber % 2 === 1) return yield* Effect.fail("rollback")
                }),
              )
              .pipe(Effect.ignore),
          { concurrency: "unbounded" },
        )
        const rows = yield* sql<{ fiber: number; step: number }>`SELECT fiber, step FROM tx_log ORDER BY seq`
        assert.strictEqual(rows.length, 8 * 5)
        for (let i = 0; i < rows.length; i += 5) {
          const block = rows.slice(i, i + 5)
          assert.deepStrictEqual(
            block.map((row) => row.step),
            [0, 1, 2, 3, 4],
          )
          assert.isTrue(block.every((row) => row.fiber === block[0]?.fiber && row.fiber % 2 === 0))
        }
      }).pipe(Effect.provide(PgDatabase.layerPglite({ dataDir }))),
    ),
  )

  it("keeps appended events across a close and reopen", { timeout: 60_000 }, () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const streamId = `Persisted-${crypto.randomUUID()}`
        const event = {
          eventId: crypto.randomUUID(),
          eventType: "Noted",
          schemaVersion: 1,
          data: { n: 1 },
          metadata: {},
        }
        yield* Effect.flatMap(EventStore, (store) =>
          store.append(streamId, "Persisted", ExpectedVersion.noStream, [event]),
        ).pipe(Effect.provide(Layer.fresh(storeOn(PgDatabase.layerPglite({ dataDir })))))
        const read = yield* Effect.flatMap(EventStore, (store) => store.readStream(streamId)).pipe(
          Effect.provide(Layer.fresh(storeOn(PgDatabase.layerPglite({ dataDir })))),
        )
        assert.deepStrictEqual(
          read.map((e) => e.eventId),
          [event.eventId],
        )
      }),
    ),
  )
})
