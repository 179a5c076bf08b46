/**
 * Schema migrations, run at start-up.
 *
 * Migration files live in `src/migrations/<id>_<name>.ts` (default export: an
 * Effect using `SqlClient`) and are listed in `migrations` below. A run
 * applies every listed migration the database has not applied, in id order,
 * whatever its id: unlike Effect's migrator (which applies only ids above the
 * highest applied one), a migration merged out of order is never skipped. A
 * database that applied a migration this code does not know (a newer build)
 * is refused (`UnknownMigrations`), and readiness reports any difference
 * between the applied set and the code's. Several processes may start at
 * once: the whole run happens in one transaction that first takes
 * `pg_advisory_xact_lock`, so one process migrates while the others wait and
 * then find nothing left to do. The bookkeeping table keeps the layout of
 * Effect's migrator (`partnerpay_migrations`), so databases migrated before
 * need nothing.
 *
 * Functions are code, not schema: after the versioned migrations, the same
 * transaction re-creates `commit_unit` from its current source
 * (`CommitUnitFunction.ts`), so a database always runs the function of the
 * code that opened it.
 */
import { Traced } from "@partnerpay/domain"
import { Effect, Layer, Schema } from "effect"
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
import moneyMovementIndexes from "./migrations/0019_money_movement_indexes.ts"
import refundsToOriginateIndex from "./migrations/0020_refunds_to_originate_index.ts"
import payoutDueWorkIndexes from "./migrations/0023_payout_due_work_indexes.ts"
import pendingReimbursementsIndex from "./migrations/0027_pending_reimbursements_index.ts"
import partnerApiVersion from "./migrations/0031_partner_api_version.ts"
import partnerWebhookEndpoint from "./migrations/0036_partner_webhook_endpoint.ts"
import workClaims from "./migrations/0037_work_claims.ts"
import providerNotifications from "./migrations/0038_provider_notifications.ts"
import providerFundingSources from "./migrations/0039_provider_funding_sources.ts"
import partnerColumns from "./migrations/0043_partner_columns.ts"
import fundingSourcePartner from "./migrations/0044_funding_source_partner.ts"
import sandboxClockEpochs from "./migrations/0060_sandbox_clock_epochs.ts"
import sandboxCardDisputes from "./migrations/0080_sandbox_card_disputes.ts"
import ledgerPostingsIndex from "./migrations/0120_ledger_postings_index.ts"
import sandboxCardDisputesReadModel from "./migrations/0130_sandbox_card_disputes_read_model.ts"

/**
 * Every migration of this package, keyed `<id>_<name>`. `runReporting` applies every one a database
 * lacks, whatever its id (a migration merged out of order is applied, never skipped), and refuses a
 * database that applied one the code does not know.
 */
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
  "0019_money_movement_indexes": moneyMovementIndexes,
  "0020_refunds_to_originate_index": refundsToOriginateIndex,
  "0023_payout_due_work_indexes": payoutDueWorkIndexes,
  "0027_pending_reimbursements_index": pendingReimbursementsIndex,
  "0031_partner_api_version": partnerApiVersion,
  "0036_partner_webhook_endpoint": partnerWebhookEndpoint,
  "0037_work_claims": workClaims,
  "0038_provider_notifications": providerNotifications,
  "0039_provider_funding_sources": providerFundingSources,
  "0043_partner_columns": partnerColumns,
  "0044_funding_source_partner": fundingSourcePartner,
  "0060_sandbox_clock_epochs": sandboxClockEpochs,
  "0080_sandbox_card_disputes": sandboxCardDisputes,
  "0120_ledger_postings_index": ledgerPostingsIndex,
  "0130_sandbox_card_disputes_read_model": sandboxCardDisputesReadModel,
}

/** The table recording applied migrations (the layout of Effect's migrator: existing databases keep theirs). */
export const table = "partnerpay_migrations"

/** Advisory lock key serialising migration runs (arbitrary, fixed). */
export const lockKey = 7460398523113402000n

/** A migration of the code: its id and name, parsed from its key `<id>_<name>`. */
export interface Known {
  readonly id: number
  readonly name: string
  readonly apply: Effect.Effect<void, unknown, SqlClient>
}

/** The migrations of the code, in id order (ids and names parsed once; a key not of the form `<id>_<name>` is a defect). */
export const known: ReadonlyArray<Known> = Object.entries(migrations)
  .map(([key, apply]) => {
    const match = /^(\d+)_(.+)$/.exec(key)
    if (match === null) throw new Error(`migration key ${key} is not <id>_<name>`)
    return { id: Number(match[1]), name: match[2]!, apply }
  })
  .sort((a, b) => a.id - b.id)

/**
 * The database was migrated by code that knows migrations this code does not (a newer build, or a
 * migration renamed): starting would run code against a schema it was not written for.
 */
export class UnknownMigrations extends Schema.TaggedError<UnknownMigrations>()("UnknownMigrations", {
  /** `<id>_<name>` of each applied migration the code does not have. */
  migrations: Schema.Array(Schema.String),
}) {
  override get message(): string {
    return `the database has migrations this build does not know: ${this.migrations.join(", ")} (run the build that applied them, or a newer one)`
  }
}

/** A migration that failed while being applied (the run's transaction is rolled back). */
export class MigrationFailed extends Schema.TaggedError<MigrationFailed>()("MigrationFailed", {
  migration: Schema.String,
  cause: Schema.Unknown,
}) {
  override get message(): string {
    return `migration ${this.migration} failed: ${String(this.cause)}`
  }
}

/** One migration applied by a run, and how long it took. */
export interface Applied {
  readonly migration: string
  readonly millis: number
}

/** What the database has applied: `<id>_<name>` keys (an empty set when the table does not exist yet). */
export const appliedKeys = Traced.fn("Migrations.appliedKeys")(function* () {
  const sql = yield* SqlClient
  const [exists] = yield* sql<{ readonly exists: boolean }>`SELECT to_regclass(${table}) IS NOT NULL AS exists`
  if (exists?.exists !== true) return new Set<string>()
  const rows = yield* sql<{ readonly migration_id: number; readonly name: string }>`
    SELECT migration_id, name FROM ${sql(table)} ORDER BY migration_id`
  return new Set(rows.map((row) => `${String(row.migration_id).padStart(4, "0")}_${row.name}`))
})

/** The code's migrations the database lacks (by id and name), in id order. */
export const missing = (applied: ReadonlySet<string>): ReadonlyArray<Known> =>
  known.filter((migration) => !applied.has(keyOf(migration)))

/** Applied migrations the code does not know. */
export const unknown = (applied: ReadonlySet<string>): ReadonlyArray<string> => {
  const keys = new Set(known.map(keyOf))
  return [...applied].filter((key) => !keys.has(key))
}

const keyOf = (migration: { readonly id: number; readonly name: string }) =>
  `${String(migration.id).padStart(4, "0")}_${migration.name}`

/**
 * Applies every migration of the code that the database has not applied, in id order, WHATEVER its
 * id: a migration merged below the highest applied id is applied too (Effect's migrator would skip
 * it silently). Refuses (`UnknownMigrations`) a database that has applied a migration the code does
 * not know. Tells `report` as each one is applied; returns the ones applied by this call.
 */
export const runReporting = Traced.fn("Migrations.runReporting")(function* (
  report: (applied: Applied) => Effect.Effect<void>,
): Effect.fn.Return<
  ReadonlyArray<readonly [id: number, name: string]>,
  UnknownMigrations | MigrationFailed | SqlError,
  SqlClient
> {
  const sql = yield* SqlClient
  // One transaction on one connection: the lock is held until it commits, and every migration of
  // the run commits with it or none does.
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      // Migrations may run long and wait for another instance's run: the session's timeouts
      // (PgDatabase.SessionTimeouts) are for the service's own short statements, not for this one.
      yield* sql`SELECT set_config('statement_timeout', '0', true), set_config('lock_timeout', '0', true),
        set_config('idle_in_transaction_session_timeout', '0', true)`
      yield* sql`SELECT pg_advisory_xact_lock(${lockKey})`
      yield* sql`
        CREATE TABLE IF NOT EXISTS ${sql(table)} (
          migration_id integer PRIMARY KEY,
          created_at timestamp with time zone NOT NULL DEFAULT now(),
          name text NOT NULL
        )`
      const applied = yield* appliedKeys()
      const strangers = unknown(applied)
      if (strangers.length > 0) return yield* new UnknownMigrations({ migrations: strangers })
      const done: Array<readonly [number, string]> = []
      for (const migration of missing(applied)) {
        const started = performance.now()
        yield* migration.apply.pipe(
          Effect.mapError((cause) => new MigrationFailed({ migration: keyOf(migration), cause })),
        )
        yield* sql`INSERT INTO ${sql(table)} (migration_id, name) VALUES (${migration.id}, ${migration.name})`
        yield* report({ migration: keyOf(migration), millis: Math.round(performance.now() - started) })
        done.push([migration.id, migration.name])
      }
      yield* sql.unsafe(CommitUnitFunction.definition)
      return done
    }),
  )
})

/** Applies pending migrations; returns the ones applied by this call. */
export const run: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  UnknownMigrations | MigrationFailed | SqlError,
  SqlClient
> = runReporting(() => Effect.void)

/** Runs the migrations when the layer is built. */
export const layer: Layer.Layer<never, UnknownMigrations | MigrationFailed | SqlError, SqlClient> =
  Layer.effectDiscard(run)
