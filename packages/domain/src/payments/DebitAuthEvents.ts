/**
 * Events of a debit authorization: a payer's standing permission for one
 * company to debit their bank account up to a limit per debit (like a card on
 * file). Every event names the partner, company and payer (registration id),
 * so read models (GET /DebitAuth/List, GET /User/{registrationId}/DebitAuth)
 * are built from events alone.
 */
import { Schema } from "effect"
import { eventsOf } from "../kernel/EventSchema.ts"
import { CompanyId, DebitAuthId, PartnerId, PaymentRequestId, RegistrationId } from "../kernel/Ids.ts"
import { Money } from "../kernel/Money.ts"
import { AuthorizationEvidence } from "./AuthorizationEvidence.ts"

/** The evidence of the payer's authorization, on the events the payer causes (absent on older events). */
const evidence = { authorization: Schema.optionalKey(AuthorizationEvidence) }

/** Who a debit authorization binds: it, its partner, the company it lets debit and the payer. */
export const DebitAuthParties = Schema.Struct({
  debitAuthId: DebitAuthId,
  partnerId: PartnerId,
  companyId: CompanyId,
  registrationId: RegistrationId,
})
export type DebitAuthParties = typeof DebitAuthParties.Type

/** Every debit authorization event names its parties, and the instant `at`. */
const debitAuthEvent = eventsOf(DebitAuthParties.fields)

/** The payer authorized the company to debit up to `limit` per debit; the authorization starts enabled. */
export const DebitAuthSet = debitAuthEvent("DebitAuthSet", {
  ...evidence,
  limit: Money,
})
export type DebitAuthSet = typeof DebitAuthSet.Type

/** The limit per debit changed from `previousLimit` to `limit`. */
export const DebitAuthLimitUpdated = debitAuthEvent("DebitAuthLimitUpdated", {
  ...evidence,
  previousLimit: Money,
  limit: Money,
})
export type DebitAuthLimitUpdated = typeof DebitAuthLimitUpdated.Type

/** A disabled authorization was enabled again: debits within the limit are authorized. */
export const DebitAuthEnabled = debitAuthEvent("DebitAuthEnabled", { ...evidence })
export type DebitAuthEnabled = typeof DebitAuthEnabled.Type

/** The authorization was disabled: no debit is authorized until it is enabled again. */
export const DebitAuthDisabled = debitAuthEvent("DebitAuthDisabled")
export type DebitAuthDisabled = typeof DebitAuthDisabled.Type

/** A debit of `amount` for a payment request was authorized under the limit in force (`limit`). */
export const DebitAuthorized = debitAuthEvent("DebitAuthorized", {
  paymentRequestId: PaymentRequestId,
  amount: Money,
  limit: Money,
})
export type DebitAuthorized = typeof DebitAuthorized.Type

/**
 * The payer's bank said a debit under this authorization was not authorized (an unauthorized ACH
 * return such as R07 or R10, `ReturnConsequences.ts`): the authorization is Revoked, no debit is
 * authorized under it, and only a new authorization by the payer (`DebitAuthSet`) restores it.
 */
export const DebitAuthRevoked = debitAuthEvent("DebitAuthRevoked", {
  returnCode: Schema.String,
  reason: Schema.String,
})
export type DebitAuthRevoked = typeof DebitAuthRevoked.Type

export const DebitAuthEvent = Schema.Union([
  DebitAuthSet,
  DebitAuthLimitUpdated,
  DebitAuthEnabled,
  DebitAuthDisabled,
  DebitAuthorized,
  DebitAuthRevoked,
])
export type DebitAuthEvent = typeof DebitAuthEvent.Type
