/**
 * Every provider port production needs, and the adapters that can serve it.
 *
 * Each port is served by the operator's HTTP bridge (always possible: any
 * vendor behind a small service, docs/providers.md) or, for some ports, by a
 * first-party adapter on the vendor's official SDK (`twilio`, `smtp`,
 * `plaid`, `dwolla`, `stripe`). `PARTNERPAY_PROVIDER_<KEY>` picks one (default `bridge`); each
 * adapter has its own settings (Settings.ts declares them, Config.ts checks
 * them and names every missing one in one error).
 *
 * Production never runs on a sandbox provider. A port every service needs
 * (`required`: OTP, KYC, bank linking, money movement) must be configured or
 * the start is refused. The others are optional capabilities an operator may
 * leave unset, and the start lists those that are off (`off`): KYB (no KYB
 * worker runs, companies stay Unverified), the card processor and e-signature
 * (their routes answer 422 `FEATURE_NOT_AVAILABLE` naming the capability:
 * the ports fail with `Providers.FeatureNotAvailable`), and the message
 * channels SMS, e-mail and push (a channel without a provider is skipped: its
 * messages are undeliverable and logged). A new port is one line here.
 *
 * The sandbox environment keeps the in-memory sandboxes (SandboxProviders.ts).
 */
import {
  CardCharger,
  CompanyProviders,
  CustomerProviders,
  Messaging,
  PaymentProviders,
  Providers,
} from "@partnerpay/domain"
import { Effect, Layer, Schema } from "effect"
import * as BankLinkerBridge from "./BankLinkerBridge.ts"
import * as CardProcessorBridge from "./CardProcessorBridge.ts"
import type * as DwollaClient from "./DwollaClient.ts"
import * as ESignatureBridge from "./ESignatureBridge.ts"
import type { BridgeConfig } from "./HttpBridge.ts"
import * as KybBridge from "./KybBridge.ts"
import * as KycBridge from "./KycBridge.ts"
import * as MessagingBridge from "./MessagingBridge.ts"
import * as MoneyMovementBridge from "./MoneyMovementBridge.ts"
import * as OtpSenderBridge from "./OtpSenderBridge.ts"
import type * as PlaidBankLinker from "./PlaidBankLinker.ts"
import type * as SmtpEmail from "./SmtpEmail.ts"
import type * as StripeClient from "./StripeClient.ts"
import type * as TwilioVerify from "./TwilioVerify.ts"

/**
 * A first-party adapter's layer, its module (and its vendor's SDK: Plaid's alone holds about 30 MB
 * of heap) loaded only when a port selects it: a service on bridges or in the sandbox never loads
 * an SDK it does not use.
 */
const lazy =
  <C, A, E, R>(load: () => Promise<{ readonly layer: (config: C) => Layer.Layer<A, E, R> }>) =>
  (config: C): Layer.Layer<A, E, R> =>
    Layer.unwrap(Effect.map(Effect.promise(load), (module) => module.layer(config)))

/** The first-party adapters' settings (Config.ts reads them; each is present when some port picks it). */
export interface VendorSettings {
  readonly twilio?: TwilioVerify.TwilioConfig | undefined
  readonly smtp?: SmtpEmail.SmtpConfig | undefined
  readonly plaid?: PlaidBankLinker.PlaidConfig | undefined
  readonly dwolla?: DwollaClient.DwollaConfig | undefined
  readonly stripe?: StripeClient.StripeConfig | undefined
}

/**
 * The ports. `key` names the variables, `port` is what an operator reads, `required` whether production
 * refuses to start without it, `adapters` the choices of `PARTNERPAY_PROVIDER_<KEY>` (`bridge` first, the
 * default), `absent` what stands in for an optional port left unset.
 */
export const ports = [
  {
    key: "OTP",
    port: "OTP sender (SMS one-time login codes)",
    required: true,
    adapters: { bridge: OtpSenderBridge.layer, twilio: lazy(() => import("./TwilioVerify.ts")) },
  },
  {
    key: "KYC",
    port: "identity verification (KYC)",
    required: true,
    adapters: { bridge: KycBridge.layer, plaid: lazy(() => import("./PlaidKyc.ts")) },
  },
  {
    key: "BANK_LINKING",
    port: "bank linking",
    required: true,
    adapters: { bridge: BankLinkerBridge.layer, plaid: lazy(() => import("./PlaidBankLinker.ts")) },
  },
  {
    key: "KYB",
    port: "business verification (KYB)",
    required: false,
    adapters: { bridge: KybBridge.layer, dwolla: lazy(() => import("./DwollaKyb.ts")) },
  },
  {
    key: "MONEY_MOVEMENT",
    port: "money movement (ACH debits, refund credits, payouts)",
    required: true,
    adapters: { bridge: MoneyMovementBridge.layer, dwolla: lazy(() => import("./DwollaMoneyMovement.ts")) },
  },
  {
    key: "CARD_PROCESSOR",
    port: "card processor (saved cards, card payments)",
    required: false,
    adapters: { bridge: CardProcessorBridge.layer, stripe: lazy(() => import("./StripeCardProcessor.ts")) },
  },
  {
    key: "E_SIGNATURE",
    port: "e-signature (reimbursement claims)",
    required: false,
    adapters: { bridge: ESignatureBridge.layer },
  },
  {
    key: "SMS",
    port: "SMS messages (payment reminders and status messages)",
    required: false,
    adapters: { bridge: MessagingBridge.smsLayer, twilio: lazy(() => import("./TwilioMessaging.ts")) },
  },
  {
    key: "EMAIL",
    port: "e-mail messages (payment reminders and status messages)",
    required: false,
    adapters: { bridge: MessagingBridge.emailLayer, smtp: lazy(() => import("./SmtpEmail.ts")) },
  },
  {
    key: "PUSH",
    port: "push messages (payment reminders and status messages)",
    required: false,
    adapters: { bridge: MessagingBridge.pushLayer },
  },
] as const

type Entry = (typeof ports)[number]

export type PortKey = Entry["key"]

/** The adapters that can serve a port (`bridge` or a vendor's). */
export type AdapterName = { [K in PortKey]: keyof Extract<Entry, { key: K }>["adapters"] }[PortKey]

/** Every adapter name any port offers. */
export const adapterNames: ReadonlyArray<AdapterName> = ["bridge", "twilio", "smtp", "plaid", "dwolla", "stripe"]

/** The adapters of one port, `bridge` first. */
export const adaptersOf = (key: PortKey): ReadonlyArray<AdapterName> =>
  Object.keys(ports.find((entry) => entry.key === key)?.adapters ?? {}) as Array<AdapterName>

/** The services the production providers provide. */
export type ProductionProviders =
  | Layer.Success<ReturnType<Entry["adapters"]["bridge"]>>
  | CompanyProviders.KybVerifier
  | Messaging.Senders
  | CustomerProviders.BankLinkCallbacks

/** The variables of one port: its choice of adapter, then its bridge's. */
export const variablesOf = (key: PortKey) =>
  [
    `PARTNERPAY_PROVIDER_${key}`,
    `PARTNERPAY_PROVIDER_${key}_URL`,
    `PARTNERPAY_PROVIDER_${key}_SECRET`,
    `PARTNERPAY_PROVIDER_${key}_TIMEOUT_MS`,
    `PARTNERPAY_PROVIDER_${key}_RETRIES`,
  ] as const

export type ProviderVariable = ReturnType<typeof variablesOf>[number]

export const providerVariables: ReadonlyArray<ProviderVariable> = ports.flatMap(({ key }) => variablesOf(key))

/** How one port is served. */
export type Selection =
  | { readonly _tag: "bridge"; readonly bridge: BridgeConfig }
  /** A first-party adapter on its vendor's settings; its calls wait at most `timeoutMillis`. */
  | { readonly _tag: Exclude<AdapterName, "bridge">; readonly timeoutMillis: number }

/** The configured ports, and the vendors' settings their adapters read. */
export interface Configuration {
  readonly ports: Partial<Record<PortKey, Selection>>
  readonly vendors: VendorSettings
}

/** The configured bridges, by port (those served by a bridge). */
export type Bridges = Partial<Record<PortKey, BridgeConfig>>

/** Only bridges (tests and embedders): each port given on its bridge. */
export const onBridges = (bridges: Bridges): Configuration => ({
  ports: Object.fromEntries(
    Object.entries(bridges).map(([key, bridge]) => [key, { _tag: "bridge", bridge: bridge as BridgeConfig }]),
  ),
  vendors: {},
})

/** Production was asked to start without a provider for these ports. */
export class ProvidersNotConfigured extends Schema.TaggedError<ProvidersNotConfigured>()("ProvidersNotConfigured", {
  missing: Schema.Array(Schema.String),
}) {
  override get message(): string {
    return `production needs a real provider for every port; not configured: ${this.missing.join("; ")}`
  }
}

/** How a missing port is named to the operator. */
export const describeMissing = (entry: Entry): string =>
  `${entry.port} (set PARTNERPAY_PROVIDER_${entry.key}_URL and PARTNERPAY_PROVIDER_${entry.key}_SECRET, ` +
  `or PARTNERPAY_PROVIDER_${entry.key} to one of ${Object.keys(entry.adapters).join(", ")})`

/** The required ports without a provider. */
export const missing = (providers: Configuration): ReadonlyArray<Entry> =>
  ports.filter(({ key, required }) => required && providers.ports[key] === undefined)

/** The optional ports left unset: the capabilities this service runs without (the start lists them). */
export const off = (providers: Configuration): ReadonlyArray<Entry> =>
  ports.filter(({ key, required }) => !required && providers.ports[key] === undefined)

/** How the start names the capabilities that are off. */
export const describeOff = (providers: Configuration): string | undefined => {
  const left = off(providers)
  return left.length === 0
    ? undefined
    : `optional capabilities off (no provider configured): ${left
        .map((entry) => `${entry.port} [PARTNERPAY_PROVIDER_${entry.key}]`)
        .join("; ")}`
}

/**
 * An optional port left unset: KYB answers unavailable (nothing calls it), a message channel
 * undeliverable, the card processor and e-signature `FeatureNotAvailable` (422 to the caller).
 */
const absent = (entry: Entry): Layer.Layer<ProductionProviders> => {
  const key = entry.key
  const unset = `no provider is configured (PARTNERPAY_PROVIDER_${key})`
  const notAvailable = () => Effect.fail(new Providers.FeatureNotAvailable({ capability: entry.port }))
  const channel = (name: Messaging.Channel) => ({
    send: () => Effect.fail(new Messaging.MessageUndeliverable({ channel: name, reason: unset })),
  })
  switch (key) {
    case "SMS":
      return Layer.succeed(
        Messaging.SmsSender,
        Messaging.SmsSender.of(channel("sms")),
      ) as Layer.Layer<ProductionProviders>
    case "EMAIL":
      return Layer.succeed(
        Messaging.EmailSender,
        Messaging.EmailSender.of(channel("email")),
      ) as Layer.Layer<ProductionProviders>
    case "PUSH":
      return Layer.succeed(
        Messaging.PushSender,
        Messaging.PushSender.of(channel("push")),
      ) as Layer.Layer<ProductionProviders>
    case "CARD_PROCESSOR":
      return Layer.mergeAll(
        Layer.succeed(
          CustomerProviders.CardProcessor,
          CustomerProviders.CardProcessor.of({
            setupCard: notAvailable,
            listCardMethods: notAvailable,
            registerCardPayment: notAvailable,
          }),
        ),
        Layer.succeed(
          CardCharger.CardCharger,
          CardCharger.CardCharger.of({
            charge: notAvailable,
            // Nothing can be given back without a processor: a card refund stays Pending, nothing refunded.
            refund: () => Effect.fail(new Providers.ProviderUnavailable({ provider: key, reason: unset })),
          }),
        ),
      ) as Layer.Layer<ProductionProviders>
    case "E_SIGNATURE":
      return Layer.succeed(
        PaymentProviders.ESignature,
        PaymentProviders.ESignature.of({
          createReimbursementEnvelope: notAvailable,
          // No envelope is ever made without a provider, so none is ever asked about.
          envelopeStatus: () => Effect.fail(new Providers.ProviderUnavailable({ provider: key, reason: unset })),
        }),
      ) as Layer.Layer<ProductionProviders>
    default: {
      const unavailable = () => Effect.fail(new Providers.ProviderUnavailable({ provider: key, reason: unset }))
      return Layer.succeed(
        CompanyProviders.KybVerifier,
        CompanyProviders.KybVerifier.of({ submit: unavailable, status: unavailable }),
      ) as Layer.Layer<ProductionProviders>
    }
  }
}

/** The layer of one configured port. */
const served = (entry: Entry, selection: Selection, vendors: VendorSettings): Layer.Layer<ProductionProviders> => {
  const adapters = entry.adapters as Record<string, (config: never) => Layer.Layer<ProductionProviders>>
  const adapter = adapters[selection._tag]
  const vendor = selection._tag === "bridge" ? undefined : vendors[selection._tag]
  const setting =
    selection._tag === "bridge"
      ? selection.bridge
      : vendor === undefined
        ? undefined
        : { ...vendor, timeoutMillis: selection.timeoutMillis }
  if (adapter === undefined || setting === undefined) {
    const refusal = new ProvidersNotConfigured({ missing: [describeMissing(entry)] })
    return Layer.effectDiscard(Effect.die(refusal)) as unknown as Layer.Layer<ProductionProviders>
  }
  return adapter(setting as never)
}

/**
 * The bank-link provider's notifications (POST /BankLinkWebhook/UpdateItem): Plaid's verified item webhooks
 * when bank linking is on Plaid; refused otherwise (a bridge's vendor has no way in yet).
 */
const notifications = (providers: Configuration): Layer.Layer<ProductionProviders> => {
  const plaid = providers.vendors.plaid
  const selection = providers.ports.BANK_LINKING
  if (selection?._tag === "plaid" && plaid !== undefined) {
    return lazy(() => import("./PlaidWebhooks.ts"))({
      ...plaid,
      timeoutMillis: selection.timeoutMillis,
    }) as Layer.Layer<ProductionProviders>
  }
  const refused = new CustomerProviders.BankLinkCallbackRefused({
    reason: "no bank-link provider sends notifications here",
  })
  return Layer.succeed(
    CustomerProviders.BankLinkCallbacks,
    CustomerProviders.BankLinkCallbacks.of({ verify: () => Effect.fail(refused) }),
  ) as Layer.Layer<ProductionProviders>
}

/**
 * Bank linking on Plaid while money moves on Dwolla: the linker makes each linked account's Dwolla funding
 * source from its Plaid processor token (`DwollaFundingSources`). Undefined otherwise.
 */
const plaidWithDwolla = (
  key: PortKey,
  selection: Selection,
  providers: Configuration,
): Layer.Layer<ProductionProviders> | undefined => {
  const { plaid, dwolla } = providers.vendors
  const movement = providers.ports.MONEY_MOVEMENT
  if (key !== "BANK_LINKING" || selection._tag !== "plaid" || movement?._tag !== "dwolla") return undefined
  if (plaid === undefined || dwolla === undefined) return undefined
  const modules = Effect.promise(() =>
    Promise.all([import("./PlaidBankLinker.ts"), import("./DwollaFundingSources.ts")]),
  )
  return Layer.unwrap(
    Effect.map(modules, ([linker, fundingSources]) =>
      linker.layerWithFundingSources(
        { ...plaid, timeoutMillis: selection.timeoutMillis },
        fundingSources.current({ ...dwolla, timeoutMillis: movement.timeoutMillis }),
      ),
    ),
  ) as Layer.Layer<ProductionProviders>
}

/** Every port on its provider; fails naming every required port without one. */
export const layer = (providers: Configuration): Layer.Layer<ProductionProviders, ProvidersNotConfigured> => {
  const left = missing(providers)
  if (left.length > 0) {
    const refusal = Effect.fail(new ProvidersNotConfigured({ missing: left.map(describeMissing) }))
    return Layer.effectDiscard(refusal) as unknown as Layer.Layer<ProductionProviders, ProvidersNotConfigured>
  }
  const layers = ports.map((entry) => {
    const selection = providers.ports[entry.key]
    if (selection === undefined) return absent(entry)
    const linking = plaidWithDwolla(entry.key, selection, providers)
    return linking ?? served(entry, selection, providers.vendors)
  })
  return Layer.mergeAll(...(layers as [Layer.Layer<ProductionProviders>]), notifications(providers))
}
