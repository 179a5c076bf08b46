/**
 * Dwolla's webhook subscription, made at start when missing: with
 * `PARTNERPAY_DWOLLA_WEBHOOK_URL` set (this service's public
 * `https://.../ProviderWebhooks/Dwolla`), the service lists the application's
 * subscriptions (`GET /webhook-subscriptions`) and creates one for that URL
 * with the webhook secret (`POST /webhook-subscriptions`) when none has it.
 * A subscription Dwolla paused (after too many failed deliveries) is reported,
 * not changed. Failures are logged, never fatal: the operator can create the
 * subscription by hand (docs/providers.md).
 */
import { Traced } from "@partnerpay/domain"
import { Effect, Redacted } from "effect"
import * as DwollaClient from "./DwollaClient.ts"

/** Creates the subscription for `url` when the application has none; what was done. */
export const ensure = Traced.fn("DwollaSubscription.ensure")(function* (
  config: DwollaClient.DwollaConfig,
  url: string,
) {
  const dwolla = DwollaClient.client(config)
  const listed = yield* DwollaClient.call("webhook subscriptions", () => dwolla.webhookSubscriptions.list())
  const subscriptions = listed.embedded?.webhookSubscriptions ?? []
  const existing = subscriptions.find((subscription) => subscription.url === url)
  if (existing !== undefined) return existing.paused === true ? ("paused" as const) : ("present" as const)
  yield* DwollaClient.call("create webhook subscription", () =>
    dwolla.webhookSubscriptions.create({ url, secret: Redacted.value(config.webhookSecret) }),
  )
  return "created" as const
})

/** `ensure`, logged: never fails (the start goes on). */
export const ensureLogged = (config: DwollaClient.DwollaConfig, url: string) =>
  ensure(config, url).pipe(
    Effect.tap((outcome) =>
      outcome === "paused"
        ? Effect.logWarning("the Dwolla webhook subscription is paused: unpause it in Dwolla", { url })
        : Effect.logInfo(`Dwolla webhook subscription ${outcome}`, { url }),
    ),
    Effect.catch((error) =>
      Effect.logWarning("the Dwolla webhook subscription could not be checked (create it by hand)", {
        reason: error.message,
      }),
    ),
    Effect.asVoid,
  )
