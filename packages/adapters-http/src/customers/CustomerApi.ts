/**
 * A customer's own settings (spec 2.13, section 4): notification preferences
 * and device push tokens. Every operation is for a customer token; a partner
 * token gets 403.
 *
 * PUT /Customer/Notifications is an addition: the interface shows only the
 * GET, but preferences that can be read and never set would be useless. It
 * takes any subset of the eight switches and answers the complete set.
 */
import { Customer } from "@partnerpay/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication } from "../cross-cutting/Authentication.ts"
import * as Problem from "../cross-cutting/Problem.ts"

/** Spec 2.13: the eight switches. */
export const NotificationPreferencesResponse = Customer.NotificationPreferences

/** Any subset of the eight switches. */
export const NotificationPreferencesUpdate = Customer.NotificationPreferences.mapFields(Struct.map(Schema.optionalKey))

export const NotificationTokenRequest = Schema.Struct({
  token: Schema.String.annotate({ description: "The device's push token (at most 4096 characters)" }),
  expireAt: Schema.Struct({
    value: Schema.DateTimeUtcFromString.annotate({
      description: "ISO 8601 instant; must be in the future",
      format: "date-time",
    }),
  }),
})

export const NotificationTokenRemoval = Schema.Struct({
  token: Schema.String,
})

export class CustomerApi extends HttpApiGroup.make("customer")
  .add(
    HttpApiEndpoint.get("notifications", "/Customer/Notifications", {
      success: NotificationPreferencesResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Read notification preferences",
        description: "The customer's notification switches. A new customer gets payment messages on, news off.",
      }),
    ),
    HttpApiEndpoint.put("updateNotifications", "/Customer/Notifications", {
      payload: NotificationPreferencesUpdate,
      success: NotificationPreferencesResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Change notification preferences",
        description:
          "Addition to the interface: sets the given switches (the others keep their value) and answers the complete set.",
      }),
    ),
    HttpApiEndpoint.post("registerNotificationToken", "/Customer/NotificationToken", {
      payload: NotificationTokenRequest,
      success: HttpApiSchema.Empty(200),
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Register a push token",
        description:
          "Registers the device token (or refreshes its expiry). At most 20 tokens per customer: one more drops the least recently registered.",
      }),
    ),
    HttpApiEndpoint.delete("removeNotificationToken", "/Customer/NotificationToken", {
      payload: NotificationTokenRemoval,
      success: HttpApiSchema.Empty(200),
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Remove a push token",
        description: "Removes the device token. Idempotent: an unknown or already removed token also answers 200.",
      }),
    ),
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Customer", description: "A customer's notification settings" })) {}
