/**
 * GET /readyz's checks: database reachable, every migration applied, every expected worker running,
 * no session of the service stuck.
 */
import { assert, describe, it } from "@effect/vitest"
import { Migrations } from "@partnerpay/adapters-pg"
import { Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { TestClock } from "effect/testing"
import * as Readiness from "../src/http/Readiness.ts"

/** A stand-in client whose statements answer `answer(text)` (identifiers such as `sql(table)` pass). */
const fakeSql = (answer: (text: string) => Effect.Effect<ReadonlyArray<unknown>, Error>) =>
  Layer.succeed(SqlClient, ((strings: unknown) =>
    Array.isArray(strings) ? answer(strings.join("?")) : strings) as unknown as SqlClient)

const failing = (statement: Effect.Effect<ReadonlyArray<unknown>, Error>) => fakeSql(() => statement)

/**
 * A database that applied these migrations (`undefined`: no migrations table yet), whose
 * pg_stat_activity shows `stuck` sessions of the service.
 */
const applied = (migrations: ReadonlyArray<Migrations.Known> | undefined, stuck: ReadonlyArray<unknown> = []) =>
  fakeSql((text) =>
    text.includes("pg_stat_activity")
      ? Effect.succeed(stuck)
      : text.includes("to_regclass")
        ? Effect.succeed([{ exists: migrations !== undefined }])
        : Effect.succeed((migrations ?? []).map((m) => ({ migration_id: m.id, name: m.name }))),
  )

const all = Migrations.known
const key = (m: Migrations.Known) => `${String(m.id).padStart(4, "0")}_${m.name}`

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
      const report = yield* checkWith(applied(all), runningRegistry())
      assert.deepStrictEqual(report, {
        ready: true,
        checks: { database: "ok", migrations: "ok", workers: "ok", sessions: "ok" },
      })
    }),
  )

  it.effect("is not ready while a session of the service is stuck longer than the lock timeout (a stuck pool)", () =>
    Effect.gen(function* () {
      const report = yield* checkWith(
        applied(all, [
          { application_name: "partnerpay-workers", state: "idle in transaction", millis: 9_812 },
          { application_name: "partnerpay", state: "active", millis: 9_790 },
        ]),
        runningRegistry(),
      )
      assert.isFalse(report.ready)
      assert.strictEqual(
        report.checks.sessions,
        "stuck: partnerpay-workers idle in transaction for 9.8 s; partnerpay waiting on a lock for 9.8 s",
      )
    }),
  )

  it.effect("is not ready when the database fails", () =>
    Effect.gen(function* () {
      const report = yield* checkWith(failing(Effect.fail(new Error("connection refused"))), runningRegistry())
      assert.isFalse(report.ready)
      assert.include(report.checks.database, "unreachable")
      assert.strictEqual(report.checks.migrations, "unknown (database unreachable)")
    }),
  )

  it.effect("is not ready when the database does not answer within 2 s", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(checkWith(failing(Effect.never), runningRegistry()))
      yield* TestClock.adjust("2 seconds")
      const report = yield* Fiber.join(fiber)
      assert.isFalse(report.ready)
      assert.strictEqual(report.checks.database, "did not answer within 2 s")
    }),
  )

  it.effect("is not ready while a migration is pending, the latest or one below the highest applied", () =>
    Effect.gen(function* () {
      const latest = all[all.length - 1]!
      const report = yield* checkWith(applied(all.slice(0, -1)), runningRegistry())
      assert.isFalse(report.ready)
      assert.strictEqual(report.checks.migrations, `pending: ${key(latest)}`)
      const gap = all[1]!
      const withGap = yield* checkWith(applied(all.filter((m) => m !== gap)), runningRegistry())
      assert.strictEqual(withGap.checks.migrations, `pending: ${key(gap)}`)
      const none = yield* checkWith(applied(undefined), runningRegistry())
      assert.strictEqual(none.checks.migrations, `pending: ${all.map(key).join(", ")}`)
    }),
  )

  it.effect("is not ready when the database applied a migration this build does not know", () =>
    Effect.gen(function* () {
      const report = yield* checkWith(
        applied([...all, { id: 9999, name: "from_a_newer_build", apply: Effect.void }]),
        runningRegistry(),
      )
      assert.isFalse(report.ready)
      assert.strictEqual(report.checks.migrations, "unknown to this build: 9999_from_a_newer_build")
    }),
  )

  it.effect("is not ready when an expected worker never started or has stopped", () =>
    Effect.gen(function* () {
      const registry = new Readiness.WorkerRegistry(["dispatcher", "scheduler"])
      registry.started("dispatcher")
      const report = yield* checkWith(applied(all), registry)
      assert.isFalse(report.ready)
      assert.strictEqual(report.checks.workers, "not running: scheduler")
      registry.started("scheduler")
      registry.stopped("dispatcher")
      const later = yield* checkWith(applied(all), registry)
      assert.strictEqual(later.checks.workers, "not running: dispatcher")
    }),
  )
})
