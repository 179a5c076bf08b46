/**
 * @partnerpay/adapters-http: the partner HTTP interface (Effect HttpApi).
 * Definitions (`Api`, groups, `Authentication`, `Problem`) are shareable with
 * clients; `*Live`, `Server`, `Tokens` and `PartnerCredentialsMemory` are server-side.
 */
export * as Api from "./Api.ts"
export * as AuthApi from "./AuthApi.ts"
export * as Authentication from "./Authentication.ts"
export * as AuthenticationLive from "./AuthenticationLive.ts"
export * as Caller from "./Caller.ts"
export * as ClientAddress from "./ClientAddress.ts"
export * as CrossCutting from "./CrossCutting.ts"
export * as CustomerIdentityPorts from "./CustomerIdentityPorts.ts"
export * as HealthApi from "./HealthApi.ts"
export * as HealthCheck from "./HealthCheck.ts"
export * as PartnerCredentialsMemory from "./PartnerCredentialsMemory.ts"
export * as Problem from "./Problem.ts"
export * as ProblemHandling from "./ProblemHandling.ts"
export * as RateLimit from "./RateLimit.ts"
export * as RequestRecord from "./RequestRecord.ts"
export * as Server from "./Server.ts"
export * as Tokens from "./Tokens.ts"
export * as WebhookApi from "./WebhookApi.ts"
