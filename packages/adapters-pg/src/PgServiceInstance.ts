/**
 * This process as the database sees it: a row of `service_instances`
 * (migration 17) that a heartbeat sees again every `heartbeatMillis`, so that
 * other processes can tell a live instance from one that died (crash,
 * kill -9) within `livenessMillis`, without any timer on the work itself.
 * What an instance holds (an Idempotency-Key's claim, `PgIdempotencyStore`)
 * is free once its holder is no longer live.
 *
 * The row is removed when the layer closes (a clean stop frees everything at
 * once). `exclusive` is for a database that only this process can open (the
 * embedded PGlite, locked by its data directory): every other instance row
 * is a leftover of a dead process and is removed at start, so what those
 * processes held is free at once.
 *
 * Liveness is judged with the database's clock on both sides (the heartbeat
 * writes `now()`, the check compares with `now()`), so clocks of the
 * instances' machines never matter.
 */
import { randomUUID } from "node:crypto"
import { Traced } from "@partnerpay/domain"
import { Context, Effect, Layer, Schedule } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"

/** How often an instance tells it is alive. */
export const heartbeatMillis = 1_000

/** An instance not seen for this long is dead (a few missed heartbeats: a busy event loop is not death). */
export const livenessMillis = 5_000

export class ServiceInstance extends Context.Service<
  ServiceInstance,
  {
    /** This process's id in `service_instances`. */
    readonly instanceId: string
  }
>()("partnerpay/adapters-pg/ServiceInstance") {}

export interface Options {
  /** Only this process can open the database (PGlite): other instances' rows are leftovers. */
  readonly exclusive?: boolean | undefined
  /** Default `heartbeatMillis`. */
  readonly heartbeatMillis?: number | undefined
}

export const make = Traced.fn("PgServiceInstance.make")(function* (options: Options = {}) {
  const sql = yield* SqlClient
  const instanceId = randomUUID()
  const seen = sql`
    INSERT INTO service_instances (instance_id) VALUES (${instanceId})
    ON CONFLICT (instance_id) DO UPDATE SET seen_at = now()`
  if (options.exclusive === true) yield* sql`DELETE FROM service_instances`
  yield* seen
  yield* Effect.addFinalizer(() =>
    sql`DELETE FROM service_instances WHERE instance_id = ${instanceId}`.pipe(Effect.ignore),
  )
  yield* seen.pipe(
    Effect.catch((error) => Effect.logDebug("service instance heartbeat failed", error)),
    Effect.repeat(Schedule.spaced(options.heartbeatMillis ?? heartbeatMillis)),
    Effect.forkScoped,
  )
  return ServiceInstance.of({ instanceId })
})

/** Registers this process and keeps it live while the layer lives. */
export const layer = (options: Options = {}): Layer.Layer<ServiceInstance, SqlError, SqlClient> =>
  Layer.effect(ServiceInstance, make(options))
