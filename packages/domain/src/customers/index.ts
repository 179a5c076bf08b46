/**
 * The customers area's public module: customer registration, identity
 * verification, bank accounts, preferences and login (Customer,
 * LoginChallenge), their use cases and read model. Other areas import
 * customers only through this module.
 */
export * as BankAccounts from "./BankAccounts.ts"
export * as BankLinkItem from "./BankLinkItem.ts"
export * as BankLinkNotices from "./BankLinkNotices.ts"
export * as BankLinkUpdates from "./BankLinkUpdates.ts"
export * as Customer from "./Customer.ts"
export * as CustomerErasure from "./CustomerErasure.ts"
export * as CustomerLogin from "./CustomerLogin.ts"
export * as CustomerPersonalData from "./CustomerPersonalData.ts"
export * as CustomerPreferences from "./CustomerPreferences.ts"
export * as CustomerProviderSandboxes from "./CustomerProviderSandboxes.ts"
export * as CustomerProviders from "./CustomerProviders.ts"
export * as CustomersProjection from "./CustomersProjection.ts"
export * as LoginChallenge from "./LoginChallenge.ts"
export * as OtpCodes from "./OtpCodes.ts"
export * as Verification from "./Verification.ts"
