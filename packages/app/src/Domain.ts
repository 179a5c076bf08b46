/**
 * The domain stack on the configured database: migrations, then EventStore
 * (with the event pipeline as its append hook), ReadModelStore, Outbox +
 * OutboxDispatch, UnitOfWork (adapters-pg `PgDomain`), the idempotency store,
 * partner credentials + the Partners admin service, the partner's webhook log
 * (`PgWebhookLog`), and random ids.
 */
import { PgDomain, PgIdempotencyStore, PgPartnerCredentials, PgWebhookLog } from "@partnerpay/adapters-pg"
import { IdGenerator } from "@partnerpay/domain"
import { Layer } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"

export const layer = Layer.mergeAll(
  PgIdempotencyStore.layer(),
  // the partner's own webhooks (deliveries, events, endpoint), over the outbox and the partners table
  Layer.provideMerge(PgWebhookLog.layer, PgPartnerCredentials.layer()),
).pipe(Layer.provideMerge(PgDomain.layer()), Layer.provideMerge(IdGenerator.layerRandom))

export type DomainPorts = Layer.Success<typeof layer>
export type DomainRequirements = SqlClient
