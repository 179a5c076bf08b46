/**
 * The service's settings: one declaration per environment variable, in the
 * order of the table in packages/app/README.md (a test keeps the two in step).
 *
 * A declaration is a `Config` (effect/Config) of one variable: its name, the
 * Schema that turns its text into a value (a failure carries the sentence an
 * operator reads, and never the value of a secret), its default (or what
 * happens when it is unset) and a line of documentation. Reading a setting
 * never fails: a bad value becomes the issue naming its variable, so that
 * Config.ts can report every bad variable at once and apply the rules that
 * tie settings together (required in production, needs another variable...).
 *
 * A blank variable counts as unset, and so does a provider that cannot be read
 * (`blankAsUnset`).
 */
import { fileURLToPath } from "node:url"
import { ClientAddress } from "@partnerpay/adapters-http"
import { Config, ConfigProvider, Effect, Option, Predicate, Schema, type SchemaIssue } from "effect"
import * as HttpBridge from "../providers/HttpBridge.ts"
import * as ProviderPorts from "../providers/ProviderPorts.ts"
import {
  AnySecret,
  bounded,
  ClientId,
  Currencies,
  DatabaseUrl,
  DataKey,
  Environment,
  HostName,
  HttpUrl,
  Level,
  LogFormat,
  LongSecret,
  Millis,
  minimumAdminTokenLength,
  minimumProviderSecretLength,
  OnOff,
  OutboundAllow,
  oneOf,
  Port,
  ReminderDays,
  SmtpUrl,
  StatementsPerSession,
  secretOf,
  Text,
  TimeoutMillis,
  TrimmedText,
  TrustedProxies,
} from "./SettingSchemas.ts"

/** One bad variable. `message` never contains a secret's value. */
export interface ConfigIssue {
  readonly variable: string
  readonly message: string
}

/** A setting as read: its value (the default, or `None`, when unset or bad), and the issue when it is bad. */
export interface Reading<A> {
  readonly value: A
  /** Whether the variable is set (to a good value or a bad one). */
  readonly set: boolean
  readonly issue: ConfigIssue | undefined
}

/** One environment variable the service reads. */
export interface Setting<A, Name extends string = string> {
  readonly name: Name
  /** The variable's text to its value; a failure's message is what the operator reads. */
  readonly schema: Schema.Codec<unknown, string>
  /** The README's Default column: the default value as written, or what happens when the variable is unset. */
  readonly documentedDefault: string
  readonly doc: string
  /** Reads the setting; never fails (a bad value is the issue naming the variable). */
  readonly config: Config.Config<Reading<A>>
}

/** The value type of a setting. */
export type Value<S> = S extends Setting<infer A> ? A : never

/** Declared settings as read. */
export type Readings<S extends Record<string, Setting<unknown>>> = {
  readonly [K in keyof S]: Reading<Value<S[K]>>
}

/** Reads declared settings together. */
export const read = <S extends Record<string, Setting<unknown>>>(declared: S): Config.Config<Readings<S>> =>
  Config.all(
    Object.fromEntries(Object.entries(declared).map(([key, each]) => [key, each.config])),
  ) as unknown as Config.Config<Readings<S>>

// ---------------------------------------------------------------------------------------------------------------
// Declaring settings

/** The first operator-facing message of a failed read (the leaves carry it; nothing echoes the value). */
const messageOf = (error: Config.ConfigError): string => {
  const find = (issue: SchemaIssue.Issue): string | undefined => {
    switch (issue._tag) {
      case "Pointer":
      case "Encoding":
      case "Filter":
        return find(issue.issue)
      case "Composite":
      case "AnyOf":
        return issue.issues.map(find).find(Predicate.isNotUndefined)
      case "InvalidValue":
      case "Forbidden":
        return typeof issue.annotations?.message === "string" ? issue.annotations.message : undefined
      default:
        return undefined
    }
  }
  return (Schema.isSchemaError(error.cause) ? find(error.cause.issue) : undefined) ?? "cannot be read"
}

/** Reads `name` with `schema`: `unset` when it is not set, and also, with the issue naming it, when it is bad. */
const reading = <A, B>(name: string, schema: Schema.Codec<A, string>, present: (value: A) => B, unset: B) =>
  Config.schema(schema, name).pipe(
    Config.map((value): Reading<B> => ({ value: present(value), set: true, issue: undefined })),
    Config.withDefault<Reading<B>>({ value: unset, set: false, issue: undefined }),
    Config.orElse((error) =>
      Config.succeed<Reading<B>>({ value: unset, set: true, issue: { variable: name, message: messageOf(error) } }),
    ),
  )

/** A setting with a default value (written in the README as the variable would be, unless `shown` says). */
const setting = <A, const Name extends string>(
  name: Name,
  schema: Schema.Codec<A, string>,
  options: { readonly default: NoInfer<A>; readonly shown?: string; readonly doc: string },
): Setting<A, Name> => ({
  name,
  schema,
  documentedDefault: options.shown ?? `\`${Schema.encodeSync(schema)(options.default)}\``,
  doc: options.doc,
  config: reading(name, schema, (value) => value, options.default),
})

/** A setting without a default value: `None` when unset (`whenUnset` says what that means). */
const optional = <A, const Name extends string>(
  name: Name,
  schema: Schema.Codec<A, string>,
  options: { readonly whenUnset: string; readonly doc: string },
): Setting<Option.Option<A>, Name> => ({
  name,
  schema,
  documentedDefault: options.whenUnset,
  doc: options.doc,
  config: reading(name, schema, Option.some, Option.none<A>()),
})

// ---------------------------------------------------------------------------------------------------------------
// The settings, in the README's order

/** The data directory when PARTNERPAY_DATA_DIR is unset: `packages/app/.data`, whatever the working directory. */
export const defaultDataDir: string = fileURLToPath(new URL("../../.data", import.meta.url))

const generatedInSandbox = "generated in sandbox"
const requiredInProduction = "required in production"

export const settings = {
  port: setting("PORT", Port, { default: 3000, doc: "TCP port of the public listener (0: any free port)." }),
  host: setting("HOST", HostName, { default: "127.0.0.1", doc: "Interface of the public listener." }),
  databaseUrl: optional("DATABASE_URL", DatabaseUrl, {
    whenUnset: "unset",
    doc: "The PostgreSQL server; unset: the embedded database in the data directory.",
  }),
  statementsPerSession: setting("PARTNERPAY_DB_STATEMENTS_PER_SESSION", StatementsPerSession, {
    default: 32,
    doc: "With DATABASE_URL: concurrent statements on one pooled session before the pool opens the next.",
  }),
  statementTimeoutMillis: setting("PARTNERPAY_DB_STATEMENT_TIMEOUT_MS", TimeoutMillis, {
    default: 15_000,
    doc: "With DATABASE_URL: a statement running longer is cancelled (503 with Retry-After to a request).",
  }),
  lockTimeoutMillis: setting("PARTNERPAY_DB_LOCK_TIMEOUT_MS", TimeoutMillis, {
    default: 1_000,
    doc: "With DATABASE_URL: a statement waiting on a lock longer fails; bounds the stall of the statements pipelined behind it.",
  }),
  idleInTransactionTimeoutMillis: setting("PARTNERPAY_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS", TimeoutMillis, {
    default: 10_000,
    doc: "With DATABASE_URL: a session idle in a transaction longer is closed by the server.",
  }),
  acquireTimeoutMillis: setting("PARTNERPAY_DB_ACQUIRE_TIMEOUT_MS", TimeoutMillis, {
    default: 5_000,
    doc: "With DATABASE_URL: a statement waiting longer for a session of a busy pool fails (503 with Retry-After to a request).",
  }),
  dataDir: setting("PARTNERPAY_DATA_DIR", Text, {
    default: defaultDataDir,
    shown: "`packages/app/.data`",
    doc: "The embedded database and the generated sandbox secrets.",
  }),
  environment: setting("PARTNERPAY_ENV", Environment, { default: "sandbox", doc: "`sandbox` or `production`." }),
  tokenSecret: optional("PARTNERPAY_TOKEN_SECRET", LongSecret, {
    whenUnset: generatedInSandbox,
    doc: "HS256 key of access tokens; required in production.",
  }),
  dataKey: optional("PARTNERPAY_DATA_KEY", DataKey, {
    whenUnset: generatedInSandbox,
    doc: "Master key of personal data encryption; required in production.",
  }),
  tokenSecretPrevious: optional("PARTNERPAY_TOKEN_SECRET_PREVIOUS", LongSecret, {
    whenUnset: "unset",
    doc: "The previous token secret, still verified during a key rotation.",
  }),
  secretPepper: optional("PARTNERPAY_SECRET_PEPPER", LongSecret, {
    whenUnset: generatedInSandbox,
    doc: "Key of the stored client-secret hashes; required in production.",
  }),
  outboundAllow: setting("PARTNERPAY_OUTBOUND_ALLOW", OutboundAllow, {
    default: [],
    shown: "(none)",
    doc: "Addresses and networks webhook deliveries and attachment downloads may reach although not public (comma-separated IPs or CIDRs).",
  }),
  trustProxy: setting("PARTNERPAY_TRUST_PROXY", TrustedProxies, {
    default: ClientAddress.none,
    doc: "The proxies whose X-Forwarded-For entries name the client: a number of hops, or addresses and networks.",
  }),
  otpSecret: optional("PARTNERPAY_OTP_SECRET", secretOf(32), {
    whenUnset: requiredInProduction,
    doc: "Keys customer OTP hashes; required in production.",
  }),
  chatSecret: optional("PARTNERPAY_CHAT_SECRET", secretOf(32), {
    whenUnset: requiredInProduction,
    doc: "Shared with the chat provider; required in production.",
  }),
  adminToken: optional("PARTNERPAY_ADMIN_TOKEN", secretOf(minimumAdminTokenLength), {
    whenUnset: "unset",
    doc: "Bearer token of the operator API; unset: no operator API.",
  }),
  adminPort: optional("PARTNERPAY_ADMIN_PORT", Port, {
    whenUnset: "unset",
    doc: "The operator API on a listener of its own at this port (needs the admin token).",
  }),
  adminHost: optional("PARTNERPAY_ADMIN_HOST", HostName, {
    whenUnset: "`127.0.0.1`",
    doc: "Interface of the operator listener (needs the admin port).",
  }),
  kybDelayMillis: setting("PARTNERPAY_KYB_DELAY_MS", Millis, {
    default: 2000,
    doc: "Sandbox: how long a new company waits for the sandbox KYB decision.",
  }),
  kybPollMillis: setting("PARTNERPAY_KYB_POLL_MS", Millis, {
    default: 60_000,
    doc: "Production: how often the KYB worker asks the KYB provider about a submitted company's verdict.",
  }),
  settlementDelayMillis: setting("PARTNERPAY_SETTLEMENT_DELAY_MS", Millis, {
    default: 2000,
    doc: "Sandbox: how long a transfer waits for the sandbox bank.",
  }),
  returnWindowDays: setting("PARTNERPAY_RETURN_WINDOW_DAYS", bounded(1, 120, "days"), {
    default: 60,
    doc: "How long after settlement the outcome poller still asks the money-movement provider about a transfer (returns such as R10 come up to 60 days later).",
  }),
  cardRefundRetryMillis: setting("PARTNERPAY_CARD_REFUND_RETRY_MS", Millis, {
    default: 60_000,
    doc: "How long after the card processor could not be reached a Pending card refund is asked again (doubled after each failed attempt, at most 5 attempts, then Failed); also the retry worker's idle wait.",
  }),
  moneyMovementPollMillis: setting("PARTNERPAY_MONEY_MOVEMENT_POLL_MS", Millis, {
    default: 30_000,
    doc: "Production: how long the money-movement workers wait between polls when idle (the sandbox follows its settlement delay).",
  }),
  payoutIntervalMillis: optional("PARTNERPAY_PAYOUT_INTERVAL_MS", bounded(1000, 2_678_400_000, "milliseconds"), {
    whenUnset: "production: `86400000` (daily); sandbox: the settlement delay",
    doc: "How often a company's available balance is paid out to its payout account.",
  }),
  deficitGraceMillis: optional("PARTNERPAY_DEFICIT_GRACE_MS", bounded(0, 31_536_000_000, "milliseconds"), {
    whenUnset: "production: `604800000` (7 days); sandbox: the payout interval (one payout cycle)",
    doc: "How long a company's available balance may stay negative (refunds or returns after payout) before the payout worker debits its payout account for the deficit (a payout with direction Debit).",
  }),
  payoutMinimumMinorUnits: setting(
    "PARTNERPAY_PAYOUT_MINIMUM_MINOR_UNITS",
    bounded(1, 10_000_000_000_000, "minor units"),
    {
      default: 100,
      doc: "The least amount paid out, in minor units (100: 1.00 USD); a smaller balance waits.",
    },
  ),
  payerLimitMinorUnits: setting("PARTNERPAY_PAYER_LIMIT_MINOR_UNITS", bounded(0, 10_000_000_000_000, "minor units"), {
    default: 500_000,
    doc: "The most the rail debits one payer over `PARTNERPAY_PAYER_LIMIT_DAYS`, in minor units of USD (500000 = 5,000.00 USD, Dwolla's limit for unverified customers); 0: no limit. Above it: 422 `PAYER_LIMIT_EXCEEDED`.",
  }),
  payerLimitDays: setting("PARTNERPAY_PAYER_LIMIT_DAYS", bounded(1, 31, "days"), {
    default: 7,
    doc: "The rolling window of the payer limit, in days.",
  }),
  sandboxCurrencies: setting("PARTNERPAY_SANDBOX_CURRENCIES", Currencies, {
    default: ["USD"],
    doc: "Sandbox: the currencies the simulated rail moves (Dwolla's: USD); others are 422 `CURRENCY_NOT_SUPPORTED`.",
  }),
  rateLimiting: setting("PARTNERPAY_RATE_LIMITING", OnOff, { default: true, doc: "Per-caller rate limits." }),
  tracing: setting("PARTNERPAY_TRACING", OnOff, { default: false, doc: "Effect spans (on with a trace endpoint)." }),
  metrics: setting("PARTNERPAY_METRICS", OnOff, { default: true, doc: "`GET /metrics` in the Prometheus format." }),
  metricsToken: optional("PARTNERPAY_METRICS_TOKEN", secretOf(minimumAdminTokenLength), {
    whenUnset: "unset",
    doc: "Bearer token `GET /metrics` requires (at least 32 characters); unset: none.",
  }),
  metricsPort: optional("PARTNERPAY_METRICS_PORT", Port, {
    whenUnset: "unset",
    doc: "`GET /metrics` on a listener of its own at this port (on HOST), and not on the public listener.",
  }),
  otlpEndpoint: optional("OTEL_EXPORTER_OTLP_ENDPOINT", HttpUrl, {
    whenUnset: "unset",
    doc: "OpenTelemetry collector base URL: spans go to its /v1/traces.",
  }),
  otlpTracesEndpoint: optional("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", HttpUrl, {
    whenUnset: "unset",
    doc: "The traces URL as is (before the base endpoint).",
  }),
  serviceName: setting("OTEL_SERVICE_NAME", TrimmedText, {
    default: "partnerpay",
    doc: "`service.name` of exported spans.",
  }),
  exportIntervalMillis: setting("OTEL_BSP_SCHEDULE_DELAY", Millis, {
    default: 5000,
    doc: "Milliseconds between span exports.",
  }),
  reminderDays: setting("PARTNERPAY_REMINDER_DAYS", ReminderDays, {
    default: [3, 0],
    doc: "Days before a payment request's due date its payer is reminded.",
  }),
  sandboxClientId: optional("PARTNERPAY_SANDBOX_CLIENT_ID", ClientId, {
    whenUnset: "unset",
    doc: "Sandbox: ClientId of a partner created at start.",
  }),
  sandboxClientSecret: optional("PARTNERPAY_SANDBOX_CLIENT_SECRET", secretOf(16), {
    whenUnset: "unset",
    doc: "Sandbox: that partner's ClientSecret.",
  }),
  sandboxWebhookUrl: optional("PARTNERPAY_SANDBOX_WEBHOOK_URL", HttpUrl, {
    whenUnset: "unset",
    doc: "Sandbox: that partner's webhook endpoint.",
  }),
  sandboxWebhookSecret: optional("PARTNERPAY_SANDBOX_WEBHOOK_SECRET", AnySecret, {
    whenUnset: "unset",
    doc: "Sandbox: that endpoint's signing secret.",
  }),
  logLevel: setting("LOG_LEVEL", Level, { default: "Info", doc: "The lowest level logged." }),
  logFormat: setting("LOG_FORMAT", LogFormat, {
    default: "auto",
    doc: "`json` (one JSON object per line), `pretty` (one readable line each) or `auto`: pretty when stdout is a terminal in sandbox, JSON otherwise (always JSON in production unless `pretty` is asked).",
  }),
  twilioAccountSid: optional("PARTNERPAY_TWILIO_ACCOUNT_SID", TrimmedText, {
    whenUnset: "unset",
    doc: "Twilio: the account SID (`AC...`); needed when a port is on `twilio`.",
  }),
  twilioAuthToken: optional("PARTNERPAY_TWILIO_AUTH_TOKEN", AnySecret, {
    whenUnset: "unset",
    doc: "Twilio: the account's auth token (or an API key secret); needed when a port is on `twilio`.",
  }),
  twilioVerifyServiceSid: optional("PARTNERPAY_TWILIO_VERIFY_SERVICE_SID", TrimmedText, {
    whenUnset: "unset",
    doc: "Twilio Verify: the service (`VA...`) of the one-time codes; needed with PARTNERPAY_PROVIDER_OTP=twilio.",
  }),
  twilioMessagingServiceSid: optional("PARTNERPAY_TWILIO_MESSAGING_SERVICE_SID", TrimmedText, {
    whenUnset: "unset",
    doc: "Twilio Messaging: the service (`MG...`) SMS are sent from; needed with PARTNERPAY_PROVIDER_SMS=twilio.",
  }),
  twilioBaseUrl: optional("PARTNERPAY_TWILIO_BASE_URL", HttpUrl, {
    whenUnset: "Twilio's hosts",
    doc: "Every Twilio API call to this base URL instead (a local fake in tests, an egress proxy).",
  }),
  smtpUrl: optional("PARTNERPAY_SMTP_URL", SmtpUrl, {
    whenUnset: "unset",
    doc: "E-mail over SMTP: the server, `smtp://user:password@host:587` (STARTTLS) or `smtps://...:465`; needed with PARTNERPAY_PROVIDER_EMAIL=smtp.",
  }),
  smtpFrom: optional("PARTNERPAY_SMTP_FROM", TrimmedText, {
    whenUnset: "unset",
    doc: "E-mail over SMTP: the sender, e.g. `Payments <payments@example.com>`; needed with the SMTP URL.",
  }),
  plaidClientId: optional("PARTNERPAY_PLAID_CLIENT_ID", TrimmedText, {
    whenUnset: "unset",
    doc: "Plaid: the client id; needed with PARTNERPAY_PROVIDER_BANK_LINKING=plaid.",
  }),
  plaidSecret: optional("PARTNERPAY_PLAID_SECRET", AnySecret, {
    whenUnset: "unset",
    doc: "Plaid: the secret of the chosen Plaid environment; needed with the client id.",
  }),
  plaidEnvironment: optional("PARTNERPAY_PLAID_ENV", oneOf(["sandbox", "production"] as const), {
    whenUnset: "unset",
    doc: "Plaid: `sandbox` (Plaid's test institutions) or `production`; needed with the client id.",
  }),
  plaidBaseUrl: optional("PARTNERPAY_PLAID_BASE_URL", HttpUrl, {
    whenUnset: "the environment's",
    doc: "Every Plaid API call to this base URL instead (a local fake in tests, an egress proxy).",
  }),
  plaidWebhookUrl: optional("PARTNERPAY_PLAID_WEBHOOK_URL", HttpUrl, {
    whenUnset: "unset",
    doc: "Plaid: where Plaid sends item (and Identity Verification) webhooks, this service's public `https://.../BankLinkWebhook/UpdateItem`.",
  }),
  plaidIdvTemplateId: optional("PARTNERPAY_PLAID_IDV_TEMPLATE_ID", TrimmedText, {
    whenUnset: "unset",
    doc: "Plaid: the Identity Verification template (`idvtmp_...`) KYC runs; needed with PARTNERPAY_PROVIDER_KYC=plaid.",
  }),
  plaidClientName: setting("PARTNERPAY_PLAID_CLIENT_NAME", TrimmedText, {
    default: "partnerpay",
    doc: "Plaid: the name Plaid Link shows the customer.",
  }),
  dwollaKey: optional("PARTNERPAY_DWOLLA_KEY", TrimmedText, {
    whenUnset: "unset",
    doc: "Dwolla: the application's key; needed when a port is on `dwolla`.",
  }),
  dwollaSecret: optional("PARTNERPAY_DWOLLA_SECRET", AnySecret, {
    whenUnset: "unset",
    doc: "Dwolla: the application's secret; needed with the key.",
  }),
  dwollaEnvironment: optional("PARTNERPAY_DWOLLA_ENVIRONMENT", oneOf(["sandbox", "production"] as const), {
    whenUnset: "unset",
    doc: "Dwolla: `sandbox` (api-sandbox.dwolla.com) or `production` (api.dwolla.com); needed with the key.",
  }),
  dwollaBaseUrl: optional("PARTNERPAY_DWOLLA_BASE_URL", HttpUrl, {
    whenUnset: "the environment's",
    doc: "Every Dwolla API call (the token too) to this base URL instead (a local fake in tests, an egress proxy).",
  }),
  dwollaWebhookSecret: optional("PARTNERPAY_DWOLLA_WEBHOOK_SECRET", AnySecret, {
    whenUnset: "unset",
    doc: "Dwolla: the secret of the webhook subscription (POST /ProviderWebhooks/Dwolla checks X-Request-Signature-SHA-256 with it); needed when a port is on `dwolla`.",
  }),
  dwollaPreviousWebhookSecret: optional("PARTNERPAY_DWOLLA_WEBHOOK_SECRET_PREVIOUS", AnySecret, {
    whenUnset: "unset",
    doc: "Dwolla, during a secret roll: the replaced subscription's secret, accepted beside PARTNERPAY_DWOLLA_WEBHOOK_SECRET until unset.",
  }),
  dwollaWebhookUrl: optional("PARTNERPAY_DWOLLA_WEBHOOK_URL", HttpUrl, {
    whenUnset: "unset (the operator creates the subscription)",
    doc: "Dwolla: this service's public `https://.../ProviderWebhooks/Dwolla`; when set, the webhook subscription is created at start if missing.",
  }),
  dwollaBusinessClassification: optional("PARTNERPAY_DWOLLA_BUSINESS_CLASSIFICATION", TrimmedText, {
    whenUnset: "unset",
    doc: "Dwolla: the business classification id of the companies (GET /business-classifications); needed with PARTNERPAY_PROVIDER_KYB=dwolla.",
  }),
  dwollaMasterFundingSource: optional("PARTNERPAY_DWOLLA_MASTER_FUNDING_SOURCE", TrimmedText, {
    whenUnset: "unset",
    doc: "Dwolla: the platform's own funding source id (its settlement account: debits go to it, payouts and refunds come from it); needed with PARTNERPAY_PROVIDER_MONEY_MOVEMENT=dwolla.",
  }),
  stripeSecretKey: optional("PARTNERPAY_STRIPE_SECRET_KEY", AnySecret, {
    whenUnset: "unset",
    doc: "Stripe: the account's secret API key (`sk_live_...`, `sk_test_...` or a restricted `rk_...`); needed with PARTNERPAY_PROVIDER_CARD_PROCESSOR=stripe.",
  }),
  stripeWebhookSecret: optional("PARTNERPAY_STRIPE_WEBHOOK_SECRET", AnySecret, {
    whenUnset: "unset",
    doc: "Stripe: the signing secret (`whsec_...`) of the webhook endpoint POST /providers/stripe/webhooks (its Stripe-Signature is checked with it); needed with PARTNERPAY_PROVIDER_CARD_PROCESSOR=stripe.",
  }),
  stripeBaseUrl: optional("PARTNERPAY_STRIPE_BASE_URL", HttpUrl, {
    whenUnset: "Stripe's (api.stripe.com)",
    doc: "Every Stripe API call to this base URL instead (a local fake in tests, an egress proxy).",
  }),
} as const

/** The settings read once (the bridges' are declared per port below). */
export type Settings = typeof settings

/** The settings of one provider port: its adapter and its bridge's (PARTNERPAY_PROVIDER_<PORT>_*). */
export const bridgeSettings = (key: ProviderPorts.PortKey) => {
  const [choice, url, secret, timeoutMillis, retries] = ProviderPorts.variablesOf(key)
  return {
    choice: setting(choice, oneOf(ProviderPorts.adaptersOf(key)), {
      default: "bridge",
      doc: "The port's provider: `bridge` (the operator's HTTP bridge) or a first-party adapter (docs/providers.md).",
    }),
    url: optional(url, HttpUrl, {
      whenUnset: requiredInProduction,
      doc: "Production: the HTTP bridge of the port (https, or http on loopback).",
    }),
    secret: optional(secret, secretOf(minimumProviderSecretLength), {
      whenUnset: requiredInProduction,
      doc: "The bridge's signing secret; goes with the URL.",
    }),
    timeoutMillis: setting(timeoutMillis, bounded(1, 120_000, "milliseconds"), {
      default: HttpBridge.defaultTimeoutMillis,
      doc: "Per attempt (the bridge's, or the first-party adapter's calls).",
    }),
    retries: setting(retries, bounded(0, 10, "retries"), {
      default: HttpBridge.defaultRetries,
      doc: "Retries after the first attempt.",
    }),
  } as const
}

/** The settings of every provider port's bridge. */
export const bridges = Object.fromEntries(ProviderPorts.ports.map(({ key }) => [key, bridgeSettings(key)])) as {
  readonly [K in ProviderPorts.PortKey]: ReturnType<typeof bridgeSettings>
}

/** Every declared setting, in the README's order (the bridges' port after port). */
export const all: ReadonlyArray<Setting<unknown>> = [
  ...Object.values(settings),
  ...Object.values(bridges).flatMap((bridge) => Object.values(bridge)),
]

/** The settings of one bridge. */
export type BridgeSettings = ReturnType<typeof bridgeSettings>

/** Every bridge's settings read together, by port. */
export const readBridges = Config.all(
  Object.fromEntries(ProviderPorts.ports.map(({ key }) => [key, read(bridges[key])])),
) as unknown as Config.Config<{ readonly [K in ProviderPorts.PortKey]: Readings<BridgeSettings> }>

/** `provider`, with a blank variable, or one that cannot be read, counted as unset. */
export const blankAsUnset = (provider: ConfigProvider.ConfigProvider): ConfigProvider.ConfigProvider =>
  ConfigProvider.make((path) =>
    provider.load(path).pipe(
      Effect.map((node) => (node?.value !== undefined && node.value.trim() === "" ? undefined : node)),
      Effect.orElseSucceed(() => undefined),
    ),
  )
