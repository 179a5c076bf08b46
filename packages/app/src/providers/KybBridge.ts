/**
 * `KybVerifier` over the HTTP bridge (docs/providers.md, "KYB").
 *
 * - `submit` the company (`KybSubmission`, with the owner's full SSN, which
 *   partnerpay never records) -> `{ submissionId }`; 422 `{ reason }`: refused
 *   (`KybSubmissionRefused`)
 * - `status` `{ submissionId }` -> `{ status: "Pending" | "Verified" | "Rejected" }`
 */
import { CompanyProviders } from "@partnerpay/domain"
import { Effect, type Layer, Schema } from "effect"
import * as HttpBridge from "./HttpBridge.ts"

const Submitted = Schema.Struct({ submissionId: Schema.String })
const Status = Schema.Struct({ status: Schema.Literals(["Pending", "Verified", "Rejected"]) })
const Refusal = Schema.Struct({ reason: Schema.String })

export const make = (bridge: HttpBridge.Bridge) =>
  CompanyProviders.KybVerifier.of({
    submit: (submission) =>
      Effect.flatMap(
        bridge.call("submit", submission),
        HttpBridge.expect(bridge, "submit", Submitted, {
          422: HttpBridge.refusal(
            bridge,
            "submit",
            Refusal,
            ({ reason }) => new CompanyProviders.KybSubmissionRefused({ reason }),
          ),
        }),
      ),
    status: (submissionId) =>
      bridge.call("status", { submissionId }).pipe(
        Effect.flatMap(HttpBridge.expect(bridge, "status", Status)),
        Effect.map(({ status }) => status),
      ),
  })

export const layer = (config: HttpBridge.BridgeConfig): Layer.Layer<CompanyProviders.KybVerifier> =>
  HttpBridge.layer(CompanyProviders.KybVerifier, "KYB provider", config, make)
