/**
 * Every webhook rule of the interface (the partner webhooks events cause). Each webhook module
 * adds itself here; the event pipeline runs them with every append, inside
 * the append's unit of work. Each area's rule reads its own streams'
 * envelopes; `reading` checks that they are envelopes of this domain.
 */
import * as CardDisputeWebhook from "../cards-and-charity/CardDisputeWebhook.ts"
import * as CardPaymentWebhook from "../cards-and-charity/CardPaymentWebhook.ts"
import * as CardRefundWebhook from "../cards-and-charity/CardRefundWebhook.ts"
import * as CompanyVerificationWebhook from "../companies/CompanyVerificationWebhook.ts"
import * as PayoutAccountStatusWebhook from "../companies/PayoutAccountStatusWebhook.ts"
import * as CustomerWebhooks from "../customers/CustomerWebhooks.ts"
import type { AnyWebhookRule, WebhookRule } from "../infrastructure/WebhookRule.ts"
import * as DebitAuthWebhook from "../payments/DebitAuthWebhook.ts"
import * as PaymentRequestStatusWebhook from "../payments/PaymentRequestStatusWebhook.ts"
import * as RefundStatusWebhook from "../payments/RefundStatusWebhook.ts"
import * as PayoutStatusWebhook from "../payouts/PayoutStatusWebhook.ts"
import * as ConsentStatusWebhook from "../plans/ConsentStatusWebhook.ts"
import * as PaymentPlanInstalmentWebhook from "../plans/PaymentPlanInstalmentWebhook.ts"
import * as PaymentPlanStatusWebhook from "../plans/PaymentPlanStatusWebhook.ts"
import type * as DomainEvents from "./DomainEvents.ts"

/** A rule over some of the domain's envelopes, for the registry (the pipeline routes by stream type). */
const reading = <Env extends DomainEvents.Envelope>(rule: WebhookRule<Env>): AnyWebhookRule => rule

/** Every notification rule. */
export const rules: ReadonlyArray<AnyWebhookRule> = [
  reading(CompanyVerificationWebhook.rule),
  reading(CompanyVerificationWebhook.actionRule),
  reading(PaymentRequestStatusWebhook.rule),
  reading(PaymentPlanInstalmentWebhook.rule),
  reading(RefundStatusWebhook.rule),
  reading(PayoutStatusWebhook.rule),
  reading(PayoutAccountStatusWebhook.rule),
  reading(ConsentStatusWebhook.rule),
  reading(PaymentPlanStatusWebhook.rule),
  reading(CustomerWebhooks.verificationRule),
  reading(CustomerWebhooks.linkedRule),
  reading(CustomerWebhooks.removedRule),
  reading(CustomerWebhooks.relinkRule),
  reading(CustomerWebhooks.relinkOnReturnRule),
  reading(DebitAuthWebhook.rule),
  reading(CardPaymentWebhook.rule),
  reading(CardDisputeWebhook.rule),
  reading(CardRefundWebhook.rule),
]
