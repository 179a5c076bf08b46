/**
 * @partnerpay/adapters-pg: PostgreSQL (server or embedded PGlite) connection
 * layers, schema migrations, the PostgreSQL EventStore, the read side
 * (read models, outbox, unit of work), the whole domain stack (PgDomain) and
 * partner credentials.
 */
export * as Migrations from "./Migrations.ts"
export * as PgAttachments from "./PgAttachments.ts"
export * as PgDatabase from "./PgDatabase.ts"
export * as PgDomain from "./PgDomain.ts"
export * as PgDueWork from "./PgDueWork.ts"
export * as PgEventStore from "./PgEventStore.ts"
export * as PgFundingSources from "./PgFundingSources.ts"
export * as PgIdempotencyStore from "./PgIdempotencyStore.ts"
export * as PgLedger from "./PgLedger.ts"
export * as PgliteBridge from "./PgliteBridge.ts"
export * as PgliteImage from "./PgliteImage.ts"
export * as PgMetrics from "./PgMetrics.ts"
export * as PgMovementReferences from "./PgMovementReferences.ts"
export * as PgOutbox from "./PgOutbox.ts"
export * as PgPartnerCredentials from "./PgPartnerCredentials.ts"
export * as PgPersonalDataVault from "./PgPersonalDataVault.ts"
export * as PgProviderCallbacks from "./PgProviderCallbacks.ts"
export * as PgReadModelStore from "./PgReadModelStore.ts"
export * as PgSandboxClocks from "./PgSandboxClocks.ts"
export * as PgSentMessages from "./PgSentMessages.ts"
export * as PgServiceInstance from "./PgServiceInstance.ts"
export * as PgTokenGenerations from "./PgTokenGenerations.ts"
export * as PgTransactionGuard from "./PgTransactionGuard.ts"
export * as PgUnitOfWork from "./PgUnitOfWork.ts"
export * as PgWebhookLog from "./PgWebhookLog.ts"
export * as PgWorkClaims from "./PgWorkClaims.ts"
export * as SecretHash from "./SecretHash.ts"
export * as SqlErrors from "./SqlErrors.ts"
