/**
 * The companies area's public module: company registration, locations and
 * KYB (Company), partner references (CompanyReference), their use cases and
 * read model. Other areas import companies only through this module.
 */
export * as Companies from "./Companies.ts"
export * as CompaniesProjection from "./CompaniesProjection.ts"
export * as Company from "./Company.ts"
export * as CompanyErasure from "./CompanyErasure.ts"
export * as CompanyPayoutAccount from "./CompanyPayoutAccount.ts"
export * as CompanyProviders from "./CompanyProviders.ts"
export * as CompanyReference from "./CompanyReference.ts"
export * as PayoutAccountStatusWebhook from "./PayoutAccountStatusWebhook.ts"
