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
import { Traced } from "@partnerpay/domain"
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
import tokenGenerations from "./migrations/0006_token_generations.ts"
import personalDataKeys from "./migrations/0008_personal_data_keys.ts"
import webhookLog from "./migrations/0009_webhook_log.ts"
import sentMessages from "./migrations/0011_sent_messages.ts"
import sandboxClocks from "./migrations/0013_sandbox_clocks.ts"
import paymentAttachments from "./migrations/0014_payment_attachments.ts"
import dropEventsPartnerIndex from "./migrations/0015_drop_events_partner_index.ts"
import dueWorkIndexes from "./migrations/0016_due_work_indexes.ts"
import idempotencyHolders from "./migrations/0017_idempotency_holders.ts"
import sealedWebhookSecrets from "./migrations/0018_sealed_webhook_secrets.ts"

/** Every migration of this package, keyed `<id>_<name>`. */
// Ids must only grow: the migrator applies ids above the highest one already applied.
export const migrations: Record<string, Effect.Effect<void, unknown, SqlClient>> = {
  "0001_create_events": createEvents,
  "0002_read_side": readSide,
  "0003_create_idempotency_keys": createIdempotencyKeys,
  "0004_commit_unit": commitUnit,
  "0005_outbox_claim": outboxClaim,
  "0006_token_generations": tokenGenerations,
  "0008_personal_data_keys": personalDataKeys,
  "0009_webhook_log": webhookLog,
  "0011_sent_messages": sentMessages,
  "0013_sandbox_clocks": sandboxClocks,
  "0014_payment_attachments": paymentAttachments,
  "0015_drop_events_partner_index": dropEventsPartnerIndex,
  "0016_due_work_indexes": dueWorkIndexes,
  "0017_idempotency_holders": idempotencyHolders,
  "0018_sealed_webhook_secrets": sealedWebhookSecrets,
}

/** The table recording applied migrations. */
export const table = "partnerpay_migrations"

/** Advisory lock key serialising migration runs (arbitrary, fixed). */
export const lockKey = 7460398523113402000n

const runMigrator = Migrator.make({})

/** One migration applied by a run, and how long it took. */
export interface Applied {
  readonly migration: string
  readonly millis: number
}

/** `migrations`, each telling `report` when it has been applied (in order, inside the run's transaction). */
const reporting = (report: (applied: Applied) => Effect.Effect<void>) =>
  Object.fromEntries(
    Object.entries(migrations).map(([migration, apply]) => [
      migration,
      Effect.suspend(() => {
        const started = performance.now()
        return Effect.tap(apply, () => report({ migration, millis: Math.round(performance.now() - started) }))
      }),
    ]),
  )

/** Applies pending migrations, telling `report` as each one is applied; returns the ones applied by this call. */
export const runReporting = Traced.fn("Migrations.runReporting")(function* (
  report: (applied: Applied) => Effect.Effect<void>,
): Effect.fn.Return<ReadonlyArray<readonly [id: number, name: string]>, Migrator.MigrationError | SqlError, SqlClient> {
  const sql = yield* SqlClient
  // One transaction on one connection: the lock is held until it commits,
  // and the migrator's own transaction becomes a savepoint inside it.
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* sql`SELECT pg_advisory_xact_lock(${lockKey})`
      const applied = yield* runMigrator({ loader: Migrator.fromRecord(reporting(report)), table })
      yield* sql.unsafe(CommitUnitFunction.definition)
      return applied
    }),
  )
})

/** Applies pending migrations; returns the ones applied by this call. */
export const run: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  Migrator.MigrationError | SqlError,
  SqlClient
> = runReporting(() => Effect.void)

/** Runs the migrations when the layer is built. */
export const layer: Layer.Layer<never, Migrator.MigrationError | SqlError, SqlClient> = Layer.effectDiscard(run)
