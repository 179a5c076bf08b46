/** GET /readyz's checks: database reachable, every migration applied, every expected worker running. */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { TestClock } from "effect/testing"
import * as Readiness from "../src/Readiness.ts"

/** A stand-in client whose every statement behaves like `statement`. */
const fakeSql = (statement: Effect.Effect<ReadonlyArray<unknown>, Error>) =>
  Layer.succeed(SqlClient, (() => statement) as unknown as SqlClient)

const applied = (latest: number | null) => fakeSql(Effect.succeed([{ latest }]))

const runningRegistry = () => {
  const registry = new Readiness.WorkerRegistry(["dispatcher", "scheduler"])
  registry.started("dispatcher")
  registry.started("scheduler")
  return registry
}

const checkWith = (sql: Layer.Layer<SqlClient>, registry: Readiness.WorkerRegistry | undefined) =>
  Readiness.check.pipe(Effect.provide(sql), Effect.provideService(Readiness.Workers, registry))

describe("readiness", () => {
  it.effect("is ready when the database answers, migrations are applied and workers run", () =>
    Effect.gen(function* () {
      const report = yield* checkWith(applied(Readiness.latestMigration), runningRegistry())
      assert.deepStrictEqual(report, {
        ready: true,
        checks: { database: "ok", migrations: "ok", workers: "ok" },
      })
    }),
  )

  it.effect("is not ready when the database fails", () =>
    Effect.gen(function* () {
      const report = yield* checkWith(fakeSql(Effect.fail(new Error("connection refused"))), runningRegistry())
      assert.isFalse(report.ready)
      assert.include(report.checks.database, "unreachable")
      assert.strictEqual(report.checks.migrations, "unknown (database unreachable)")
    }),
  )

  it.effect("is not ready when the database does not answer within 2 s", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(checkWith(fakeSql(Effect.never), runningRegistry()))
      yield* TestClock.adjust("2 seconds")
      const report = yield* Fiber.join(fiber)
      assert.isFalse(report.ready)
      assert.strictEqual(report.checks.database, "did not answer within 2 s")
    }),
  )

  it.effect("is not ready while a migration is pending", () =>
    Effect.gen(function* () {
      const report = yield* checkWith(applied(Readiness.latestMigration - 1), runningRegistry())
      assert.isFalse(report.ready)
      assert.strictEqual(
        report.checks.migrations,
        `pending: ${Readiness.latestMigration - 1} of ${Readiness.latestMigration} applied`,
      )
      const none = yield* checkWith(applied(null), runningRegistry())
      assert.strictEqual(none.checks.migrations, `pending: 0 of ${Readiness.latestMigration} applied`)
    }),
  )

  it.effect("is not ready when an expected worker never started or has stopped", () =>
    Effect.gen(function* () {
      const registry = new Readiness.WorkerRegistry(["dispatcher", "scheduler"])
      registry.started("dispatcher")
      const report = yield* checkWith(applied(Readiness.latestMigration), registry)
      assert.isFalse(report.ready)
      assert.strictEqual(report.checks.workers, "not running: scheduler")
      registry.started("scheduler")
      registry.stopped("dispatcher")
      const later = yield* checkWith(applied(Readiness.latestMigration), registry)
      assert.strictEqual(later.checks.workers, "not running: dispatcher")
    }),
  )
})
