/**
 * @partnerpay/app: the composition root of the partnerpay service. The
 * process entry point is `src/main.ts`; these exports let embedders and tests
 * build the same service (`Service.makeLayer`) or reuse its parts.
 */
export * as Config from "./config/Config.ts"
export * as TokenSecret from "./config/TokenSecret.ts"
export * as Database from "./database/Database.ts"
export * as Http from "./http/Http.ts"
export * as Logging from "./observability/Logging.ts"
export * as Service from "./Service.ts"
export * as Partners from "./sandbox/Partners.ts"
export * as SandboxMoneyMovement from "./sandbox/SandboxMoneyMovement.ts"
export * as SandboxProviders from "./sandbox/SandboxProviders.ts"
export * as MoneyMovementWorkers from "./workers/MoneyMovementWorkers.ts"
export * as PlanScheduler from "./workers/PlanScheduler.ts"
export * as RecurringCharityScheduler from "./workers/RecurringCharityScheduler.ts"
export * as SandboxKyb from "./workers/SandboxKyb.ts"
export * as WebhookDispatcher from "./workers/WebhookDispatcher.ts"
