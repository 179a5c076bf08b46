/**
 * Every provider port production needs, and the bridge that serves it there.
 *
 * Production never runs on a sandbox provider: each port below must have its
 * bridge configured (`PARTNERPAY_PROVIDER_<KEY>_URL` and `_SECRET`), or the
 * service refuses to start and names every port left out (Settings.ts turns
 * this list into declared variables, Config.ts checks them; `layer` refuses
 * the same way if it is ever given less). A new port is one line here.
 *
 * The sandbox environment keeps the in-memory sandboxes (SandboxProviders.ts).
 */
import { Effect, Layer, Schema } from "effect"
import * as BankLinkerBridge from "./BankLinkerBridge.ts"
import * as CardProcessorBridge from "./CardProcessorBridge.ts"
import * as ESignatureBridge from "./ESignatureBridge.ts"
import type { BridgeConfig } from "./HttpBridge.ts"
import * as KybBridge from "./KybBridge.ts"
import * as KycBridge from "./KycBridge.ts"
import * as MoneyMovementBridge from "./MoneyMovementBridge.ts"
import * as OtpSenderBridge from "./OtpSenderBridge.ts"

/** The ports: `key` names the variables, `port` is what an operator reads, `bridge` serves it in production. */
export const ports = [
  { key: "OTP", port: "OTP sender (SMS one-time login codes)", bridge: OtpSenderBridge.layer },
  { key: "KYC", port: "identity verification (KYC)", bridge: KycBridge.layer },
  { key: "BANK_LINKING", port: "bank linking", bridge: BankLinkerBridge.layer },
  { key: "KYB", port: "business verification (KYB)", bridge: KybBridge.layer },
  {
    key: "MONEY_MOVEMENT",
    port: "money movement (ACH debits, refund credits, payouts)",
    bridge: MoneyMovementBridge.layer,
  },
  { key: "CARD_PROCESSOR", port: "card processor", bridge: CardProcessorBridge.layer },
  { key: "E_SIGNATURE", port: "e-signature", bridge: ESignatureBridge.layer },
] as const

export type PortKey = (typeof ports)[number]["key"]

/** The services the production bridges provide. */
export type ProductionProviders = Layer.Success<ReturnType<(typeof ports)[number]["bridge"]>>

/** The variables of one port's bridge. */
export const variablesOf = (key: PortKey) =>
  [
    `PARTNERPAY_PROVIDER_${key}_URL`,
    `PARTNERPAY_PROVIDER_${key}_SECRET`,
    `PARTNERPAY_PROVIDER_${key}_TIMEOUT_MS`,
    `PARTNERPAY_PROVIDER_${key}_RETRIES`,
  ] as const

export type ProviderVariable = ReturnType<typeof variablesOf>[number]

export const providerVariables: ReadonlyArray<ProviderVariable> = ports.flatMap(({ key }) => variablesOf(key))

/** The configured bridges, by port. */
export type Bridges = Partial<Record<PortKey, BridgeConfig>>

/** Production was asked to start without a provider for these ports. */
export class ProvidersNotConfigured extends Schema.TaggedError<ProvidersNotConfigured>()("ProvidersNotConfigured", {
  missing: Schema.Array(Schema.String),
}) {
  override get message(): string {
    return `production needs a real provider for every port; not configured: ${this.missing.join("; ")}`
  }
}

/** How a missing port is named to the operator. */
export const describeMissing = (entry: (typeof ports)[number]): string =>
  `${entry.port} (set PARTNERPAY_PROVIDER_${entry.key}_URL and PARTNERPAY_PROVIDER_${entry.key}_SECRET)`

/** The ports without a bridge. */
export const missing = (bridges: Bridges): ReadonlyArray<(typeof ports)[number]> =>
  ports.filter(({ key }) => bridges[key] === undefined)

/** Every port on its bridge; fails naming every port without one. */
export const layer = (bridges: Bridges): Layer.Layer<ProductionProviders, ProvidersNotConfigured> => {
  const absent = missing(bridges)
  if (absent.length > 0) {
    const refusal = Effect.fail(new ProvidersNotConfigured({ missing: absent.map(describeMissing) }))
    return Layer.effectDiscard(refusal) as unknown as Layer.Layer<ProductionProviders, ProvidersNotConfigured>
  }
  const layers = ports.map(
    ({ key, bridge }) => bridge(bridges[key] as BridgeConfig) as Layer.Layer<ProductionProviders>,
  )
  return Layer.mergeAll(...(layers as [Layer.Layer<ProductionProviders>]))
}
