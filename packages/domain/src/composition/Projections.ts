/**
 * Every read model of the interface. Each projection module adds itself here;
 * the event pipeline keeps them all up to date in the append's unit of work.
 * Each area's projection reads its own streams' envelopes; `reading` checks
 * that they are envelopes of this domain (`DomainEvents.Envelope`).
 */

import { projection as cardPayments } from "../cards-and-charity/CardPaymentsProjection.ts"
import { projection as cardRefundRetries } from "../cards-and-charity/CardRefundRetriesProjection.ts"
import { projection as charityGiftsDue } from "../cards-and-charity/CharityGiftsDueProjection.ts"
import { projection as sandboxCardDisputes } from "../cards-and-charity/SandboxDisputesProjection.ts"
import { projection as companies } from "../companies/CompaniesProjection.ts"
import { projection as customers } from "../customers/CustomersProjection.ts"
import type { AnyProjection, Projection } from "../infrastructure/ReadModel.ts"
import { projection as paymentNotices } from "../notifications/PaymentNoticesProjection.ts"
import { projection as debitAuths } from "../payments/DebitAuthsProjection.ts"
import { dueForAutoCollection, projection as paymentRequests } from "../payments/PaymentRequestsProjection.ts"
import { projection as transfers } from "../payments/TransfersProjection.ts"
import { projection as balances } from "../payouts/BalancesProjection.ts"
import { projection as ledgerEntries } from "../payouts/LedgerEntriesProjection.ts"
import { projection as payouts } from "../payouts/PayoutsProjection.ts"
import { projection as ledgerPostings, returnFees as ledgerReturnFees } from "../payouts/PostingsProjection.ts"
import { consents } from "../plans/ConsentsProjection.ts"
import { duePlans, paymentPlans } from "../plans/PaymentPlansProjection.ts"

import type * as DomainEvents from "./DomainEvents.ts"

/** A projection over some of the domain's envelopes, for the registry (the pipeline routes by stream type). */
const reading = <Doc, Env extends DomainEvents.Envelope>(projection: Projection<Doc, Env>): AnyProjection => projection

export const all: ReadonlyArray<AnyProjection> = [
  reading(paymentPlans),
  reading(duePlans),
  reading(consents),
  reading(companies),
  reading(paymentRequests),
  reading(dueForAutoCollection),
  reading(transfers),
  reading(customers),
  reading(debitAuths),
  reading(cardPayments),
  reading(charityGiftsDue),
  reading(sandboxCardDisputes),
  reading(cardRefundRetries),
  reading(paymentNotices),
  reading(balances),
  reading(ledgerEntries),
  reading(payouts),
  reading(ledgerPostings),
  reading(ledgerReturnFees),
]
