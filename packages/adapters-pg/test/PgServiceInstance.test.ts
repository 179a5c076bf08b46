/**
 * This process in `service_instances`: its heartbeat counts the live
 * instances (what a per-instance limit is divided by), an instance not seen
 * for the liveness window is not counted, and a closed instance removes its
 * row. On PGlite and PostgreSQL.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../src/Migrations.ts"
import * as PgServiceInstance from "../src/PgServiceInstance.ts"
import { databases } from "./readSideSupport.ts"

for (const database of databases) {
  describe(`service instances on ${database.name}`, () => {
    it.live(
      "the live instances are counted by each heartbeat; a dead one is not; a closed one leaves",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient
          const instance = PgServiceInstance.layer({ heartbeatMillis: 50 })
          const count = yield* Effect.scoped(
            Effect.gen(function* () {
              const first = yield* Layer.build(instance)
              // Another live instance, and one killed 6 seconds ago.
              yield* sql`INSERT INTO service_instances (instance_id) VALUES (${crypto.randomUUID()})`
              yield* sql`INSERT INTO service_instances (instance_id, seen_at)
                         VALUES (${crypto.randomUUID()}, now() - interval '6 seconds')`
              yield* Effect.sleep("200 millis")
              return Context.get(first, PgServiceInstance.ServiceInstance).liveInstances()
            }),
          )
          assert.strictEqual(count, 2)
          const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM service_instances`
          assert.strictEqual(rows[0]?.n, 2, "the closed instance removed its row, the others stay")
        }).pipe(Effect.provide(Migrations.layer.pipe(Layer.provideMerge(database.layer())))),
      60_000,
    )
  })
}
