/**
 * Every notification (webhook) rule of the interface. Each webhook module
 * adds itself here; the event pipeline runs them with every append, inside
 * the append's unit of work. Each area's rule reads its own streams'
 * envelopes; `reading` checks that they are envelopes of this domain.
 */
import * as CardDisputeNotification from "../cards-and-charity/CardDisputeNotification.ts"
import * as CardPaymentNotification from "../cards-and-charity/CardPaymentNotification.ts"
import * as CardRefundNotification from "../cards-and-charity/CardRefundNotification.ts"
import * as CompanyVerificationWebhook from "../companies/CompanyVerificationWebhook.ts"
import * as PayoutAccountStatusWebhook from "../companies/PayoutAccountStatusWebhook.ts"
import * as CustomerWebhooks from "../customers/CustomerWebhooks.ts"
import type { AnyNotificationRule, NotificationRule } from "../infrastructure/NotificationRule.ts"
import * as DebitAuthNotification from "../payments/DebitAuthNotification.ts"
import * as PaymentRequestStatusNotification from "../payments/PaymentRequestStatusNotification.ts"
import * as RefundStatusNotification from "../payments/RefundStatusNotification.ts"
import * as PayoutStatusNotification from "../payouts/PayoutStatusNotification.ts"
import * as ConsentStatusNotification from "../plans/ConsentStatusNotification.ts"
import * as PaymentPlanInstalmentNotification from "../plans/PaymentPlanInstalmentNotification.ts"
import * as PaymentPlanStatusNotification from "../plans/PaymentPlanStatusNotification.ts"
import type * as DomainEvents from "./DomainEvents.ts"

/** A rule over some of the domain's envelopes, for the registry (the pipeline routes by stream type). */
const reading = <Env extends DomainEvents.Envelope>(rule: NotificationRule<Env>): AnyNotificationRule => rule

/** Every notification rule. */
export const rules: ReadonlyArray<AnyNotificationRule> = [
  reading(CompanyVerificationWebhook.rule),
  reading(CompanyVerificationWebhook.actionRule),
  reading(PaymentRequestStatusNotification.rule),
  reading(PaymentPlanInstalmentNotification.rule),
  reading(RefundStatusNotification.rule),
  reading(PayoutStatusNotification.rule),
  reading(PayoutAccountStatusWebhook.rule),
  reading(ConsentStatusNotification.rule),
  reading(PaymentPlanStatusNotification.rule),
  reading(CustomerWebhooks.verificationRule),
  reading(CustomerWebhooks.linkedRule),
  reading(CustomerWebhooks.removedRule),
  reading(CustomerWebhooks.relinkRule),
  reading(CustomerWebhooks.relinkOnReturnRule),
  reading(DebitAuthNotification.rule),
  reading(CardPaymentNotification.rule),
  reading(CardDisputeNotification.rule),
  reading(CardRefundNotification.rule),
]
