/**
 * @partnerpay/domain: the pure, event-sourced core of partnerpay.
 * No I/O: ports (EventStore, IdGenerator, providers) are Effect services that
 * adapters implement; time and new ids arrive inside commands.
 */
export * as CalendarDate from "./CalendarDate.ts"
export * as CardPayment from "./CardPayment.ts"
export * as CharityTransaction from "./CharityTransaction.ts"
export * as CommandHandler from "./CommandHandler.ts"
export * as Company from "./Company.ts"
export * as Consent from "./Consent.ts"
export * as ConsentEvents from "./ConsentEvents.ts"
export * as Customer from "./Customer.ts"
export * as DebitAuth from "./DebitAuth.ts"
export * as Decider from "./Decider.ts"
export * from "./DomainError.ts"
export * from "./EventStore.ts"
export * from "./IdGenerator.ts"
export * as Ids from "./Ids.ts"
export * as Money from "./Money.ts"
export * from "./PartnerCredentials.ts"
export * as PaymentPlan from "./PaymentPlan.ts"
export * as PaymentPlanEvents from "./PaymentPlanEvents.ts"
export * as PaymentPlanSchedule from "./PaymentPlanSchedule.ts"
export * as PaymentRequest from "./PaymentRequest.ts"
export * as PaymentRequestEvents from "./PaymentRequestEvents.ts"
export * as Providers from "./Providers.ts"
export * as Transfer from "./Transfer.ts"
export * as TransferEvents from "./TransferEvents.ts"
