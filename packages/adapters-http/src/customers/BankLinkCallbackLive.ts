/** Handler of `POST /BankLinkWebhook/UpdateItem`: verify the provider's notification, then act on it. */
import { BankLinkNotices, CustomerProviders, Traced } from "@partnerpay/domain"
import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { ServiceUnavailable, Unauthorized } from "../cross-cutting/Problem.ts"

const unavailable = () =>
  new ServiceUnavailable({
    detail: "The notification could not be recorded; deliver it again later.",
    code: "SERVICE_UNAVAILABLE",
  })

export const BankLinkCallbackLive = HttpApiBuilder.group(Api, "bankLinkCallbacks", (handlers) =>
  handlers.handle(
    "bankLinkUpdateItem",
    Traced.fn("BankLinkCallbackLive.updateItem")(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const body = yield* Effect.mapError(request.text, unavailable)
      const notifications = yield* CustomerProviders.BankLinkCallbacks
      const notification = yield* notifications.verify({ body, headers: request.headers }).pipe(
        Effect.catchTag("BankLinkCallbackRefused", (refused) =>
          Effect.andThen(
            Effect.logWarning("bank-link notification refused", { reason: refused.reason }),
            Effect.fail(new Unauthorized({ detail: "The notification cannot be verified.", code: "UNAUTHORIZED" })),
          ),
        ),
        Effect.catchTag("ProviderUnavailable", (failure) =>
          Effect.andThen(
            Effect.logWarning("bank-link notification not verified", { reason: failure.message }),
            Effect.fail(unavailable()),
          ),
        ),
      )
      const received = yield* BankLinkNotices.receive(notification).pipe(
        Effect.tapError((failure) =>
          Effect.logWarning("bank-link notification not recorded", { error: failure._tag, reason: failure.message }),
        ),
        Effect.mapError(unavailable),
      )
      yield* Effect.logInfo("bank-link notification", { action: notification.action, outcome: received })
    }),
  ),
)
