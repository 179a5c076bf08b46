/**
 * Inbound notification endpoints of the sales platform and the bank-linking
 * provider. The interface gives only HEAD (reachability probe with a bearer
 * token, 200 no body); what the service does with deliveries is not specified.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication } from "../cross-cutting/Authentication.ts"

export class WebhookApi extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.head("saleProviderProbe", "/SaleProviderWebhook/ReceiveSaleEvent", {
      success: HttpApiSchema.Empty(200),
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Check that the sales platform's callback is reachable",
        description: "A reachability probe: 200 with no body for a valid token.",
      }),
    ),
    HttpApiEndpoint.head("bankLinkProbe", "/BankLinkWebhook/UpdateItem", {
      success: HttpApiSchema.Empty(200),
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Check that the bank-link provider's callback is reachable",
        description: "A reachability probe: 200 with no body for a valid token.",
      }),
    ),
  )
  .middleware(Authentication)
  .annotateMerge(
    OpenApi.annotations({
      title: "Provider callbacks",
      description: "Inbound notifications from providers (the outgoing webhooks to partners are under `webhooks`)",
    }),
  ) {}
