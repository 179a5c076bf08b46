/** Handlers of the `customer` group: notification preferences and push tokens (customer tokens only). */
import { CustomerPreferences, Traced } from "@partnerpay/domain"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { requireCustomer } from "../cross-cutting/Authentication.ts"
import * as Problem from "../cross-cutting/Problem.ts"

export const CustomerLive = HttpApiBuilder.group(Api, "customer", (handlers) =>
  handlers
    .handle(
      "notifications",
      Traced.fn("CustomerLive.notifications")(function* () {
        const { partnerId, registrationId } = yield* requireCustomer
        return yield* CustomerPreferences.notificationPreferences(partnerId, registrationId)
      }, Problem.domainProblems),
    )
    .handle(
      "updateNotifications",
      Traced.fn("CustomerLive.updateNotifications")(function* ({ payload }) {
        const { partnerId, registrationId } = yield* requireCustomer
        return yield* CustomerPreferences.updateNotificationPreferences(partnerId, registrationId, payload)
      }, Problem.domainProblems),
    )
    .handle(
      "registerNotificationToken",
      Traced.fn("CustomerLive.registerNotificationToken")(function* ({ payload }) {
        const { partnerId, registrationId } = yield* requireCustomer
        yield* CustomerPreferences.registerPushToken(partnerId, registrationId, {
          token: payload.token,
          expireAt: payload.expireAt.value,
        })
      }, Problem.domainProblems),
    )
    .handle(
      "removeNotificationToken",
      Traced.fn("CustomerLive.removeNotificationToken")(function* ({ payload }) {
        const { partnerId, registrationId } = yield* requireCustomer
        yield* CustomerPreferences.removePushToken(partnerId, registrationId, payload.token)
      }, Problem.domainProblems),
    ),
)
