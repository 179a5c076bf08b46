/**
 * The whole domain stack on PostgreSQL (a server or PGlite), given an
 * `SqlClient`: migrations first, then `EventStore` (PgEventStore whose append
 * hook is the domain's `EventPipeline.makeHook()`: projections into
 * `read_models` and notifications into `outbox`), `ReadModelStore`, `Outbox`,
 * `OutboxDispatch`, `UnitOfWork` and the domain's policy registry
 * (`Policies.layer`, which the command handler applies after every decision).
 *
 * With a `PersonalDataVault` in context, the event store and the read-model
 * store are protected (`PersonalData.protectEventStore` / `protectReadModels`):
 * personal fields are sealed per data subject before they reach a table.
 *
 * The hook runs in the append's unit of work (`PgUnit.ts`): its documents and
 * outbox rows are committed by the same `commit_unit` statement as the events,
 * and a failing projection fails the append, so nothing is written.
 */
import {
  EventPipeline,
  EventStore,
  Outbox,
  PersonalData,
  PersonalDataMap,
  Policies,
  type Policy,
  Projections,
  ReadModel,
  Traced,
  type UnitOfWork,
} from "@partnerpay/domain"
import { Context, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as Migrations from "./Migrations.ts"
import { rebuildLockKey } from "./migrations/0004_commit_unit.ts"
import * as PgEventStore from "./PgEventStore.ts"
import * as PgOutbox from "./PgOutbox.ts"
import * as PgReadModelStore from "./PgReadModelStore.ts"
import * as PgUnit from "./PgUnit.ts"
import * as PgUnitOfWork from "./PgUnitOfWork.ts"

/**
 * `PgOutbox` whose `record` joins the current unit of work (the rows are
 * written by the unit's commit); outside a unit it writes at once.
 */
const outboxInUnits = Layer.effectContext(
  Effect.gen(function* () {
    const { outbox: direct, dispatch } = yield* PgOutbox.make
    const record = Traced.fn("PgDomain.recordNotifications")(function* (notifications: ReadonlyArray<Outbox.Webhook>) {
      const unit = yield* PgUnit.CurrentUnit
      if (unit === undefined) return yield* direct.record(notifications)
      unit.outbox.push(...notifications)
    })
    return Context.make(Outbox.Outbox, Outbox.Outbox.of({ record })).pipe(
      Context.add(PgOutbox.OutboxDispatch, dispatch),
    )
  }),
)

/**
 * `PgReadModelStore`, protected (personal fields sealed) when a `PersonalDataVault`
 * is in context (the service always provides one; see docs/personal-data.md).
 */
const readModelsProtected = Layer.effect(
  ReadModel.ReadModelStore,
  Effect.gen(function* () {
    const store = yield* ReadModel.ReadModelStore
    const vault = yield* Effect.serviceOption(PersonalData.PersonalDataVault)
    return Option.isSome(vault) ? PersonalData.protectReadModels(store, vault.value, PersonalDataMap.fields) : store
  }),
).pipe(Layer.provide(PgReadModelStore.layer))

export type Services =
  | EventStore.EventStore
  | ReadModel.ReadModelStore
  | Outbox.Outbox
  | PgOutbox.OutboxDispatch
  | UnitOfWork.UnitOfWork
  | Policy.Policies

/** The domain ports on the `SqlClient` in context, after running the migrations. */
export const layer = (
  options: EventPipeline.PipelineOptions = {},
): Layer.Layer<Services, Migrations.UnknownMigrations | Migrations.MigrationFailed | SqlError, SqlClient> => {
  const base = Layer.mergeAll(
    readModelsProtected,
    outboxInUnits,
    PgUnitOfWork.layer,
    Policies.layer.pipe(Layer.provide(readModelsProtected)),
  )
  const store = Layer.effect(
    EventStore.EventStore,
    Effect.gen(function* () {
      const onAppend = yield* EventPipeline.makeHook(options)
      const ownedCollections = ReadModel.collectionsOwnedBy(options.projections ?? Projections.all)
      const store = yield* PgEventStore.make({ onAppend, ownedCollections })
      const vault = yield* Effect.serviceOption(PersonalData.PersonalDataVault)
      return Option.isSome(vault) ? PersonalData.protectEventStore(store, vault.value, PersonalDataMap.fields) : store
    }),
  )
  return store.pipe(Layer.provideMerge(base), Layer.provideMerge(Migrations.layer))
}

/**
 * Rebuilds the read models from the whole log (`EventPipeline.rebuild`) in one
 * transaction, returning the number of events replayed. It first takes the
 * commit lock exclusively until it commits (every `commit_unit` holds it
 * shared: commits in flight finish first, later ones wait), so it replays
 * exactly the committed log (read without the horizon of `readAll`, which
 * would wait for every older transaction of the whole server, other
 * databases' included: `PgEventStore.CommitsExcluded`) and no unit writes
 * read models concurrently. Units that read a document before the
 * rebuild and commit after it fail with a document conflict (every write
 * draws a new revision) and are retried on the rebuilt documents. Aggregate
 * snapshots are deleted too (they are rebuilt by the next commands).
 */
export const rebuildProjections = Traced.fn("PgDomain.rebuildProjections")(function* (
  options: {
    readonly projections?: EventPipeline.PipelineOptions["projections"]
    readonly batchSize?: number
    /** Told the events replayed so far and the events to replay in all, at the start and after each batch. */
    readonly onProgress?: (replayed: number, total: number) => Effect.Effect<void>
  } = {},
): Effect.fn.Return<
  number,
  EventStore.EventStoreUnavailable | SqlError,
  SqlClient | EventStore.EventStore | ReadModel.ReadModelStore
> {
  const sql = yield* SqlClient
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      // A rebuild runs long: not bounded by the session's timeouts.
      yield* sql`SELECT set_config('statement_timeout', '0', true), set_config('lock_timeout', '0', true),
        set_config('idle_in_transaction_session_timeout', '0', true)`
      // The lock of this schema's event store (schemas of one database never wait for each other).
      yield* sql`SELECT pg_advisory_xact_lock(hashtextextended(current_schema(), ${rebuildLockKey}))`
      // Snapshots are derived from the log too: a rebuild (often after a code change) starts them afresh.
      yield* sql`DELETE FROM snapshots`
      const onProgress = options.onProgress
      if (onProgress === undefined) return yield* EventPipeline.rebuild(options.projections, options.batchSize)
      const counted = yield* sql<{ total: number }>`SELECT count(*)::int AS total FROM events`
      const total = counted[0]?.total ?? 0
      yield* onProgress(0, total)
      return yield* EventPipeline.rebuild(options.projections, options.batchSize, (replayed) =>
        onProgress(replayed, total),
      )
    }).pipe(Effect.provideService(PgEventStore.CommitsExcluded, true)),
  )
})
