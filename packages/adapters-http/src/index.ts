/**
 * @partnerpay/adapters-http: the partner HTTP interface (Effect HttpApi).
 * Definitions (`Api`, groups, `Authentication`, `Problem`) are shareable with
 * clients; `*Live`, `Server`, `Tokens` and `PartnerCredentialsMemory` are server-side.
 */
export * as Api from "./Api.ts"
export * as AuthApi from "./auth/AuthApi.ts"
export * as ApiVersions from "./cross-cutting/ApiVersions.ts"
export * as Authentication from "./cross-cutting/Authentication.ts"
export * as AuthenticationLive from "./cross-cutting/AuthenticationLive.ts"
export * as Caller from "./cross-cutting/Caller.ts"
export * as ClientAddress from "./cross-cutting/ClientAddress.ts"
export * as CrossCutting from "./cross-cutting/CrossCutting.ts"
export * as OverlayBudget from "./cross-cutting/OverlayBudget.ts"
export * as PartnerCredentialsMemory from "./cross-cutting/PartnerCredentialsMemory.ts"
export * as Problem from "./cross-cutting/Problem.ts"
export * as ProblemHandling from "./cross-cutting/ProblemHandling.ts"
export * as RateLimit from "./cross-cutting/RateLimit.ts"
export * as RequestRecord from "./cross-cutting/RequestRecord.ts"
export * as Tokens from "./cross-cutting/Tokens.ts"
export * as CustomerIdentityPorts from "./customers/CustomerIdentityPorts.ts"
export * as HealthApi from "./health/HealthApi.ts"
export * as HealthCheck from "./health/HealthCheck.ts"
export * as Server from "./Server.ts"
export * as WebhookApi from "./webhooks/WebhookApi.ts"
export * as WebhookEvents from "./webhooks/WebhookEvents.ts"
