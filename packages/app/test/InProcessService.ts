/**
 * Test support: the whole service (`Service.makeLayer`) run in-process.
 * - `run`: on a given configuration, with the test's logging (`AuthorizationEvidenceRetention`,
 *   `PersonalDataErasure`), and `offline`: the domain stack alone on the same database, the service
 *   stopped (PGlite is single-process);
 * - `inProcessServices`: each on a fresh PostgreSQL database (`Admin.test.ts`,
 *   `OwnRoutesMethods.test.ts`); each test file makes its own and stops them in its `afterAll`: the
 *   runtimes disposed, then the databases dropped, the last started first.
 */
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { HttpServer } from "effect/http"
import type { SqlClient } from "effect/sql/SqlClient"
import * as Config from "../src/config/Config.ts"
import * as Domain from "../src/Domain.ts"
import * as Database from "../src/database/Database.ts"
import * as Logging from "../src/observability/Logging.ts"
import * as Service from "../src/Service.ts"
import { freshDatabase } from "./support.ts"

/** A service running in-process: its base URL, and how to stop it. */
export interface Running {
  readonly url: string
  readonly stop: () => Promise<void>
}

/** The whole service in-process on `config`, logging through `logging`. */
export const run = async (config: Config.AppConfig, logging: Layer.Layer<never>): Promise<Running> => {
  const runtime = ManagedRuntime.make(
    Service.makeLayer(config, Redacted.make("t".repeat(48))).pipe(Layer.provide(logging)),
  )
  const url = await runtime.runPromise(
    Effect.map(HttpServer.HttpServer, (server) => HttpServer.formatAddress(server.address)),
  )
  return { url, stop: () => runtime.dispose() }
}

/** Runs `effect` with the service's domain stack on its database, the service stopped. */
export const offline = <A>(
  config: Config.AppConfig,
  logging: Layer.Layer<never>,
  effect: Effect.Effect<A, unknown, SqlClient | Domain.DomainPorts>,
): Promise<A> =>
  Effect.runPromise(
    effect.pipe(
      Effect.provide(Domain.layerWith(config).pipe(Layer.provideMerge(Database.layer(config.database)))),
      Effect.provide(logging),
    ) as Effect.Effect<A, unknown, never>,
  )

export const inProcessServices = () => {
  const cleanups: Array<() => Promise<void>> = []
  return {
    /** Runs the service in-process on a fresh database; returns its base URL. */
    start: async (extra: Partial<Record<Config.Variable, string>>): Promise<string> => {
      const db = await freshDatabase()
      cleanups.push(db.drop)
      const config = await Effect.runPromise(
        Config.fromRecord({ DATABASE_URL: db.url, PORT: "0", PARTNERPAY_KYB_DELAY_MS: "0", ...extra }),
      )
      const runtime = ManagedRuntime.make(
        Service.makeLayer(config, Redacted.make("t".repeat(48))).pipe(Layer.provide(Logging.layer("None"))),
      )
      cleanups.push(() => runtime.dispose())
      return await runtime.runPromise(
        Effect.map(HttpServer.HttpServer, (server) => HttpServer.formatAddress(server.address)),
      )
    },
    /** Runs `cleanup` when the services stop (before the ones already registered). */
    onStop: (cleanup: () => Promise<void>): void => {
      cleanups.push(cleanup)
    },
    /** Stops every service started, the last first. */
    stopAll: async (): Promise<void> => {
      for (const cleanup of cleanups.reverse()) await cleanup()
    },
  }
}
