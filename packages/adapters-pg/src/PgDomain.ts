/**
 * The whole domain stack on PostgreSQL (a server or PGlite), given an
 * `SqlClient`: migrations first, then `EventStore` (PgEventStore whose append
 * hook is the domain's `EventPipeline.makeHook()`: projections into
 * `read_models` and notifications into `outbox`, in the append's
 * transaction), `ReadModelStore`, `Outbox`, `OutboxDispatch` and `UnitOfWork`.
 *
 * The hook's queries join the append's transaction because Effect SQL carries
 * the transaction's connection in the fiber context: a failing projection
 * rolls the events back.
 */
import {
  EventPipeline,
  EventStore,
  EventStoreUnavailable,
  type Outbox,
  type ReadModelStore,
  type UnitOfWork,
} from "@partnerpay/domain"
import { Effect, Layer } from "effect"
import type { MigrationError } from "effect/sql/Migrator"
import { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as Migrations from "./Migrations.ts"
import * as PgEventStore from "./PgEventStore.ts"
import * as PgOutbox from "./PgOutbox.ts"
import * as PgReadModelStore from "./PgReadModelStore.ts"
import * as PgUnitOfWork from "./PgUnitOfWork.ts"

export type Services = EventStore | ReadModelStore | Outbox | PgOutbox.OutboxDispatch | UnitOfWork

/** The domain ports on the `SqlClient` in context, after running the migrations. */
export const layer = (
  options: EventPipeline.PipelineOptions = {},
): Layer.Layer<Services, MigrationError | SqlError, SqlClient> => {
  const base = Layer.mergeAll(PgReadModelStore.layer, PgOutbox.layer, PgUnitOfWork.layer)
  const store = Layer.effect(
    EventStore,
    Effect.gen(function* () {
      const onAppend = yield* EventPipeline.makeHook(options)
      return yield* PgEventStore.make({ onAppend })
    }),
  )
  return store.pipe(Layer.provideMerge(base), Layer.provideMerge(Migrations.layer))
}

/**
 * Rebuilds the read models from the whole log (`EventPipeline.rebuild`) in one
 * transaction, returning the number of events replayed. It first takes the
 * event position lock until it commits (appends wait meanwhile) and waits for
 * appends already in flight to finish, so it replays exactly the committed log
 * and no append's hook writes read models concurrently.
 */
export const rebuildProjections = (
  options: {
    readonly projections?: EventPipeline.PipelineOptions["projections"]
    readonly batchSize?: number
    /** How long to wait for older transactions to end (default 30 s). */
    readonly waitMillis?: number
  } = {},
): Effect.Effect<number, EventStoreUnavailable | SqlError, SqlClient | EventStore | ReadModelStore> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT lock_event_positions_until_commit()`
        // Wait until no transaction older than this one runs (in-flight appends committed or rolled back);
        // give up after `waitMillis` (an old idle transaction elsewhere would otherwise hold the rebuild forever).
        const deadline = Date.now() + (options.waitMillis ?? 30_000)
        while (true) {
          const rows = yield* sql<{ alone: boolean }>`
            SELECT pg_snapshot_xmin(pg_current_snapshot()) = pg_current_xact_id() AS alone`
          if (rows[0]?.alone === true) break
          if (Date.now() > deadline) {
            return yield* new EventStoreUnavailable({ reason: "rebuild: older transactions are still running" })
          }
          yield* Effect.sleep(10)
        }
        return yield* EventPipeline.rebuild(options.projections, options.batchSize)
      }),
    )
  })
