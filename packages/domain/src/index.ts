/**
 * @partnerpay/domain: the pure, event-sourced core of partnerpay.
 * No I/O: ports (EventStore, IdGenerator, providers) are Effect services that
 * adapters implement; time and new ids arrive inside commands.
 *
 * Layout: `kernel/` (shared vocabulary: ids, money, dates, deciders, errors),
 * `infrastructure/` (ports and the machinery that runs deciders, projections
 * and notifications), one folder per business area (`companies/`,
 * `customers/`, `notifications/`, `payments/`, `payouts/`, `plans/`, `cards-and-charity/`, each with a
 * public `index.ts`), and `composition/`: the registries that compose the
 * areas (`DomainEvents`, `Projections`, `Notifications`, `Policies`,
 * `PersonalDataMap`) and the `EventPipeline` that runs them.
 */

// cards and charity
export * as CardPayment from "./cards-and-charity/CardPayment.ts"
export * as CardPayments from "./cards-and-charity/CardPayments.ts"
export * as Charity from "./cards-and-charity/Charity.ts"
export * as CharityTransaction from "./cards-and-charity/CharityTransaction.ts"
// companies
export * as Companies from "./companies/Companies.ts"
export * as Company from "./companies/Company.ts"
export * as CompanyErasure from "./companies/CompanyErasure.ts"
export * as CompanyPayoutAccount from "./companies/CompanyPayoutAccount.ts"
export * as CompanyPersonalData from "./companies/CompanyPersonalData.ts"
export * as CompanyProviders from "./companies/CompanyProviders.ts"
export * as CompanyReference from "./companies/CompanyReference.ts"
// composition: the registries composing the areas, and the event pipeline
export * as DomainEvents from "./composition/DomainEvents.ts"
export * as EventPipeline from "./composition/EventPipeline.ts"
export * as Notifications from "./composition/Notifications.ts"
export * as PersonalDataMap from "./composition/PersonalDataMap.ts"
export * as Policies from "./composition/Policies.ts"
export * as Projections from "./composition/Projections.ts"
// customers
export * as BankAccounts from "./customers/BankAccounts.ts"
export * as BankLinkItem from "./customers/BankLinkItem.ts"
export * as BankLinkNotices from "./customers/BankLinkNotices.ts"
export * as BankLinkUpdates from "./customers/BankLinkUpdates.ts"
export * as Customer from "./customers/Customer.ts"
export * as CustomerErasure from "./customers/CustomerErasure.ts"
export * as CustomerLogin from "./customers/CustomerLogin.ts"
export * as CustomerPersonalData from "./customers/CustomerPersonalData.ts"
export * as CustomerPreferences from "./customers/CustomerPreferences.ts"
export * as CustomerProviderSandboxes from "./customers/CustomerProviderSandboxes.ts"
export * as CustomerProviders from "./customers/CustomerProviders.ts"
export * as CustomersProjection from "./customers/CustomersProjection.ts"
export * as LoginChallenge from "./customers/LoginChallenge.ts"
export * as OtpCodes from "./customers/OtpCodes.ts"
export * as Verification from "./customers/Verification.ts"
// infrastructure: ports and machinery
export * as CommandHandler from "./infrastructure/CommandHandler.ts"
export * as Envelope from "./infrastructure/Envelope.ts"
export * as EventStore from "./infrastructure/EventStore.ts"
export * as IdempotencyStore from "./infrastructure/IdempotencyStore.ts"
export * as IdGenerator from "./infrastructure/IdGenerator.ts"
export * as NotificationRule from "./infrastructure/NotificationRule.ts"
export * as Outbox from "./infrastructure/Outbox.ts"
export * as PartnerCredentials from "./infrastructure/PartnerCredentials.ts"
export * as PersonalData from "./infrastructure/PersonalData.ts"
export * as Policy from "./infrastructure/Policy.ts"
export * as ProviderSandboxes from "./infrastructure/ProviderSandboxes.ts"
export * as Providers from "./infrastructure/Providers.ts"
export * as ReadModel from "./infrastructure/ReadModel.ts"
export * as Tenancy from "./infrastructure/Tenancy.ts"
export * as TokenGenerations from "./infrastructure/TokenGenerations.ts"
export * as UnitOfWork from "./infrastructure/UnitOfWork.ts"
export * as UseCase from "./infrastructure/UseCase.ts"
export * as WebhookLog from "./infrastructure/WebhookLog.ts"
// kernel
export * as CalendarDate from "./kernel/CalendarDate.ts"
export * as Decider from "./kernel/Decider.ts"
export * as DomainError from "./kernel/DomainError.ts"
export * as Ids from "./kernel/Ids.ts"
export * as Metadata from "./kernel/Metadata.ts"
export * as Money from "./kernel/Money.ts"
export * as Personal from "./kernel/Personal.ts"
export * as PublicAddress from "./kernel/PublicAddress.ts"
export * as Traced from "./kernel/Traced.ts"
// notifications
export * as Messaging from "./notifications/Messaging.ts"
export * as PaymentNotice from "./notifications/PaymentNotice.ts"
export * as PaymentNotices from "./notifications/PaymentNotices.ts"
export * as PaymentNoticesProjection from "./notifications/PaymentNoticesProjection.ts"
// payments
export * as Attachments from "./payments/Attachments.ts"
export * as AuthorizationEvidence from "./payments/AuthorizationEvidence.ts"
export * as AutoCollection from "./payments/AutoCollection.ts"
export * as CardCharger from "./payments/CardCharger.ts"
export * as DebitAuth from "./payments/DebitAuth.ts"
export * as DebitAuths from "./payments/DebitAuths.ts"
export * as DebitAuthsProjection from "./payments/DebitAuthsProjection.ts"
export * as InAppCardPayments from "./payments/InAppCardPayments.ts"
export * as MoneyMovement from "./payments/MoneyMovement.ts"
export * as MoneyMovements from "./payments/MoneyMovements.ts"
export * as MovementAttempts from "./payments/MovementAttempts.ts"
export * as PaymentProviders from "./payments/PaymentProviders.ts"
export * as PaymentRequest from "./payments/PaymentRequest.ts"
export * as PaymentRequestEvents from "./payments/PaymentRequestEvents.ts"
export * as Payments from "./payments/Payments.ts"
export * as RailCapabilities from "./payments/RailCapabilities.ts"
export * as RailRules from "./payments/RailRules.ts"
export * as ReturnCodes from "./payments/ReturnCodes.ts"
export * as ReturnConsequences from "./payments/ReturnConsequences.ts"
export * as Transfer from "./payments/Transfer.ts"
export * as TransferEvents from "./payments/TransferEvents.ts"
export * as Transfers from "./payments/Transfers.ts"
// payouts
export * as Balance from "./payouts/Balance.ts"
export * as Ledger from "./payouts/Ledger.ts"
export * as Payout from "./payouts/Payout.ts"
export * as PayoutEvents from "./payouts/PayoutEvents.ts"
export * as Payouts from "./payouts/Payouts.ts"
export * as TransactionReport from "./payouts/TransactionReport.ts"
// plans
export * as Consent from "./plans/Consent.ts"
export * as ConsentEvents from "./plans/ConsentEvents.ts"
export * as Consents from "./plans/Consents.ts"
export * as ConsentsProjection from "./plans/ConsentsProjection.ts"
export * as PaymentPlan from "./plans/PaymentPlan.ts"
export * as PaymentPlanEvents from "./plans/PaymentPlanEvents.ts"
export * as PaymentPlanSchedule from "./plans/PaymentPlanSchedule.ts"
export * as PaymentPlans from "./plans/PaymentPlans.ts"
export * as PaymentPlansProjection from "./plans/PaymentPlansProjection.ts"
