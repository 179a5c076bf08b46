/**
 * @partnerpay/app: the composition root of the partnerpay service. The
 * process entry point is `src/main.ts`; these exports let embedders and tests
 * build the same service (`Service.makeLayer`) or reuse its parts.
 */
export * as Config from "./Config.ts"
export * as Database from "./Database.ts"
export * as Http from "./Http.ts"
export * as Logging from "./Logging.ts"
export * as Partners from "./Partners.ts"
export * as SandboxMoneyMovement from "./SandboxMoneyMovement.ts"
export * as SandboxProviders from "./SandboxProviders.ts"
export * as Service from "./Service.ts"
export * as TokenSecret from "./TokenSecret.ts"
export * as MoneyMovementWorkers from "./workers/MoneyMovementWorkers.ts"
export * as PlanScheduler from "./workers/PlanScheduler.ts"
export * as RecurringCharityScheduler from "./workers/RecurringCharityScheduler.ts"
export * as SandboxKyb from "./workers/SandboxKyb.ts"
export * as WebhookDispatcher from "./workers/WebhookDispatcher.ts"
