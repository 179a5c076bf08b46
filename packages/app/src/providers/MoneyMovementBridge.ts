/**
 * `MoneyMovement` over the HTTP bridge (docs/providers.md, "Money movement"):
 * the operator's bridge to the bank rail (Dwolla, GoCardless, Stripe...).
 *
 * - `debits` `{ idempotencyKey, companyId, payerRegistrationId, fundingSource, amount: { minorUnits,
 *   currency }, description, sameDay? }` -> `{ providerReference }`
 * - `credits` `{ idempotencyKey, companyId, payerRegistrationId, fundingSource, amount, description }`
 *   -> `{ providerReference }`
 * - `payouts` `{ idempotencyKey, companyId, payoutAccount, destination: { accountHolderName, routingNumber,
 *   accountNumber, accountType }, amount }` -> `{ providerReference }` (the payout workers,
 *   `workers/PayoutWorkers.ts`; `destination` is personal data: the bridge must not log it)
 * - each origination: 422 `{ code, reason }` refused (`MovementRefused`; an ACH return code as `code`
 *   fails the movement with it). The provider moves money once per `idempotencyKey` and answers a
 *   repeated key with the first movement's reference.
 * - `status` `{ kind: "Debit" | "Credit" | "Payout", id, providerReference }` ->
 *   `{ status: "Pending" }` | `{ status: "Settled" }` | `{ status: "Failed", returnCode }` |
 *   `{ status: "Returned", returnCode }` (an ACH return code such as R01, R10).
 */
import { MoneyMovement } from "@partnerpay/domain"
import { Effect, type Layer, Schema } from "effect"
import * as HttpBridge from "./HttpBridge.ts"

const Originated = Schema.Struct({ providerReference: Schema.String })
const Refusal = Schema.Struct({ code: Schema.String, reason: Schema.String })

const Outcome = Schema.Union([
  Schema.Struct({ status: Schema.Literal("Pending") }),
  Schema.Struct({ status: Schema.Literal("Settled") }),
  Schema.Struct({ status: Schema.Literal("Failed"), returnCode: Schema.String }),
  Schema.Struct({ status: Schema.Literal("Returned"), returnCode: Schema.String }),
])

export const make = (bridge: HttpBridge.Bridge) => {
  const originate =
    (operation: string, kind: MoneyMovement.MovementKind) => (request: { readonly idempotencyKey: string }) =>
      bridge.call(operation, request).pipe(
        Effect.flatMap(
          HttpBridge.expect(bridge, operation, Originated, {
            422: HttpBridge.refusal(bridge, operation, Refusal, (body) => new MoneyMovement.MovementRefused(body)),
          }),
        ),
        Effect.map(
          ({ providerReference }): MoneyMovement.MovementReference => ({
            kind,
            id: request.idempotencyKey,
            providerReference,
          }),
        ),
      )
  return MoneyMovement.MoneyMovement.of({
    originateDebit: originate("debits", "Debit"),
    originateCredit: originate("credits", "Credit"),
    originatePayout: originate("payouts", "Payout"),
    status: (reference) =>
      Effect.flatMap(bridge.call("status", reference), HttpBridge.expect(bridge, "status", Outcome)),
  })
}

export const layer = (config: HttpBridge.BridgeConfig): Layer.Layer<MoneyMovement.MoneyMovement> =>
  HttpBridge.layer(MoneyMovement.MoneyMovement, "money-movement provider", config, make)
