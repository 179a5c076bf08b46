/** GET /HealthCheck/Get's check: `SELECT 1` on the database, Unhealthy (-> 503) when it fails or hangs. */
import { assert, describe, it } from "@effect/vitest"
import { HealthCheck } from "@partnerpay/adapters-http"
import { Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { TestClock } from "effect/testing"
import * as Database from "../src/database/Database.ts"

/** A stand-in client whose every statement behaves like `statement`. */
const fakeSql = (statement: Effect.Effect<ReadonlyArray<unknown>, Error>) =>
  Layer.succeed(SqlClient, (() => statement) as unknown as SqlClient)

const check = Effect.flatMap(HealthCheck.HealthCheck, (health) => health.check)

describe("the health check", () => {
  it.effect("is healthy when the database answers", () =>
    Effect.gen(function* () {
      yield* check
    }).pipe(Effect.provide(Database.healthCheck.pipe(Layer.provide(fakeSql(Effect.succeed([{ "?column?": 1 }])))))),
  )

  it.effect("is Unhealthy when the query fails", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(check)
      assert.strictEqual(error._tag, "Unhealthy")
      assert.include(error.reason, "database unreachable")
    }).pipe(
      Effect.provide(Database.healthCheck.pipe(Layer.provide(fakeSql(Effect.fail(new Error("connection refused")))))),
    ),
  )

  it.effect("is Unhealthy when the database does not answer within 2 s", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(Effect.flip(check))
      yield* TestClock.adjust("2 seconds")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error.reason, "database did not answer within 2 s")
    }).pipe(Effect.provide(Database.healthCheck.pipe(Layer.provide(fakeSql(Effect.never))))),
  )
})
