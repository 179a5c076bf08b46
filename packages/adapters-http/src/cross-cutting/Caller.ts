/**
 * Who is calling: the identity the bearer token proves. The `Authentication`
 * middleware provides it to every authenticated handler.
 *
 * A partner token is issued by POST /auth/token to a partner's ClientId and
 * ClientSecret; a customer token (an end user identified by a registration id,
 * acting through one partner) will be issued by the customer login flows.
 */
import { Ids } from "@partnerpay/domain"
import { Context, type Result, Schema } from "effect"
import type { InvalidToken } from "./Tokens.ts"

export const PartnerCaller = Schema.TaggedStruct("Partner", {
  partnerId: Ids.PartnerId,
})
export type PartnerCaller = typeof PartnerCaller.Type

export const CustomerCaller = Schema.TaggedStruct("Customer", {
  partnerId: Ids.PartnerId,
  registrationId: Ids.RegistrationId,
})
export type CustomerCaller = typeof CustomerCaller.Type

export const CallerIdentity = Schema.Union([PartnerCaller, CustomerCaller])
export type CallerIdentity = typeof CallerIdentity.Type

/** The authenticated caller of the current request. */
export class Caller extends Context.Service<Caller, CallerIdentity>()("partnerpay/adapters-http/Caller") {}

/**
 * The bearer token verification already done for the current request: the
 * cross-cutting middleware (CallerResolution.ts, which needs the caller for rate
 * limits and idempotency scopes) verifies the token and provides this, and
 * the `Authentication` middleware reuses its outcome for the same token
 * instead of verifying it a second time (it verifies itself when absent, or
 * when the token it decoded differs). Request-scoped: provided around the
 * route, never shared between requests.
 */
export interface BearerVerification {
  readonly token: string
  readonly outcome: Result.Result<CallerIdentity, InvalidToken>
}

export const CurrentBearerVerification = Context.Reference<BearerVerification | undefined>(
  "partnerpay/adapters-http/CurrentBearerVerification",
  { defaultValue: () => undefined },
)
