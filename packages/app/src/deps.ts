/**
 * Modules of the sibling packages not yet exported by their index.
 * TEMPORARY: relative imports until @partnerpay/adapters-pg exports PgDomain,
 * PgOutbox, PgPartnerCredentials and @partnerpay/domain exports PaymentPlans.
 */

export * as CustomerIdentityPorts from "../../adapters-http/src/CustomerIdentityPorts.ts"
export * as PgDomain from "../../adapters-pg/src/PgDomain.ts"
export * as PgOutbox from "../../adapters-pg/src/PgOutbox.ts"
export * as PgPartnerCredentials from "../../adapters-pg/src/PgPartnerCredentials.ts"
export * as PaymentPlans from "../../domain/src/application/PaymentPlans.ts"
