/**
 * Where personal data is, for the whole domain: the registry the protected
 * stores use (`infrastructure/PersonalData.ts`), composed from the areas'
 * declarations. Events, snapshots and documents not listed hold none.
 *
 * The authorization evidence (`authorization` on the events and documents of
 * payer authorizations) is sealed under its own retention key
 * (`AuthorizationEvidenceRetention.ts`), not the customer's: an erasure keeps
 * it; its purge two years after `acceptedAt` destroys it.
 */
import * as CompaniesProjection from "../companies/CompaniesProjection.ts"
import * as CompanyPersonalData from "../companies/CompanyPersonalData.ts"
import * as CustomerPersonalData from "../customers/CustomerPersonalData.ts"
import * as CustomersProjection from "../customers/CustomersProjection.ts"
import type { FieldsOf, PersonalFields } from "../infrastructure/PersonalData.ts"
import * as AuthorizationEvidenceRetention from "../payments/AuthorizationEvidenceRetention.ts"
import * as DebitAuthsProjection from "../payments/DebitAuthsProjection.ts"
import * as PaymentPersonalData from "../payments/PaymentPersonalData.ts"
import * as PaymentRequestsProjection from "../payments/PaymentRequestsProjection.ts"
import * as TransfersProjection from "../payments/TransfersProjection.ts"
import * as ConsentsProjection from "../plans/ConsentsProjection.ts"

const evidence = AuthorizationEvidenceRetention.fieldsOf

/** The evidence of a card payment awaiting its authentication (`payment.authorization`, the payer's). */
const awaitedEvidence: FieldsOf = (data, streamId) => {
  const payment = data.payment
  if (typeof payment !== "object" || payment === null) return []
  return evidence(payment as Record<string, unknown>, streamId).map((found) => ({
    ...found,
    paths: found.paths.map((path) => `payment.${path}`),
  }))
}

export const fields: PersonalFields = {
  events: {
    Company: CompanyPersonalData.events,
    Customer: { ...CustomerPersonalData.customerEvents, DefaultBankAccountSet: evidence },
    LoginChallenge: CustomerPersonalData.loginChallengeEvents,
    Transfer: PaymentPersonalData.transferEvents,
    PaymentRequest: { PaymentRequestAccepted: evidence, PaymentRequestPaidByCard: evidence },
    CardAuthentication: { CardAuthenticationRequired: awaitedEvidence, CardAuthenticationSucceeded: awaitedEvidence },
    Consent: { ConsentAccepted: evidence },
    DebitAuth: { DebitAuthSet: evidence, DebitAuthLimitUpdated: evidence, DebitAuthEnabled: evidence },
    CharityTransaction: { AnonymousCharityTransactionCreated: evidence },
  },
  snapshots: {
    Customer: AuthorizationEvidenceRetention.both(
      CustomerPersonalData.customerSnapshot,
      AuthorizationEvidenceRetention.fieldsAt("autopayAuthorization"),
    ),
  },
  documents: {
    [CompaniesProjection.collection]: CompanyPersonalData.companyDocument,
    [CustomersProjection.collection]: CustomerPersonalData.customerDocument,
    [TransfersProjection.collection]: PaymentPersonalData.transferDocument,
    [PaymentRequestsProjection.collection]: evidence,
    [ConsentsProjection.consents.collection]: evidence,
    [DebitAuthsProjection.collection]: evidence,
  },
}
