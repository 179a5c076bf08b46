/**
 * Every read model of the interface. Each projection module adds itself here;
 * the event pipeline keeps them all up to date in the append's unit of work.
 */
import type { AnyProjection } from "../ReadModel.ts"
import { projection as cardPayments } from "./CardPayments.ts"
import { projection as companies } from "./Companies.ts"
import { consents } from "./Consents.ts"
import { projection as customers } from "./Customers.ts"
import { projection as debitAuths } from "./DebitAuths.ts"
import { duePlans, paymentPlans } from "./PaymentPlans.ts"
import { projection as paymentRequests } from "./PaymentRequests.ts"
import { projection as transfers } from "./Transfers.ts"

export const all: ReadonlyArray<AnyProjection> = [
  paymentPlans,
  duePlans,
  consents,
  companies,
  paymentRequests,
  transfers,
  customers,
  debitAuths,
  cardPayments,
]
