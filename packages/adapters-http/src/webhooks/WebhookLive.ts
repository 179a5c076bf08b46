/** Handlers of the `webhooks` group: authenticated HEAD probes answer 200 with no body. */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"

export const WebhookLive = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  handlers.handle("saleProviderProbe", () => Effect.void).handle("bankLinkProbe", () => Effect.void),
)
