/**
 * Every read model of the interface. Each projection module adds itself here;
 * the event pipeline keeps them all up to date in the append's unit of work.
 */

import { projection as cardPayments } from "./cards-and-charity/CardPaymentsProjection.ts"
import { projection as companies } from "./companies/CompaniesProjection.ts"
import { projection as customers } from "./customers/CustomersProjection.ts"
import type { AnyProjection } from "./infrastructure/ReadModel.ts"
import { projection as paymentNotices } from "./notifications/PaymentNoticesProjection.ts"
import { projection as debitAuths } from "./payments/DebitAuthsProjection.ts"
import { dueForAutomaticCollection, projection as paymentRequests } from "./payments/PaymentRequestsProjection.ts"
import { projection as transfers } from "./payments/TransfersProjection.ts"
import { consents } from "./plans/ConsentsProjection.ts"
import { duePlans, paymentPlans } from "./plans/PaymentPlansProjection.ts"

export const all: ReadonlyArray<AnyProjection> = [
  paymentPlans,
  duePlans,
  consents,
  companies,
  paymentRequests,
  dueForAutomaticCollection,
  transfers,
  customers,
  debitAuths,
  cardPayments,
  paymentNotices,
]
