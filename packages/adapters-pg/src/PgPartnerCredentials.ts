/**
 * Partners on PostgreSQL (table `partners`, migration 0002): the domain
 * `PartnerCredentials` port (authenticate a ClientId/ClientSecret pair) and
 * the `Partners` admin service (create, sandbox upsert, secret rotation,
 * webhook settings).
 *
 * Client secrets (256-bit random values) are stored only as HMAC-SHA-256
 * hashes under the server pepper (`SecretHash.ts`, the `Pepper` in context)
 * and shown once, when created or rotated. Authentication compares in
 * constant time and checks an unknown ClientId against an unmatchable hash, so
 * it costs the same as a wrong secret. A partner whose row still holds a
 * legacy scrypt hash is verified with scrypt once more and, on success, its
 * row is rewritten with the HMAC form (one UPDATE, guarded by the old hash).
 * A database failure during authentication is a defect (the port never fails).
 *
 * Rotating a secret does not revoke the partner's tokens by itself: the
 * operations (app `Operations.ts`) bump the partner's token generation too.
 *
 * Webhook signing secrets must be readable (the dispatcher signs with them),
 * so they cannot be hashed: they are sealed at rest instead, in
 * `webhook_secret_sealed` (migration 0018), with the `PersonalDataVault` in
 * context under the partner's own subject (`webhookSubject`: a data key
 * wrapped by the master key PARTNERPAY_DATA_KEY, re-wrapped by a master key
 * rotation like every other). A dump of the database alone does not reveal
 * them. They are never returned except by `getWebhook`, wrapped in `Redacted`
 * (its `toString`/JSON print `<redacted>`), and never logged. A secret stored
 * in plaintext by an earlier version (`webhook_secret`) is still read, and
 * sealed (then cleared) when the layer is built (`sealStoredSecrets`, every
 * start); a secret that does not open (its key deleted, a wrong master key)
 * is a defect, loud.
 */

import { randomBytes } from "node:crypto"
import { DomainError, EventStore, Ids, PartnerCredentials, PersonalData, Traced } from "@partnerpay/domain"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { generateSecret, hashSecret, Pepper, type ScryptParams, unmatchableHash, verifySecret } from "./SecretHash.ts"
import { unavailable } from "./SqlErrors.ts"

export interface CreatedPartner {
  readonly partnerId: Ids.PartnerId
  readonly clientId: string
  /** Shown once: only its hash is stored. */
  readonly clientSecret: Redacted.Redacted<string>
}

export interface Webhook {
  readonly url: string
  readonly signingSecret: Redacted.Redacted<string>
  /** The webhook `Event` names the partner subscribed to; null or absent: every type. */
  readonly eventTypes?: ReadonlyArray<string> | null
  /** The secret replaced by the last roll, still signing deliveries until `expiresAt`. */
  readonly previous?: { readonly signingSecret: Redacted.Redacted<string>; readonly expiresAt: Date } | undefined
}

/** What the partner sets itself (`PUT /Webhooks/Endpoint`): a roll to a new secret, the old one kept for a while. */
export interface WebhookRoll {
  readonly url: string
  readonly eventTypes: ReadonlyArray<string> | null
  readonly signingSecret: Redacted.Redacted<string>
  /** How long the replaced secret keeps signing deliveries. */
  readonly graceMillis: number
}

export class Partners extends Context.Service<
  Partners,
  {
    /** A new partner with a fresh ClientId and ClientSecret. */
    create(input: { readonly name: string }): Effect.Effect<CreatedPartner, EventStore.EventStoreUnavailable>
    /**
     * Makes `clientId` authenticate with `clientSecret` (sandbox/dev set-up, idempotent):
     * creates the partner when the ClientId is new (with `partnerId` if given), else replaces its secret.
     */
    upsertSandboxPartner(input: {
      readonly clientId: string
      readonly clientSecret: Redacted.Redacted<string>
      readonly partnerId?: Ids.PartnerId
      readonly name?: string
    }): Effect.Effect<Ids.PartnerId, EventStore.EventStoreUnavailable>
    /** Whether the partner exists. */
    exists(partnerId: Ids.PartnerId): Effect.Effect<boolean, EventStore.EventStoreUnavailable>
    /** Whether any partner exists at all (a first start has none). */
    any(): Effect.Effect<boolean, EventStore.EventStoreUnavailable>
    /**
     * The partner's API version, pinning `latest` at its first call (kept with the partner; a pin never
     * changes, so it is cached for the process's life).
     */
    pinApiVersion(partnerId: string, latest: string): Effect.Effect<string, EventStore.EventStoreUnavailable>
    /** A new ClientSecret (shown once); the old one stops working at once. */
    rotateSecret(
      partnerId: Ids.PartnerId,
    ): Effect.Effect<Redacted.Redacted<string>, DomainError.NotFound | EventStore.EventStoreUnavailable>
    /** The operator's setting: URL and secret (no grace for a replaced secret); the subscribed types are kept. */
    setWebhook(
      partnerId: Ids.PartnerId,
      webhook: Webhook,
    ): Effect.Effect<void, DomainError.NotFound | EventStore.EventStoreUnavailable>
    /**
     * The partner's setting: URL, subscribed types and a new secret; the replaced secret (if any) keeps
     * signing until the instant answered (null: there was none).
     */
    rollWebhook(
      partnerId: Ids.PartnerId,
      roll: WebhookRoll,
    ): Effect.Effect<Date | null, DomainError.NotFound | EventStore.EventStoreUnavailable>
    /** The partner's webhook, for the dispatcher; None when the partner has none (or does not exist). */
    getWebhook(partnerId: Ids.PartnerId): Effect.Effect<Option.Option<Webhook>, EventStore.EventStoreUnavailable>
  }
>()("partnerpay/adapters-pg/Partners") {}

const partnerNotFound = new DomainError.NotFound({ entity: "Partner" })

/** The vault subject whose key seals a partner's webhook signing secret (not a person: never erased). */
export const webhookSubject = (partnerId: string): string => `partner-webhook:${partnerId}`

/**
 * Builds both services on the `SqlClient` in context, hashing with the `Pepper`
 * in context. (`_legacy` is accepted for compatibility and ignored: no scrypt
 * hash is written any more.)
 */
export const make = Traced.fn("PgPartnerCredentials.make")(function* (
  _legacy?: ScryptParams,
): Effect.fn.Return<
  { readonly credentials: PartnerCredentials.PartnerCredentials["Service"]; readonly partners: Partners["Service"] },
  EventStore.EventStoreUnavailable,
  SqlClient | PersonalData.PersonalDataVault
> {
  const sql = yield* SqlClient
  const pepper = yield* Pepper
  const vault = yield* PersonalData.PersonalDataVault
  // Checked when the ClientId is unknown, so both refusals take the same time.
  const unmatchable = unmatchableHash()

  const authenticate = Traced.fn("PgPartnerCredentials.authenticate")(function* (
    clientId: string,
    clientSecret: Redacted.Redacted<string>,
  ) {
    const rows = yield* sql<{ partner_id: string; secret_hash: string }>`
          SELECT partner_id, secret_hash FROM partners WHERE client_id = ${clientId}`
    const row = rows[0]
    const verdict = yield* verifySecret(clientSecret, row?.secret_hash ?? unmatchable, pepper)
    if (row === undefined || verdict === "mismatch") return Option.none()
    if (verdict === "legacy-match") {
      yield* sql`
            UPDATE partners SET secret_hash = ${hashSecret(clientSecret, pepper)}, updated_at = now()
            WHERE partner_id = ${row.partner_id}::uuid AND secret_hash = ${row.secret_hash}`
    }
    return Option.some({ partnerId: Ids.PartnerId.make(row.partner_id) })
  }, Effect.orDie)

  const create = Traced.fn("PgPartnerCredentials.create")(function* (input: { readonly name: string }) {
    const partnerId = Ids.PartnerId.make(crypto.randomUUID())
    const clientId = `pp_${randomBytes(12).toString("hex")}`
    const clientSecret = generateSecret()
    const hash = hashSecret(clientSecret, pepper)
    yield* sql`
          INSERT INTO partners (partner_id, name, client_id, secret_hash)
          VALUES (${partnerId}::uuid, ${input.name}, ${clientId}, ${hash})`
    return { partnerId, clientId, clientSecret }
  }, unavailable("partners create"))

  const upsertSandboxPartner: Partners["Service"]["upsertSandboxPartner"] = Traced.fn(
    "PgPartnerCredentials.upsertSandboxPartner",
  )(function* (input) {
    const hash = hashSecret(input.clientSecret, pepper)
    const partnerId = input.partnerId ?? crypto.randomUUID()
    const rows = yield* sql<{ partner_id: string }>`
          INSERT INTO partners (partner_id, name, client_id, secret_hash)
          VALUES (${partnerId}::uuid, ${input.name ?? "Sandbox partner"}, ${input.clientId}, ${hash})
          ON CONFLICT (client_id) DO UPDATE SET secret_hash = EXCLUDED.secret_hash, updated_at = now()
          RETURNING partner_id`
    const row = rows[0]
    if (row === undefined)
      return yield* new EventStore.EventStoreUnavailable({ reason: "partners upsert returned no row" })
    return Ids.PartnerId.make(row.partner_id)
  }, unavailable("partners upsert"))

  const rotateSecret = Traced.fn("PgPartnerCredentials.rotateSecret")(function* (partnerId: Ids.PartnerId) {
    const clientSecret = generateSecret()
    const hash = hashSecret(clientSecret, pepper)
    const rows = yield* sql<{ partner_id: string }>`
          UPDATE partners SET secret_hash = ${hash}, updated_at = now()
          WHERE partner_id = ${partnerId}::uuid RETURNING partner_id`
    if (rows.length === 0) return yield* partnerNotFound
    return clientSecret
  }, unavailable("partners rotate secret"))

  const any = () =>
    Effect.map(sql<{ one: number }>`SELECT 1 AS one FROM partners LIMIT 1`, (rows) => rows.length > 0).pipe(
      unavailable("partners any"),
    )

  const maxPinnedVersions = 10_000
  /** Pins already read, per partner (a pin never changes once set); bounded, the oldest goes first. */
  const pinnedVersions = new Map<string, string>()
  const pinApiVersion = (partnerId: string, latest: string) => {
    const cached = pinnedVersions.get(partnerId)
    if (cached !== undefined) return Effect.succeed(cached)
    // One statement: pins `latest` when none is set, and answers the pin either way.
    return Effect.map(
      sql<{ api_version: string | null }>`
        UPDATE partners SET api_version = COALESCE(api_version, ${latest})
        WHERE partner_id = ${partnerId}::uuid
        RETURNING api_version`,
      (rows) => {
        const version = rows[0]?.api_version ?? latest
        if (rows.length > 0) {
          if (pinnedVersions.size >= maxPinnedVersions)
            pinnedVersions.delete(pinnedVersions.keys().next().value as string)
          pinnedVersions.set(partnerId, version)
        }
        return version
      },
    ).pipe(unavailable("partners pin api version"))
  }

  const exists = (partnerId: Ids.PartnerId) =>
    Effect.map(
      sql<{ partner_id: string }>`SELECT partner_id FROM partners WHERE partner_id = ${partnerId}::uuid`,
      (rows) => rows.length > 0,
    ).pipe(unavailable("partners exists"))

  const setWebhook = Traced.fn("PgPartnerCredentials.setWebhook")(function* (
    partnerId: Ids.PartnerId,
    webhook: Webhook,
  ) {
    // An unknown partner gets no key in the vault.
    if (!(yield* exists(partnerId))) return yield* partnerNotFound
    const sealed = yield* vault.seal(webhookSubject(partnerId), Redacted.value(webhook.signingSecret))
    const rows = yield* sql<{ partner_id: string }>`
          UPDATE partners SET webhook_url = ${webhook.url}, webhook_secret_sealed = ${sealed}, webhook_secret = NULL,
                 webhook_previous_secret_sealed = NULL, webhook_previous_secret_expires_at = NULL, updated_at = now()
          WHERE partner_id = ${partnerId}::uuid RETURNING partner_id`
    if (rows.length === 0) return yield* partnerNotFound
  }, unavailable("partners set webhook"))

  const rollWebhook = Traced.fn("PgPartnerCredentials.rollWebhook")(function* (
    partnerId: Ids.PartnerId,
    roll: WebhookRoll,
  ) {
    if (!(yield* exists(partnerId))) return yield* partnerNotFound
    const sealed = yield* vault.seal(webhookSubject(partnerId), Redacted.value(roll.signingSecret))
    const types = roll.eventTypes === null ? null : JSON.stringify(roll.eventTypes)
    const graceSeconds = Math.max(0, roll.graceMillis) / 1000
    // The right-hand sides read the row before the update: the current sealed secret becomes the previous one
    // (same vault subject, so its ciphertext is moved as is).
    const rows = yield* sql<{ expires_at: Date | null }>`
          UPDATE partners SET webhook_url = ${roll.url}, webhook_event_types = ${types}::jsonb,
                 webhook_previous_secret_sealed = webhook_secret_sealed,
                 webhook_previous_secret_expires_at = CASE WHEN webhook_secret_sealed IS NULL THEN NULL
                   ELSE now() + make_interval(secs => ${graceSeconds}) END,
                 webhook_secret_sealed = ${sealed}, webhook_secret = NULL, updated_at = now()
          WHERE partner_id = ${partnerId}::uuid RETURNING webhook_previous_secret_expires_at AS expires_at`
    const row = rows[0]
    if (row === undefined) return yield* partnerNotFound
    return row.expires_at === null ? null : new Date(row.expires_at)
  }, unavailable("partners roll webhook"))

  /** The plaintext of a sealed secret; one that does not open is a defect (its key is gone, or a wrong master key). */
  const openSecret = Effect.fnUntraced(function* (partnerId: string, sealed: string) {
    const opened = yield* vault.open(webhookSubject(partnerId), sealed)
    if (Option.isNone(opened))
      return yield* Effect.die(new Error(`the webhook signing secret of partner ${partnerId} cannot be opened`))
    return opened.value
  })

  const getWebhook = Traced.fn("PgPartnerCredentials.getWebhook")(function* (partnerId: Ids.PartnerId) {
    const rows = yield* sql<{
      webhook_url: string | null
      webhook_secret: string | null
      webhook_secret_sealed: string | null
      webhook_event_types: ReadonlyArray<string> | string | null
      previous_sealed: string | null
      previous_expires_at: Date | null
    }>`SELECT webhook_url, webhook_secret, webhook_secret_sealed, webhook_event_types,
              CASE WHEN webhook_previous_secret_expires_at > now() THEN webhook_previous_secret_sealed END
                AS previous_sealed,
              webhook_previous_secret_expires_at AS previous_expires_at
       FROM partners WHERE partner_id = ${partnerId}::uuid`
    const row = rows[0]
    if (row?.webhook_url == null) return Option.none<Webhook>()
    // A plaintext secret is one an earlier version wrote (after the last sealing pass): it is the current one.
    const secret =
      row.webhook_secret !== null
        ? row.webhook_secret
        : row.webhook_secret_sealed !== null
          ? yield* openSecret(partnerId, row.webhook_secret_sealed)
          : undefined
    if (secret === undefined) return Option.none<Webhook>()
    const types = row.webhook_event_types
    const previous =
      row.previous_sealed === null || row.previous_expires_at === null
        ? undefined
        : {
            signingSecret: Redacted.make(yield* openSecret(partnerId, row.previous_sealed)),
            expiresAt: new Date(row.previous_expires_at),
          }
    return Option.some<Webhook>({
      url: row.webhook_url,
      signingSecret: Redacted.make(secret),
      eventTypes: types === null ? null : typeof types === "string" ? (JSON.parse(types) as Array<string>) : types,
      previous,
    })
  }, unavailable("partners get webhook"))

  yield* sealStoredSecrets(sql, vault)

  return {
    credentials: PartnerCredentials.PartnerCredentials.of({ authenticate }),
    partners: Partners.of({
      create,
      upsertSandboxPartner,
      exists,
      any,
      pinApiVersion,
      rotateSecret,
      setWebhook,
      rollWebhook,
      getWebhook,
    }),
  }
})

/**
 * Seals the webhook signing secrets still stored in plaintext (written before migration 0018, or by an
 * earlier version during a rolling upgrade) and clears the plaintext; answers how many. Each row is
 * updated only if its plaintext is still the one sealed, so instances starting together agree.
 */
export const sealStoredSecrets = Traced.fn("PgPartnerCredentials.sealStoredSecrets")(function* (
  sql: SqlClient,
  vault: PersonalData.PersonalDataVault["Service"],
) {
  const rows = yield* sql<{ partner_id: string; webhook_secret: string }>`
      SELECT partner_id, webhook_secret FROM partners WHERE webhook_secret IS NOT NULL`
  let sealed = 0
  for (const row of rows) {
    const value = yield* vault.seal(webhookSubject(row.partner_id), row.webhook_secret)
    const updated = yield* sql<{ partner_id: string }>`
        UPDATE partners SET webhook_secret_sealed = ${value}, webhook_secret = NULL
        WHERE partner_id = ${row.partner_id}::uuid AND webhook_secret = ${row.webhook_secret}
        RETURNING partner_id`
    sealed += updated.length
  }
  return sealed
}, unavailable("sealing stored webhook secrets"))

/**
 * `PartnerCredentials` and `Partners` on the `SqlClient` in context (migrations must have run), sealing webhook
 * signing secrets with the `PersonalDataVault` in context.
 */
export const layer = (
  _legacy?: ScryptParams,
): Layer.Layer<
  PartnerCredentials.PartnerCredentials | Partners,
  EventStore.EventStoreUnavailable,
  SqlClient | PersonalData.PersonalDataVault
> =>
  Layer.effectContext(
    Effect.map(make(), ({ credentials, partners }) =>
      Context.make(PartnerCredentials.PartnerCredentials, credentials).pipe(Context.add(Partners, partners)),
    ),
  )
