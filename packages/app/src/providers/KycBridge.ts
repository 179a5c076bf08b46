/**
 * `KycProvider` over the HTTP bridge (docs/providers.md, "KYC").
 *
 * - `start` `{ registrationId, tokenId, deviceId, phoneNumber }` -> `{ linkToken, expiration }`
 * - `check` `{ registrationId, tokenId }` -> `{ status, referenceId, redirectUrl }`; 404: unknown session
 * - `personal-data` `{ referenceId }` -> the person (`ssnLastFourDigits` only, never a full SSN); 404: unknown
 */
import { CalendarDate, CustomerProviders } from "@partnerpay/domain"
import { Effect, type Layer, Schema } from "effect"
import * as HttpBridge from "./HttpBridge.ts"

const Session = Schema.Struct({ linkToken: Schema.String, expiration: Schema.DateTimeUtcFromString })
const Check = Schema.Struct({
  status: Schema.Literals(["Pending", "Verified", "Rejected"]),
  referenceId: Schema.String,
  redirectUrl: Schema.String,
})
const Person = Schema.Struct({
  profileName: Schema.optional(Schema.String),
  firstName: Schema.String,
  lastName: Schema.String,
  birthDate: CalendarDate.CalendarDate,
  ssnLastFourDigits: Schema.String.check(Schema.isPattern(/^\d{4}$/)),
  emailAddress: Schema.String,
  phoneNumber: Schema.String.check(Schema.isPattern(/^\+[1-9]\d{6,14}$/)),
})

const notFound = (tokenId: string) => () => Effect.fail(new CustomerProviders.KycSessionNotFound({ tokenId }))

export const make = (bridge: HttpBridge.Bridge) =>
  CustomerProviders.KycProvider.of({
    start: (request) => Effect.flatMap(bridge.call("start", request), HttpBridge.expect(bridge, "start", Session)),
    check: (request) =>
      Effect.flatMap(
        bridge.call("check", request),
        HttpBridge.expect(bridge, "check", Check, { 404: notFound(request.tokenId) }),
      ),
    personalData: (referenceId) =>
      bridge.call("personal-data", { referenceId }).pipe(
        Effect.flatMap(HttpBridge.expect(bridge, "personal-data", Person, { 404: notFound(referenceId) })),
        Effect.map((person) => ({ ...person, profileName: person.profileName ?? "" })),
      ),
  })

export const layer = (config: HttpBridge.BridgeConfig): Layer.Layer<CustomerProviders.KycProvider> =>
  HttpBridge.layer(CustomerProviders.KycProvider, "KYC provider", config, make)
