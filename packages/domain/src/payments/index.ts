/**
 * The payments area's public module: payment requests, transfers and
 * refunds (PaymentRequest, Transfer), debit authorizations (DebitAuth), their
 * use cases, read models and the payment request status webhook, and who may
 * collect (WhoMayCollect, which the plans' deciders apply too). Other areas
 * import payments only through this module.
 */
export * as Attachments from "./Attachments.ts"
export * as AuthorizationEvidence from "./AuthorizationEvidence.ts"
export * as AuthorizationEvidenceRetention from "./AuthorizationEvidenceRetention.ts"
export * as AutoCollection from "./AutoCollection.ts"
export * as CardCharger from "./CardCharger.ts"
export * as DebitAuth from "./DebitAuth.ts"
export * as DebitAuths from "./DebitAuths.ts"
export * as DebitAuthsProjection from "./DebitAuthsProjection.ts"
export * as FeeSchedule from "./FeeSchedule.ts"
export * as InAppCardPayments from "./InAppCardPayments.ts"
export * as MoneyMovement from "./MoneyMovement.ts"
export * as MoneyMovements from "./MoneyMovements.ts"
export * as MovementAttempts from "./MovementAttempts.ts"
export * as PartnerFees from "./PartnerFees.ts"
export * as PaymentPersonalData from "./PaymentPersonalData.ts"
export * as PaymentProviders from "./PaymentProviders.ts"
export * as PaymentRequest from "./PaymentRequest.ts"
export * as PaymentRequestEvents from "./PaymentRequestEvents.ts"
export * as PaymentRequestsProjection from "./PaymentRequestsProjection.ts"
export * as Payments from "./Payments.ts"
export * as PlatformFees from "./PlatformFees.ts"
export * as RailCapabilities from "./RailCapabilities.ts"
export * as RailRules from "./RailRules.ts"
export * as RefundStatusWebhook from "./RefundStatusWebhook.ts"
export * as ReturnCodes from "./ReturnCodes.ts"
export * as ReturnConsequences from "./ReturnConsequences.ts"
export * as Transfer from "./Transfer.ts"
export * as TransferEvents from "./TransferEvents.ts"
export * as Transfers from "./Transfers.ts"
export * as TransfersProjection from "./TransfersProjection.ts"
export * as WhoMayCollect from "./WhoMayCollect.ts"
