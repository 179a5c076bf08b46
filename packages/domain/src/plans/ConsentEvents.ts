/**
 * Events of the Consent aggregate: a payer's consent to a company's recurring
 * payment plan (spec 3.2). Every event names the consent, its plan, the
 * partner, the company and the payer, and the instant it happened, so read
 * models (consent list, single consent, plan policy) need nothing else.
 */
import { Schema } from "effect"
import { eventsOf } from "../kernel/EventSchema.ts"
import * as Ids from "../kernel/Ids.ts"
import * as Money from "../kernel/Money.ts"
import { AuthorizationEvidence } from "../payments/index.ts"
import { Frequency } from "./PaymentPlanSchedule.ts"

/** The ids every consent event carries: the consent, its plan, the partner, the company and the payer. */
const consentIds = {
  consentId: Ids.ConsentId,
  paymentPlanId: Ids.PaymentPlanId,
  partnerId: Ids.PartnerId,
  companyId: Ids.CompanyId,
  payerRegistrationId: Ids.RegistrationId,
}

/** Every consent event names `consentIds`, and the instant `at`. */
const consentEvent = eventsOf(consentIds)

/** What a consent asks for beyond its ids: the plan's amount and frequency. */
const asked = { amount: Money.Money, frequency: Frequency }

/** What a consent is about, fixed when it is requested: the plan, its parties, its amount and frequency. */
export const ConsentTerms = Schema.Struct({ ...consentIds, ...asked })
export type ConsentTerms = typeof ConsentTerms.Type

/** The company asked the payer to consent to a plan of `amount` every `frequency`; the consent is Pending. */
export const ConsentRequested = consentEvent("ConsentRequested", asked)
export type ConsentRequested = typeof ConsentRequested.Type

/** The payer accepted, naming the bank account to debit; the consent is Accepted. */
export const ConsentAccepted = consentEvent("ConsentAccepted", {
  bankAccountId: Ids.BankAccountId,
  /** The evidence of the payer's authorization (absent on consents accepted before it was recorded). */
  authorization: Schema.optionalKey(AuthorizationEvidence.AuthorizationEvidence),
})
export type ConsentAccepted = typeof ConsentAccepted.Type

/** The payer declined a Pending consent; the consent is Declined (terminal). */
export const ConsentDeclined = consentEvent("ConsentDeclined")
export type ConsentDeclined = typeof ConsentDeclined.Type

/**
 * The payer declined an Accepted consent, or their bank returned a debit to the company as
 * unauthorized (`returnCode`, e.g. R10: `ReturnConsequences.ts`); the consent is Revoked (terminal).
 */
export const ConsentRevoked = consentEvent("ConsentRevoked", {
  bankAccountId: Ids.BankAccountId,
  /** Present when an unauthorized return revoked it (absent: the payer declined). */
  returnCode: Schema.optionalKey(Schema.String),
})
export type ConsentRevoked = typeof ConsentRevoked.Type

/** Every event of a consent; the codec of its stream. */
export const ConsentEvent = Schema.Union([ConsentRequested, ConsentAccepted, ConsentDeclined, ConsentRevoked])
export type ConsentEvent = typeof ConsentEvent.Type
