/** Handlers of the `customer` group: notification preferences and push tokens (customer tokens only). */
import { CustomerPreferences } from "@partnerpay/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { requireCustomer } from "../Authentication.ts"
import * as Problem from "../Problem.ts"

export const CustomerLive = HttpApiBuilder.group(Api, "customer", (handlers) =>
  handlers
    .handle(
      "notifications",
      Effect.fn("CustomerLive.notifications")(function* () {
        const { partnerId, registrationId } = yield* requireCustomer
        return yield* CustomerPreferences.notificationPreferences(partnerId, registrationId).pipe(
          Effect.mapError(Problem.fromDomain),
        )
      }),
    )
    .handle(
      "updateNotifications",
      Effect.fn("CustomerLive.updateNotifications")(function* ({ payload }) {
        const { partnerId, registrationId } = yield* requireCustomer
        return yield* CustomerPreferences.updateNotificationPreferences(partnerId, registrationId, payload).pipe(
          Effect.mapError(Problem.fromDomain),
        )
      }),
    )
    .handle(
      "registerNotificationToken",
      Effect.fn("CustomerLive.registerNotificationToken")(function* ({ payload }) {
        const { partnerId, registrationId } = yield* requireCustomer
        yield* CustomerPreferences.registerPushToken(partnerId, registrationId, {
          token: payload.token,
          expireAt: payload.expireAt.value,
        }).pipe(Effect.mapError(Problem.fromDomain))
      }),
    )
    .handle(
      "removeNotificationToken",
      Effect.fn("CustomerLive.removeNotificationToken")(function* ({ payload }) {
        const { partnerId, registrationId } = yield* requireCustomer
        yield* CustomerPreferences.removePushToken(partnerId, registrationId, payload.token).pipe(
          Effect.mapError(Problem.fromDomain),
        )
      }),
    ),
)
