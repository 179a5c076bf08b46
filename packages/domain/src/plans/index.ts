/**
 * The plans area's public module: recurring payment plans, their schedule
 * and the customer's consent to them (PaymentPlan, Consent), their use cases
 * and read models. Other areas import plans only through this module.
 */
export * as Consent from "./Consent.ts"
export * as ConsentEvents from "./ConsentEvents.ts"
export * as Consents from "./Consents.ts"
export * as ConsentsProjection from "./ConsentsProjection.ts"
export * as PaymentPlan from "./PaymentPlan.ts"
export * as PaymentPlanEvents from "./PaymentPlanEvents.ts"
export * as PaymentPlanSchedule from "./PaymentPlanSchedule.ts"
export * as PaymentPlans from "./PaymentPlans.ts"
export * as PaymentPlansProjection from "./PaymentPlansProjection.ts"
