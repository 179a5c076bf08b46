/**
 * `ESignature` over the HTTP bridge (docs/providers.md, "E-signature").
 *
 * `reimbursement-envelope` `{ transferId, providerId, signer: { registrationId, name, emailAddress } }`
 * -> `{ envelopeId, signingUrl }`; 422 `{ reason }`: refused (`ESignatureRefused`).
 */
import { PaymentProviders } from "@partnerpay/domain"
import { Effect, type Layer, Schema } from "effect"
import * as HttpBridge from "./HttpBridge.ts"

const operation = "reimbursement-envelope"
const Envelope = Schema.Struct({ envelopeId: Schema.String, signingUrl: Schema.String })
const Refusal = Schema.Struct({ reason: Schema.String })

export const make = (bridge: HttpBridge.Bridge) =>
  PaymentProviders.ESignature.of({
    createReimbursementEnvelope: (request) =>
      Effect.flatMap(
        bridge.call(operation, request),
        HttpBridge.expect(bridge, operation, Envelope, {
          422: HttpBridge.refusal(
            bridge,
            operation,
            Refusal,
            ({ reason }) => new PaymentProviders.ESignatureRefused({ reason }),
          ),
        }),
      ),
  })

export const layer = (config: HttpBridge.BridgeConfig): Layer.Layer<PaymentProviders.ESignature> =>
  HttpBridge.layer(PaymentProviders.ESignature, "e-signature provider", config, make)
