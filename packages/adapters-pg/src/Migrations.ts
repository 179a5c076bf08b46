/**
 * Schema migrations, run with the Effect SQL migrator at start-up.
 *
 * Migration files live in `src/migrations/<id>_<name>.ts` (default export: an
 * Effect using `SqlClient`) and are listed in `migrations` below. Several
 * processes may start at once: the whole run happens in one transaction that
 * first takes `pg_advisory_xact_lock`, so one process migrates while the
 * others wait and then find nothing left to do.
 *
 * Functions are code, not schema: after the versioned migrations, the same
 * transaction re-creates `commit_unit` from its current source
 * (`CommitUnitFunction.ts`), so a database always runs the function of the
 * code that opened it.
 */
import { Effect, Layer } from "effect"
import * as Migrator from "effect/sql/Migrator"
import { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as CommitUnitFunction from "./CommitUnitFunction.ts"
import createEvents from "./migrations/0001_create_events.ts"
import readSide from "./migrations/0002_read_side.ts"
import createIdempotencyKeys from "./migrations/0003_create_idempotency_keys.ts"
import commitUnit from "./migrations/0004_commit_unit.ts"
import outboxClaim from "./migrations/0005_outbox_claim.ts"
import webhookLog from "./migrations/0009_webhook_log.ts"

/** Every migration of this package, keyed `<id>_<name>`. */
// Ids must only grow: the migrator applies ids above the highest one already applied.
export const migrations: Record<string, Effect.Effect<void, unknown, SqlClient>> = {
  "0001_create_events": createEvents,
  "0002_read_side": readSide,
  "0003_create_idempotency_keys": createIdempotencyKeys,
  "0004_commit_unit": commitUnit,
  "0005_outbox_claim": outboxClaim,
  "0009_webhook_log": webhookLog,
}

/** The table recording applied migrations. */
export const table = "partnerpay_migrations"

/** Advisory lock key serialising migration runs (arbitrary, fixed). */
export const lockKey = 7460398523113402000n

const runMigrator = Migrator.make({})

/** Applies pending migrations; returns the ones applied by this call. */
export const run: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  Migrator.MigrationError | SqlError,
  SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient
  // One transaction on one connection: the lock is held until it commits,
  // and the migrator's own transaction becomes a savepoint inside it.
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* sql`SELECT pg_advisory_xact_lock(${lockKey})`
      const applied = yield* runMigrator({ loader: Migrator.fromRecord(migrations), table })
      yield* sql.unsafe(CommitUnitFunction.definition)
      return applied
    }),
  )
})

/** Runs the migrations when the layer is built. */
export const layer: Layer.Layer<never, Migrator.MigrationError | SqlError, SqlClient> = Layer.effectDiscard(run)
