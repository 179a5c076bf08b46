/**
 * Operator operations, shared by the operator API (`Admin.ts`) and the CLI
 * (`Cli.ts`): create a partner, rotate its client secret, revoke its tokens, set its webhook,
 * list and redeliver webhook deliveries. They validate their plain inputs and
 * use the adapters-pg services (`Partners`, `OutboxDispatch`) plus two small
 * reads of their tables.
 *
 * Decisions:
 * - a partner name is 1..200 characters (trimmed);
 * - a webhook URL is an absolute http(s) URL; the signing secret is 1..500
 *   characters (it is needed to sign, so it is stored readable; see
 *   PgPartnerCredentials) and is never returned; without one, a secret is
 *   generated and returned once (the partner can read it again with
 *   `GET /Webhooks/Endpoint`); no webhook is ever unsigned;
 * - in production (`WebhookTargetPolicy`), a URL that is or resolves to a
 *   loopback, private, link-local or metadata address is refused
 *   (`UnsafeUrl`, a 400 naming `url`; see WebhookTarget.ts);
 * - an id that is not a UUID names no partner (404, not a database error);
 * - rotating a secret also revokes every token issued to the partner (a
 *   new token generation, `TokenGenerations`): a leaked secret's tokens die
 *   with it. Revoking tokens alone keeps the secret;
 * - redelivering a delivery that is still pending or delivering is refused
 *   (409): it is already queued.
 */

import { PgOutbox, PgPartnerCredentials, PgWebhookLog } from "@partnerpay/adapters-pg"
import { EventStore, Ids, TokenGenerations, Traced } from "@partnerpay/domain"
import { DateTime, Effect, Redacted, Schema } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { checkUrl, WebhookTargetPolicy } from "../workers/WebhookTarget.ts"

/** A request field value the operation refuses. */
export class InvalidInput extends Schema.TaggedError<InvalidInput>()("InvalidInput", {
  issues: Schema.Array(Schema.Struct({ field: Schema.String, message: Schema.String })),
}) {}

export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { entity: Schema.String }) {}

/** A webhook URL the service refuses to call (not a public address, in production). */
export class UnsafeUrl extends Schema.TaggedError<UnsafeUrl>()("UnsafeUrl", {
  field: Schema.String,
  message: Schema.String,
}) {}

export class DeliveryInProgress extends Schema.TaggedError<DeliveryInProgress>()("DeliveryInProgress", {
  status: Schema.String,
}) {}

export type OperationError = InvalidInput | UnsafeUrl | NotFound | DeliveryInProgress | EventStore.EventStoreUnavailable

export const isOperationError = (u: unknown): u is OperationError =>
  u instanceof InvalidInput ||
  u instanceof UnsafeUrl ||
  u instanceof NotFound ||
  u instanceof DeliveryInProgress ||
  u instanceof EventStore.EventStoreUnavailable

export const deliveryStatuses = ["pending", "delivering", "delivered", "failed"] as const
export type DeliveryStatus = (typeof deliveryStatuses)[number]
export const defaultDeliveryLimit = 20
export const maxDeliveryLimit = 100

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const partnerIdOf = (raw: string): Effect.Effect<Ids.PartnerId, NotFound> =>
  uuid.test(raw)
    ? Effect.succeed(Ids.PartnerId.make(raw.toLowerCase()))
    : Effect.fail(new NotFound({ entity: "Partner" }))

const toNotFound = <A, R>(
  effect: Effect.Effect<A, { readonly _tag: "NotFound" } | EventStore.EventStoreUnavailable, R>,
): Effect.Effect<A, NotFound | EventStore.EventStoreUnavailable, R> =>
  Effect.catchTag(effect, "NotFound", () => Effect.fail(new NotFound({ entity: "Partner" })))

const isHttpUrl = (raw: string): boolean => {
  try {
    const url = new URL(raw)
    return url.protocol === "http:" || url.protocol === "https:"
  } catch {
    return false
  }
}

export interface PartnerCredentialsShown {
  readonly partnerId: Ids.PartnerId
  readonly clientId: string
  /** Shown once. */
  readonly clientSecret: Redacted.Redacted<string>
}

/** The wire form of new credentials (the only place a client secret is revealed). */
export const encodeCreated = (created: PartnerCredentialsShown) => ({
  partnerId: created.partnerId,
  clientId: created.clientId,
  clientSecret: Redacted.value(created.clientSecret),
})

/** A new partner with a fresh ClientId and ClientSecret. */
export const createPartner = Traced.fn("Operations.createPartner")(function* (input: { readonly name: string }) {
  const name = input.name.trim()
  if (name.length === 0 || name.length > 200) {
    return yield* new InvalidInput({ issues: [{ field: "name", message: "must be 1 to 200 characters" }] })
  }
  const partners = yield* PgPartnerCredentials.Partners
  const created: PartnerCredentialsShown = yield* partners.create({ name })
  return created
})

/**
 * Revokes every token issued to the partner so far (its ClientSecret keeps
 * working: it logs in again for a new token). This process enforces it at
 * once, other instances within their poll interval (PgTokenGenerations).
 */
export const revokeTokens = Traced.fn("Operations.revokeTokens")(function* (rawPartnerId: string) {
  const partnerId = yield* partnerIdOf(rawPartnerId)
  const partners = yield* PgPartnerCredentials.Partners
  if (!(yield* partners.exists(partnerId))) return yield* new NotFound({ entity: "Partner" })
  const tokenGeneration = yield* (yield* TokenGenerations.TokenGenerations).bump(
    TokenGenerations.partnerSubject(partnerId),
  )
  return { partnerId, tokenGeneration }
})

/** A new ClientSecret for the partner; the old one and every token issued so far stop working at once. */
export const rotateSecret = Traced.fn("Operations.rotateSecret")(function* (rawPartnerId: string) {
  const partnerId = yield* partnerIdOf(rawPartnerId)
  const partners = yield* PgPartnerCredentials.Partners
  const clientSecret = yield* toNotFound(partners.rotateSecret(partnerId))
  yield* (yield* TokenGenerations.TokenGenerations).bump(TokenGenerations.partnerSubject(partnerId))
  const sql = yield* SqlClient
  const rows = yield* sql<{
    client_id: string
  }>`SELECT client_id FROM partners WHERE partner_id = ${partnerId}::uuid`.pipe(
    Effect.mapError((error) => new EventStore.EventStoreUnavailable({ reason: `partners read: ${error.message}` })),
  )
  const row = rows[0]
  if (row === undefined) return yield* new NotFound({ entity: "Partner" })
  const shown: PartnerCredentialsShown = { partnerId, clientId: row.client_id, clientSecret }
  return shown
})

/**
 * Sets the partner's webhook endpoint and signing secret. A secret given is never returned; without one, a
 * secret is generated and returned (`signingSecret`, this once).
 */
export const setWebhook = Traced.fn("Operations.setWebhook")(function* (input: {
  readonly partnerId: string
  readonly url: string
  readonly signingSecret?: Redacted.Redacted<string> | undefined
}) {
  const url = input.url.trim()
  const secret = input.signingSecret === undefined ? undefined : Redacted.value(input.signingSecret)
  const issues: Array<{ field: string; message: string }> = []
  if (!isHttpUrl(url)) issues.push({ field: "url", message: "must be an absolute http:// or https:// URL" })
  if (secret !== undefined && (secret.length === 0 || secret.length > 500)) {
    issues.push({ field: "signingSecret", message: "must be 1 to 500 characters" })
  }
  const partnerId = yield* partnerIdOf(input.partnerId)
  if (issues.length > 0) return yield* new InvalidInput({ issues })
  const policy = yield* WebhookTargetPolicy
  const refused = yield* Effect.promise(() => checkUrl(url, policy))
  if (refused !== undefined) return yield* new UnsafeUrl({ field: "url", message: refused })
  const partners = yield* PgPartnerCredentials.Partners
  const signingSecret = input.signingSecret ?? PgWebhookLog.generateSigningSecret()
  yield* toNotFound(partners.setWebhook(partnerId, { url, signingSecret }))
  return input.signingSecret === undefined
    ? { partnerId, url, signingSecret: Redacted.value(signingSecret) }
    : { partnerId, url }
})

/** Recent deliveries, newest first; no payload, no secret. */
export const listDeliveries = Traced.fn("Operations.listDeliveries")(function* (options: {
  readonly status?: DeliveryStatus
  readonly limit: number
}) {
  const dispatch = yield* PgOutbox.OutboxDispatch
  return yield* dispatch.list(options)
})

/** The wire form of a delivery (the notification's data is left out: it is partner data, not needed to operate). */
export const encodeDelivery = (entry: PgOutbox.OutboxEntry) => ({
  id: entry.id,
  partnerId: entry.partnerId,
  eventType: entry.eventType,
  status: entry.status,
  attempts: entry.attempts,
  lastError: entry.lastError,
  nextAttemptAt: entry.status === "pending" ? DateTime.formatIso(entry.nextAttemptAt) : null,
  createdAt: DateTime.formatIso(entry.createdAt),
  deliveredAt: entry.deliveredAt === null ? null : DateTime.formatIso(entry.deliveredAt),
})

/** Rows queued per statement by `redeliverFailed`. */
export const redeliverBatch = 100

/**
 * Queues again every delivery that failed among those recorded at or after `since`, a batch at a time;
 * `onProgress(queued, total)` after each batch. Stops after the number counted at the start (rows failing
 * again meanwhile are not queued twice). How many were queued.
 */
export const redeliverFailed = Traced.fn("Operations.redeliverFailed")(function* (
  since: DateTime.Utc,
  onProgress: (queued: number, total: number) => Effect.Effect<void>,
) {
  const dispatch = yield* PgOutbox.OutboxDispatch
  const total = yield* dispatch.countFailed(since)
  let queued = 0
  while (queued < total) {
    const batch = yield* dispatch.redeliverFailed(since, Math.min(redeliverBatch, total - queued))
    if (batch === 0) break
    queued += batch
    yield* onProgress(queued, total)
  }
  return { queued, total }
})

/** Puts a failed or delivered delivery back in the queue, due now. */
export const redeliver = Traced.fn("Operations.redeliver")(function* (id: string) {
  const dispatch = yield* PgOutbox.OutboxDispatch
  if (yield* dispatch.redeliver(id)) return
  const sql = yield* SqlClient
  const rows = yield* sql<{ status: string }>`SELECT status FROM outbox WHERE id = ${id}`.pipe(
    Effect.mapError((error) => new EventStore.EventStoreUnavailable({ reason: `outbox read: ${error.message}` })),
  )
  const row = rows[0]
  if (row === undefined) return yield* new NotFound({ entity: "Delivery" })
  return yield* new DeliveryInProgress({ status: row.status })
})
