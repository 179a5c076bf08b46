/**
 * `BankLinker` over the HTTP bridge (docs/providers.md, "Bank linking").
 *
 * - `link-token` `{ registrationId, tokenId }` -> `{ linkToken, expiration }`
 * - `exchange` `{ registrationId, tokenId, publicToken, linkSessionId, institutionId, accountIds }`
 *   -> `{ accounts: [{ providerAccountId, institutionId, name, mask, type }] }`;
 *   422 `{ errorType, errorCode, errorMessage, displayMessage }`: the link failed (`BankLinkFailed`).
 */
import { CustomerProviders } from "@partnerpay/domain"
import { Effect, type Layer, Schema } from "effect"
import * as HttpBridge from "./HttpBridge.ts"

const LinkToken = Schema.Struct({ linkToken: Schema.String, expiration: Schema.DateTimeUtcFromString })
const Linked = Schema.Struct({
  accounts: Schema.Array(
    Schema.Struct({
      providerAccountId: Schema.String,
      institutionId: Schema.String,
      name: Schema.String,
      // At most the last 4 digits: a full account number is refused as a malformed answer.
      mask: Schema.String.check(Schema.isPattern(/^\d{4}$/)),
      type: Schema.String,
    }),
  ),
})
const LinkError = Schema.Struct({
  errorType: Schema.String,
  errorCode: Schema.String,
  errorMessage: Schema.String,
  displayMessage: Schema.String,
})

export const make = (bridge: HttpBridge.Bridge) =>
  CustomerProviders.BankLinker.of({
    createLinkToken: (request) =>
      Effect.flatMap(bridge.call("link-token", request), HttpBridge.expect(bridge, "link-token", LinkToken)),
    // The holder's identity stays here: the bridge's contract has no such field.
    exchangePublicToken: ({ holder: _holder, ...request }) =>
      Effect.flatMap(
        bridge.call("exchange", request),
        HttpBridge.expect(bridge, "exchange", Linked, {
          422: HttpBridge.refusal(
            bridge,
            "exchange",
            LinkError,
            (error) => new CustomerProviders.BankLinkFailed(error),
          ),
        }),
      ),
  })

export const layer = (config: HttpBridge.BridgeConfig): Layer.Layer<CustomerProviders.BankLinker> =>
  HttpBridge.layer(CustomerProviders.BankLinker, "bank-link provider", config, make)
