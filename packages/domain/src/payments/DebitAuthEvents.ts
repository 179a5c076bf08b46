/**
 * Events of a debit authorization: a payer's standing permission for one
 * company to debit their bank account up to a limit per debit (like a card on
 * file). Every event names the partner, company and payer (registration id),
 * so read models (GET /DebitAuth/List, GET /User/{registrationId}/DebitAuth)
 * are built from events alone.
 */
import { Schema } from "effect"
import { unionOf } from "../kernel/EventSchema.ts"
import { CompanyId, DebitAuthId, PartnerId, PaymentRequestId, RegistrationId } from "../kernel/Ids.ts"
import { Money } from "../kernel/Money.ts"
import { AuthorizationEvidence } from "./AuthorizationEvidence.ts"

/**
 * The evidence of the payer's authorization, on the events the payer causes (absent on older events):
 * spread into those events, picked from them by the state (`Payload.pick`).
 */
export const PayerEvidence = Schema.Struct({ authorization: Schema.optionalKey(AuthorizationEvidence) })

/** Who a debit authorization binds: it, its partner, the company it lets debit and the payer. */
export const DebitAuthParties = Schema.Struct({
  debitAuthId: DebitAuthId,
  partnerId: PartnerId,
  companyId: CompanyId,
  registrationId: RegistrationId,
})
export type DebitAuthParties = typeof DebitAuthParties.Type

/**
 * Every event of a debit authorization, by its tag (the codec of its stream). Each names its parties
 * and the instant `at`.
 */
export const DebitAuthEvent = unionOf(DebitAuthParties.fields, {
  /** The payer authorized the company to debit up to `limit` per debit; the authorization starts enabled. */
  DebitAuthSet: { ...PayerEvidence.fields, limit: Money },
  /** The limit per debit changed from `previousLimit` to `limit`. */
  DebitAuthLimitUpdated: { ...PayerEvidence.fields, previousLimit: Money, limit: Money },
  /** A disabled authorization was enabled again: debits within the limit are authorized. */
  DebitAuthEnabled: PayerEvidence.fields,
  /** The authorization was disabled: no debit is authorized until it is enabled again. */
  DebitAuthDisabled: {},
  /** A debit of `amount` for a payment request was authorized under the limit in force (`limit`). */
  DebitAuthorized: { paymentRequestId: PaymentRequestId, amount: Money, limit: Money },
  /**
   * The payer's bank said a debit under this authorization was not authorized (an unauthorized ACH
   * return such as R07 or R10, `ReturnConsequences.ts`): the authorization is Revoked, no debit is
   * authorized under it, and only a new authorization by the payer (`DebitAuthSet`) restores it.
   */
  DebitAuthRevoked: { returnCode: Schema.String, reason: Schema.String },
})
export type DebitAuthEvent = typeof DebitAuthEvent.Type

/** The debit authorization event tagged `Tag`. */
export type Of<Tag extends DebitAuthEvent["_tag"]> = Extract<DebitAuthEvent, { readonly _tag: Tag }>

export const {
  DebitAuthSet,
  DebitAuthLimitUpdated,
  DebitAuthEnabled,
  DebitAuthDisabled,
  DebitAuthorized,
  DebitAuthRevoked,
} = DebitAuthEvent.cases
