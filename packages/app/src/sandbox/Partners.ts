/**
 * The sandbox partner bootstrap: when PARTNERPAY_ENV=sandbox and
 * PARTNERPAY_SANDBOX_CLIENT_ID/_CLIENT_SECRET are set, that partner exists
 * after start (created once; a changed secret replaces the old one at once),
 * with the webhook URL and signing secret when set (a URL without a secret
 * keeps the secret stored earlier, else gets one generated: every delivery is
 * signed; the partner reads it with `GET /Webhooks/Endpoint`). Its PartnerId is derived
 * from the ClientId, so it is the same on every database. Unsetting the
 * webhook variables does not remove a webhook stored earlier.
 *
 * The first start: in a sandbox without those variables, on a database that
 * has no partner yet, a sandbox partner is created with generated
 * credentials, kept in `<PARTNERPAY_DATA_DIR>/sandbox-partner.json` (owner
 * read/write only; its content is the body of `POST /auth/token`, so
 * `curl -d @file` gets a token), and announced once with a token `curl`. Later
 * starts find the file and keep that partner (on a new database too), and
 * announce the file, never the secret again.
 */
import { createHash, randomBytes } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { PgPartnerCredentials, PgWebhookLog } from "@partnerpay/adapters-pg"
import { Ids, Traced } from "@partnerpay/domain"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import type { AppConfig } from "../config/Config.ts"

/** A UUID v4-shaped id derived from the ClientId. */
export const sandboxPartnerId = (clientId: string): Ids.PartnerId => {
  const hex = createHash("sha256").update(`partnerpay-sandbox-partner:${clientId}`).digest("hex")
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)
  return Ids.PartnerId.make(
    `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`,
  )
}

/** The sandbox partner of a first start, for the start announcement (`Service.ts`). */
export interface FirstStartPartner {
  readonly clientId: string
  /** The generated secret: only when it was created by this start (shown once). */
  readonly clientSecret: Option.Option<Redacted.Redacted<string>>
  /** The credentials file (absolute path), the body of `POST /auth/token`. */
  readonly file: string
}

/** The first-start partner, when this start made or found one (else None). */
export const FirstStart = Context.Reference<Option.Option<FirstStartPartner>>("partnerpay/app/FirstStart", {
  defaultValue: () => Option.none(),
})

/** Where a first start keeps its sandbox partner's credentials. */
export const firstStartFile = (dataDir: string): string => resolve(join(dataDir, "sandbox-partner.json"))

const readCredentials = (file: string): { readonly ClientId: string; readonly ClientSecret: string } | undefined => {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as { ClientId?: unknown; ClientSecret?: unknown }
    return typeof parsed.ClientId === "string" && typeof parsed.ClientSecret === "string"
      ? { ClientId: parsed.ClientId, ClientSecret: parsed.ClientSecret }
      : undefined
  } catch {
    return undefined
  }
}

/** The first start's partner: kept from the file, or created when the database has no partner at all. */
const firstStart = Traced.fn("Partners.firstStart")(function* (dataDir: string) {
  const partners = yield* PgPartnerCredentials.Partners
  const file = firstStartFile(dataDir)
  const kept = existsSync(file) ? readCredentials(file) : undefined
  if (kept !== undefined) {
    yield* partners.upsertSandboxPartner({
      clientId: kept.ClientId,
      clientSecret: Redacted.make(kept.ClientSecret),
      partnerId: sandboxPartnerId(kept.ClientId),
    })
    return Option.some<FirstStartPartner>({ clientId: kept.ClientId, clientSecret: Option.none(), file })
  }
  if (yield* partners.any()) return Option.none<FirstStartPartner>()
  const clientId = `sandbox-${randomBytes(6).toString("hex")}`
  const clientSecret = randomBytes(24).toString("base64url")
  yield* partners.upsertSandboxPartner({
    clientId,
    clientSecret: Redacted.make(clientSecret),
    partnerId: sandboxPartnerId(clientId),
  })
  mkdirSync(dataDir, { recursive: true })
  writeFileSync(file, `${JSON.stringify({ ClientId: clientId, ClientSecret: clientSecret }, null, 2)}\n`, {
    mode: 0o600,
  })
  return Option.some<FirstStartPartner>({ clientId, clientSecret: Option.some(Redacted.make(clientSecret)), file })
})

/** The sandbox partner of the configuration, or of a first start (`FirstStart` tells which, for the announcement). */
export const bootstrap = (config: AppConfig) =>
  Layer.unwrap(
    Effect.gen(function* () {
      if (config.environment !== "sandbox" || Option.isSome(config.sandboxPartner)) return configured(config)
      const found = yield* firstStart(config.dataDir)
      return Layer.succeed(FirstStart, found)
    }),
  )

const configured = (config: AppConfig) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      if (Option.isNone(config.sandboxPartner)) return
      const partner = config.sandboxPartner.value
      const partners = yield* PgPartnerCredentials.Partners
      const partnerId = yield* partners.upsertSandboxPartner({
        clientId: partner.clientId,
        clientSecret: partner.clientSecret,
        partnerId: sandboxPartnerId(partner.clientId),
        name: "Sandbox partner",
      })
      if (Option.isSome(partner.webhookUrl)) {
        // No secret configured: keep the one stored (generated) before, so it does not change at each start.
        const stored = Option.isSome(partner.webhookSecret) ? Option.none() : yield* partners.getWebhook(partnerId)
        const signingSecret = Option.isSome(partner.webhookSecret)
          ? partner.webhookSecret.value
          : Option.match(stored, {
              onNone: PgWebhookLog.generateSigningSecret,
              onSome: (webhook) =>
                Redacted.value(webhook.signingSecret) === ""
                  ? PgWebhookLog.generateSigningSecret()
                  : webhook.signingSecret,
            })
        yield* partners.setWebhook(partnerId, { url: partner.webhookUrl.value, signingSecret })
      }
      yield* Effect.logInfo("sandbox partner ready", {
        partnerId,
        clientId: partner.clientId,
        webhook: Option.getOrNull(partner.webhookUrl),
        signed: true,
      })
    }),
  )
