/**
 * Probes for load balancers and orchestrators, unauthenticated (they carry
 * no data): `GET /livez` answers 200 while the process serves HTTP at all;
 * `GET /readyz` answers 200 when the service can do its work, else 503 with
 * the failing checks:
 *
 * - `database`: the database answers within 2 s;
 * - `migrations`: every migration this build knows is applied;
 * - `workers`: every background worker started and none has stopped;
 * - `sessions`: no session of the service (application names `partnerpay`,
 *   `partnerpay-workers`) has waited on a lock, or sat idle inside a
 *   transaction, for longer than the lock timeout (a stuck pool: issue 34).
 *
 * The interface's `GET /HealthCheck/Get` (bearer token) is unchanged.
 * Workers report to the `Workers` registry (`workers/Polling.ts`).
 */
import { Migrations } from "@partnerpay/adapters-pg"
import { Context, Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql/SqlClient"

/** The background workers of this process and whether each is running. */
export class WorkerRegistry {
  readonly running = new Map<string, boolean>()
  /** Names of the workers expected to run; a worker that never started is not ready. */
  readonly expected: ReadonlyArray<string>
  constructor(expected: ReadonlyArray<string> = []) {
    this.expected = expected
  }
  started(name: string): void {
    this.running.set(name, true)
  }
  stopped(name: string): void {
    this.running.set(name, false)
  }
  /** Workers not running (stopped, or expected and never started). */
  notRunning(): Array<string> {
    const names = new Set([...this.expected, ...this.running.keys()])
    return [...names].filter((name) => this.running.get(name) !== true)
  }
}

/** The registry workers report to (none outside the service: workers in tests report nowhere). */
export const Workers = Context.Reference<WorkerRegistry | undefined>("partnerpay/app/Workers", {
  defaultValue: () => undefined,
})

export interface ReadinessReport {
  readonly ready: boolean
  readonly checks: {
    readonly database: string
    readonly migrations: string
    readonly workers: string
    readonly sessions: string
  }
}

interface StuckRow {
  readonly application_name: string
  readonly state: string
  readonly millis: number
}

/**
 * "ok", or the service's sessions stuck longer than the lock timeout (waiting on a lock, or idle in a
 * transaction), as `partnerpay-workers idle in transaction for 9.8 s`.
 */
export const sessionsCheck: Effect.Effect<string, never, SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient
  const rows = yield* sql<StuckRow>`
    SELECT application_name, state, (extract(epoch FROM now() - state_change) * 1000)::int AS millis
    FROM pg_stat_activity
    WHERE datname = current_database() AND pid <> pg_backend_pid()
      AND application_name IN ('partnerpay', 'partnerpay-workers')
      AND ((state = 'active' AND wait_event_type = 'Lock') OR state LIKE 'idle in transaction%')
      AND now() - state_change > make_interval(secs => greatest(
        coalesce(nullif((SELECT setting::int FROM pg_settings WHERE name = 'lock_timeout'), 0), 2000), 100) / 1000.0)
    ORDER BY state_change LIMIT 5`
  if (rows.length === 0) return "ok"
  const describe = (row: StuckRow) =>
    `${row.application_name} ${row.state === "active" ? "waiting on a lock" : row.state} for ${(row.millis / 1000).toFixed(1)} s`
  return `stuck: ${rows.map(describe).join("; ")}`
}).pipe(
  Effect.timeoutOrElse({ duration: "2 seconds", orElse: () => Effect.succeed("unknown (did not answer within 2 s)") }),
  Effect.catchCause(() => Effect.succeed("unknown (database unreachable)")),
)

/** "ok" when the database has applied exactly the build's migrations, else what differs. */
export const migrationsCheck = (applied: ReadonlySet<string>): string => {
  const pending = Migrations.missing(applied).map(
    (migration) => `${String(migration.id).padStart(4, "0")}_${migration.name}`,
  )
  const unknown = Migrations.unknown(applied)
  if (pending.length === 0 && unknown.length === 0) return "ok"
  return [
    ...(pending.length === 0 ? [] : [`pending: ${pending.join(", ")}`]),
    ...(unknown.length === 0 ? [] : [`unknown to this build: ${unknown.join(", ")}`]),
  ].join("; ")
}

/** Runs the four checks (never fails: a failed check is reported). */
export const check: Effect.Effect<ReadinessReport, never, SqlClient> = Effect.gen(function* () {
  const registry = yield* Workers
  const applied = yield* Migrations.appliedKeys().pipe(
    Effect.map((keys) => ({ _tag: "Answered" as const, keys })),
    Effect.timeoutOrElse({
      duration: "2 seconds",
      orElse: () => Effect.succeed({ _tag: "Failed" as const, reason: "did not answer within 2 s" }),
    }),
    Effect.catchCause((cause) =>
      Effect.succeed({ _tag: "Failed" as const, reason: `unreachable: ${String(cause).split("\n")[0]}` }),
    ),
  )
  const database = applied._tag === "Answered" ? "ok" : applied.reason
  const migrations = applied._tag !== "Answered" ? "unknown (database unreachable)" : migrationsCheck(applied.keys)
  const notRunning = registry === undefined ? ["(no worker registry)"] : registry.notRunning()
  const workers = notRunning.length === 0 ? "ok" : `not running: ${notRunning.join(", ")}`
  const sessions = database === "ok" ? yield* sessionsCheck : "unknown (database unreachable)"
  return {
    ready: database === "ok" && migrations === "ok" && workers === "ok" && sessions === "ok",
    checks: { database, migrations, workers, sessions },
  }
})

const live = HttpServerResponse.jsonUnsafe({ status: "live" })

/** `GET /livez` and `GET /readyz`. */
export const routes: Layer.Layer<never, never, HttpRouter.HttpRouter | SqlClient> = HttpRouter.use(
  Effect.fnUntraced(function* (router) {
    const sql = yield* SqlClient
    const registry = yield* Workers
    yield* router.add("GET", "/livez", Effect.succeed(live))
    yield* router.add(
      "GET",
      "/readyz",
      check.pipe(
        Effect.provideService(SqlClient, sql),
        Effect.provideService(Workers, registry),
        Effect.map((report) =>
          HttpServerResponse.jsonUnsafe(
            { status: report.ready ? "ready" : "not ready", checks: report.checks },
            { status: report.ready ? 200 : 503 },
          ),
        ),
      ),
    )
  }),
)

/** Provides a fresh registry expecting `names`. */
export const layerWorkers = (names: ReadonlyArray<string>): Layer.Layer<never> =>
  Layer.succeed(Workers, new WorkerRegistry(names)) as Layer.Layer<never>
