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
 * Each heartbeat also counts the live instances (`liveInstances`): the
 * per-instance rate limits are divided by it, so that several instances
 * behind a load balancer enforce a caller's limit together (docs/scaling.md).
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
    /**
     * How many instances are live now, this one included (at least 1), as of the last heartbeat:
     * what a per-instance limit is divided by so that the instances together enforce it.
     */
    readonly liveInstances: () => number
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
  let live = 1
  // One statement: this instance is seen, and the live ones are counted (the row written by this
  // statement is not visible to its own SELECT, hence the instance counted apart).
  const seen = sql<{ readonly live: number }>`
    WITH seen AS (
      INSERT INTO service_instances (instance_id) VALUES (${instanceId})
      ON CONFLICT (instance_id) DO UPDATE SET seen_at = now()
      RETURNING instance_id
    )
    SELECT 1 + count(*)::int AS live FROM service_instances
    WHERE instance_id <> ${instanceId} AND seen_at > now() - ${livenessMillis} * interval '1 millisecond'`.pipe(
    Effect.tap((rows) =>
      Effect.sync(() => {
        live = Math.max(1, rows[0]?.live ?? 1)
      }),
    ),
  )
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
  return ServiceInstance.of({ instanceId, liveInstances: () => live })
})

/** Registers this process and keeps it live while the layer lives. */
export const layer = (options: Options = {}): Layer.Layer<ServiceInstance, SqlError, SqlClient> =>
  Layer.effect(ServiceInstance, make(options))
