/**
 * Probes for load balancers and orchestrators, unauthenticated (they carry
 * no data): `GET /livez` answers 200 while the process serves HTTP at all;
 * `GET /readyz` answers 200 when the service can do its work, else 503 with
 * the failing checks:
 *
 * - `database`: the database answers within 2 s;
 * - `migrations`: every migration this build knows is applied;
 * - `workers`: every background worker started and none has stopped.
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
  }
}

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

/** Runs the three checks (never fails: a failed check is reported). */
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
  return {
    ready: database === "ok" && migrations === "ok" && workers === "ok",
    checks: { database, migrations, workers },
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
