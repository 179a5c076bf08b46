/**
 * The domain stack on the configured database: migrations, then EventStore
 * (with the event pipeline as its append hook), ReadModelStore, Outbox +
 * OutboxDispatch, UnitOfWork (adapters-pg `PgDomain`), the idempotency store
 * (its claims held by this process, `PgServiceInstance`),
 * partner credentials + the Partners admin service, token generations
 * (revocation), the partner's webhook log (`PgWebhookLog`), payment
 * attachments (`PgAttachments`), and random ids; personal data sealed with
 * the data master key (`DataKey`: the vault and the phone index,
 * docs/personal-data.md).
 */
import {
  type Migrations,
  PgAttachments,
  PgDomain,
  PgIdempotencyStore,
  PgPartnerCredentials,
  PgServiceInstance,
  PgTokenGenerations,
  PgWebhookLog,
} from "@partnerpay/adapters-pg"
import { type Attachments, IdGenerator } from "@partnerpay/domain"
import { Effect, Layer } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import { type AppConfig, load } from "./config/Config.ts"
import * as DataKey from "./config/DataKey.ts"

/** The stack for a configuration (its data key: PARTNERPAY_DATA_KEY, or the sandbox key file). */
export const layerWith = (config: AppConfig) =>
  Layer.mergeAll(
    PgIdempotencyStore.layer(),
    PgTokenGenerations.layer(),
    PgAttachments.layer,
    // the partner's own webhooks (deliveries, events, endpoint), over the outbox and the partners table
    Layer.provideMerge(PgWebhookLog.layer, PgPartnerCredentials.layer()),
  ).pipe(
    // This process in `service_instances`: Idempotency-Key claims are held by it (free soon after it
    // dies; an embedded database is this process's alone, so every earlier instance there is dead),
    // and the per-instance rate limits are divided by the live instance count.
    Layer.provideMerge(PgServiceInstance.layer({ exclusive: config.database._tag === "Pglite" })),
    Layer.provideMerge(PgDomain.layer()),
    Layer.provideMerge(DataKey.layer(config)),
    Layer.provideMerge(IdGenerator.IdGenerator.layerRandom),
  )

/**
 * The stores the background workers write through, over the `SqlClient` in context (their own
 * pool: `Database.layerBackground`), with the personal data vault of the service's stack (one key
 * cache; keys made in a unit join that unit's commit whichever pool sends it).
 */
export const layerBackground = Layer.merge(PgDomain.layer(), PgAttachments.layer)

/** The stack for the configuration read from the environment. */
export const layer = Layer.unwrap(Effect.map(load, layerWith))

export type DomainPorts = Layer.Success<typeof layer>
export type DomainRequirements = SqlClient
/** Why the stack may fail to start besides the database: its migrations (named so the layer types are portable). */
export type MigrationFailure = Migrations.UnknownMigrations | Migrations.MigrationFailed

/** The attachments store is one of the ports (named here so the layer types are portable). */
export type AttachmentsPort = Attachments.PaymentAttachments
