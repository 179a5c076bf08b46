/**
 * @partnerpay/adapters-http: the partner HTTP interface (Effect HttpApi).
 * Definitions (`Api`, groups, `Authentication`, `Problem`) are shareable with
 * clients; `*Live`, `Server`, `Tokens` and `PartnerCredentialsMemory` are server-side.
 */
export * from "./Api.ts"
export * from "./AuthApi.ts"
export * from "./Authentication.ts"
export * from "./AuthenticationLive.ts"
export * from "./Caller.ts"
export * as CrossCutting from "./CrossCutting.ts"
export * as CustomerIdentityPorts from "./CustomerIdentityPorts.ts"
export * from "./HealthApi.ts"
export * from "./HealthCheck.ts"
export * as PartnerCredentialsMemory from "./PartnerCredentialsMemory.ts"
export * as Problem from "./Problem.ts"
export * from "./ProblemHandling.ts"
export * as RequestRecord from "./RequestRecord.ts"
export * as Server from "./Server.ts"
export * from "./Tokens.ts"
export * from "./WebhookApi.ts"
