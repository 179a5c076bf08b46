/**
 * The bank-link provider's notifications: `POST /BankLinkWebhook/UpdateItem`
 * (the interface gives the path, with HEAD as a reachability probe; this is
 * where the provider delivers). No bearer token: the provider proves the
 * notification with its own signature (Plaid: `Plaid-Verification`, checked
 * by the `BankLinkCallbacks` port). A forged, altered or replayed
 * notification is 401 and changes nothing; a verified one is acted on
 * (repair requested, revoked accounts unlinked) and answered 200.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { ServiceUnavailable, Unauthorized } from "../cross-cutting/Problem.ts"

export class BankLinkCallbackApi extends HttpApiGroup.make("bankLinkCallbacks")
  .add(
    HttpApiEndpoint.post("bankLinkUpdateItem", "/BankLinkWebhook/UpdateItem", {
      success: HttpApiSchema.Empty(200),
      error: [Unauthorized, ServiceUnavailable],
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Receive a notification of the bank-link provider",
        description:
          "Called by the bank-link provider (Plaid item webhooks), never by a partner: the body is the " +
          "provider's, proven by its signature header (`Plaid-Verification`). 200 once it is recorded; " +
          "401 when it cannot be verified (nothing changes); 503 to have the provider deliver it again.",
      }),
    ),
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Provider notifications",
      description: "Deliveries of the providers' own webhooks (signed by the provider)",
    }),
  ) {}
