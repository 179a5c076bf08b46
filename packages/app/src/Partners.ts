/**
 * The sandbox partner bootstrap: when PARTNERPAY_ENV=sandbox and
 * PARTNERPAY_SANDBOX_CLIENT_ID/_CLIENT_SECRET are set, that partner exists
 * after start (created once; a changed secret replaces the old one at once),
 * with the webhook URL and signing secret when set (a URL without a secret
 * keeps the secret stored earlier, else gets one generated: every delivery is
 * signed; the partner reads it with `GET /Webhooks/Endpoint`). Its PartnerId is derived
 * from the ClientId, so it is the same on every database. Unsetting the
 * webhook variables does not remove a webhook stored earlier.
 */
import { createHash } from "node:crypto"
import { PgPartnerCredentials, PgWebhookLog } from "@partnerpay/adapters-pg"
import { Ids } from "@partnerpay/domain"
import { Effect, Layer, Option, Redacted } from "effect"
import type { AppConfig } from "./Config.ts"

/** A UUID v4-shaped id derived from the ClientId. */
export const sandboxPartnerId = (clientId: string): Ids.PartnerId => {
  const hex = createHash("sha256").update(`partnerpay-sandbox-partner:${clientId}`).digest("hex")
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)
  return Ids.PartnerId.make(
    `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`,
  )
}

export const bootstrap = (config: AppConfig) =>
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
