/**
 * Where personal data is, for the whole domain: the registry the protected
 * stores use (`infrastructure/PersonalData.ts`), composed from the areas'
 * declarations. Events, snapshots and documents not listed hold none.
 */
import * as CompaniesProjection from "../companies/CompaniesProjection.ts"
import * as CompanyPersonalData from "../companies/CompanyPersonalData.ts"
import * as CustomerPersonalData from "../customers/CustomerPersonalData.ts"
import * as CustomersProjection from "../customers/CustomersProjection.ts"
import type { PersonalFields } from "../infrastructure/PersonalData.ts"
import * as PaymentPersonalData from "../payments/PaymentPersonalData.ts"
import * as TransfersProjection from "../payments/TransfersProjection.ts"

export const fields: PersonalFields = {
  events: {
    Company: CompanyPersonalData.events,
    Customer: CustomerPersonalData.customerEvents,
    LoginChallenge: CustomerPersonalData.loginChallengeEvents,
    Transfer: PaymentPersonalData.transferEvents,
  },
  snapshots: { Customer: CustomerPersonalData.customerSnapshot },
  documents: {
    [CompaniesProjection.collection]: CompanyPersonalData.companyDocument,
    [CustomersProjection.collection]: CustomerPersonalData.customerDocument,
    [TransfersProjection.collection]: PaymentPersonalData.transferDocument,
  },
}
