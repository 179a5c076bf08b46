/**
 * @partnerpay/client: a typed client of the partnerpay partner API for TypeScript and
 * JavaScript (no Effect needed). See README.md.
 */
export {
  createPartnerpayClient,
  type PartnerpayClient,
  type PartnerpayClientOptions,
} from "./client.ts"
export type { components, operations, paths, webhooks } from "./generated/openapi.ts"
export { type FetchResult, PartnerpayError, type Problem, type SuccessData, unwrap } from "./PartnerpayError.ts"
export type { ListItem, ListPath, ListQuery, PaginateOptions } from "./pagination.ts"
export { defaultRetryPolicy, type RetryOptions } from "./retry.ts"
export {
  defaultToleranceSeconds,
  type Verdict,
  type VerifyOptions,
  verifyWebhook,
  type WebhookEvent,
  type WebhookHeaders,
} from "./verifyWebhook.ts"
