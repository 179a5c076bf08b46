/**
 * `ESignature` over the HTTP bridge (docs/providers.md, "E-signature").
 *
 * `reimbursement-envelope` `{ transferId, providerId, signer: { registrationId, name, emailAddress } }`
 * -> `{ envelopeId, signingUrl }`; 422 `{ reason }`: refused (`ESignatureRefused`).
 * `envelope-status` `{ envelopeId, transferId, sentAt }` -> `{ status }`: Sent, Completed, Declined
 * or Voided (the `reimbursement-completion` worker asks it).
 */
import { PaymentProviders } from "@partnerpay/domain"
import { DateTime, Effect, type Layer, Schema } from "effect"
import * as HttpBridge from "./HttpBridge.ts"

const envelopeOperation = "reimbursement-envelope"
const statusOperation = "envelope-status"
const Envelope = Schema.Struct({ envelopeId: Schema.String, signingUrl: Schema.String })
const Refusal = Schema.Struct({ reason: Schema.String })
const Status = Schema.Struct({ status: PaymentProviders.EnvelopeStatus })

export const make = (bridge: HttpBridge.Bridge) =>
  PaymentProviders.ESignature.of({
    createReimbursementEnvelope: (request) =>
      Effect.flatMap(
        bridge.call(envelopeOperation, request),
        HttpBridge.expect(bridge, envelopeOperation, Envelope, {
          422: HttpBridge.refusal(
            bridge,
            envelopeOperation,
            Refusal,
            ({ reason }) => new PaymentProviders.ESignatureRefused({ reason }),
          ),
        }),
      ),
    envelopeStatus: (request) =>
      Effect.flatMap(
        bridge.call(statusOperation, {
          envelopeId: request.envelopeId,
          transferId: request.transferId,
          sentAt: DateTime.formatIso(request.sentAt),
        }),
        HttpBridge.expect(bridge, statusOperation, Status, {}),
      ),
  })

export const layer = (config: HttpBridge.BridgeConfig): Layer.Layer<PaymentProviders.ESignature> =>
  HttpBridge.layer(PaymentProviders.ESignature, "e-signature provider", config, make)
