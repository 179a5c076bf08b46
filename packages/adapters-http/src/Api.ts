/**
 * The partnerpay HTTP API definition: every group, shared by the server, the
 * typed client (`HttpApiClient`) and the OpenAPI document.
 *
 * To add a group: define it in its own module (`<area>/FooApi.ts`, in the
 * folder of its business area), `.add(FooApi)` below BEFORE
 * `.middleware(ProblemHandling)` (which only reaches groups added before it),
 * and implement it beside its definition in `<area>/FooLive.ts`.
 */
import { HttpApi, OpenApi } from "effect/http-api"
import { AuthApi } from "./auth/AuthApi.ts"
import { CardPaymentApi } from "./cards-and-charity/CardPaymentApi.ts"
import { CharityApi } from "./cards-and-charity/CharityApi.ts"
import { CompanyApi } from "./companies/CompanyApi.ts"
import * as CrossCutting from "./cross-cutting/CrossCutting.ts"
import * as OpenApiReference from "./cross-cutting/OpenApiReference.ts"
import { ProblemHandling } from "./cross-cutting/ProblemHandling.ts"
import * as QueryLimits from "./cross-cutting/QueryLimits.ts"
import { AccountApi } from "./customers/AccountApi.ts"
import { BankLinkCallbackApi } from "./customers/BankLinkCallbackApi.ts"
import { CustomerApi } from "./customers/CustomerApi.ts"
import { LoginApi } from "./customers/LoginApi.ts"
import { VerificationApi } from "./customers/VerificationApi.ts"
import { HealthApi } from "./health/HealthApi.ts"
import { DebitAuthApi } from "./payments/DebitAuthApi.ts"
import { PaymentApi } from "./payments/PaymentApi.ts"
import { TransactionApi } from "./payments/TransactionApi.ts"
import { PayoutApi } from "./payouts/PayoutApi.ts"
import { ConsentApi } from "./plans/ConsentApi.ts"
import { PaymentPlanApi } from "./plans/PaymentPlanApi.ts"
import { DeliveriesApi } from "./webhooks/DeliveriesApi.ts"
import { EventsApi } from "./webhooks/EventsApi.ts"
import { WebhookApi } from "./webhooks/WebhookApi.ts"
import * as WebhookEvents from "./webhooks/WebhookEvents.ts"

/** Decode every field of a request so that a 400 lists all bad fields, not only the first. */
const allErrors = { errors: "all" } as const

export class Api extends HttpApi.make("partnerpay")
  .add(AuthApi)
  .add(HealthApi)
  .add(WebhookApi)
  .add(BankLinkCallbackApi)
  .add(PaymentApi)
  .add(TransactionApi)
  .add(CompanyApi)
  .add(CustomerApi)
  .add(DebitAuthApi)
  .add(CardPaymentApi)
  .add(CharityApi)
  .add(PaymentPlanApi)
  .add(ConsentApi)
  .add(LoginApi)
  .add(AccountApi)
  .add(VerificationApi)
  .add(DeliveriesApi)
  .add(EventsApi)
  .add(PayoutApi)
  .middleware(ProblemHandling)
  // A body field the operation does not define is an error (never silently dropped), listed with the others.
  .annotate(HttpApi.PayloadParseOptions, { ...allErrors, onExcessProperty: "error" })
  .annotate(HttpApi.QueryParseOptions, allErrors)
  .annotate(HttpApi.ParamsParseOptions, allErrors)
  .annotateMerge(
    OpenApi.annotations({
      title: "partnerpay partner API",
      version: "v1",
      license: { name: "MIT", identifier: "MIT" },
      description:
        'Payments partner service. Every request except POST /auth/token carries `Authorization: Bearer <token>`. Errors are RFC 9457 problem details (application/problem+json). Every POST (except /auth/token) accepts an `Idempotency-Key` header (1-255 characters): a retry with the same key and request replays the first response for 24 hours. Requests are rate limited per caller (429 with Retry-After); request bodies are limited to 1 MiB (413).\n\nIn the sandbox, providers are simulated and some input values choose the outcome (an amount ending in .13 fails with R01, a company named "reject" fails KYB, ...): the sandbox\'s magic values are listed at https://github.com/partnerpay/partnerpay/blob/main/docs/api/sandbox.md, and the `/Sandbox/...` operations (clock, test cards, messages, test webhooks) in the same page.',
      // Idempotency-Key header and 409/422/429 answers on every operation (see CrossCutting.ts), then the
      // reference: descriptions, formats, examples, error codes, servers (see OpenApiReference.ts), then the
      // outgoing webhooks (see WebhookEvents.ts)
      transform: (spec) =>
        WebhookEvents.openApiTransform(
          OpenApiReference.openApiTransform(QueryLimits.openApiTransform(CrossCutting.openApiTransform(spec))),
        ),
    }),
  ) {}
