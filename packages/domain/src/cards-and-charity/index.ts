/**
 * The cards-and-charity area's public module: card payments recorded for
 * merchants (CardPayment) and charity transactions (CharityTransaction),
 * their use cases and read model. Other areas import it only through this
 * module.
 */
export * as CardDispute from "./CardDispute.ts"
export * as CardDisputes from "./CardDisputes.ts"
export * as CardDisputeWebhook from "./CardDisputeWebhook.ts"
export * as CardPayment from "./CardPayment.ts"
export * as CardPayments from "./CardPayments.ts"
export * as CardPaymentsProjection from "./CardPaymentsProjection.ts"
export * as CardRefundAttempts from "./CardRefundAttempts.ts"
export * as CardRefundPayments from "./CardRefundPayments.ts"
export * as CardRefundRetries from "./CardRefundRetries.ts"
export * as CardRefundRetriesProjection from "./CardRefundRetriesProjection.ts"
export * as CardRefunds from "./CardRefunds.ts"
export * as Charity from "./Charity.ts"
export * as CharityGiftsDueProjection from "./CharityGiftsDueProjection.ts"
export * as CharityTransaction from "./CharityTransaction.ts"
export * as RecurringGift from "./RecurringGift.ts"
export * as SandboxDisputesProjection from "./SandboxDisputesProjection.ts"
