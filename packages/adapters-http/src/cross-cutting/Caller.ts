/**
 * Who is calling: the identity the bearer token proves. The `Authentication`
 * middleware provides it to every authenticated handler.
 *
 * A partner token is issued by POST /auth/token to a partner's ClientId and
 * ClientSecret; a customer token (an end user identified by a registration id,
 * acting through one partner) will be issued by the customer login flows.
 */
import { Ids } from "@partnerpay/domain"
import { Context, Schema } from "effect"

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
