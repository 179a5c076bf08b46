/**
 * The service's configuration, read from the environment (through Effect's
 * `ConfigProvider`, so tests pass a record) and validated once at start.
 *
 * Each variable is a declared `Config` in Settings.ts (its Schema, default and
 * documentation); this module reads them all at once and applies the rules
 * that tie them together: what production requires (the secrets, a provider
 * bridge for every port: sandboxes never run in production), what needs what
 * (the admin port needs the admin token, a webhook secret needs its URL...).
 * A bad start names EVERY bad variable at once with a human message; secret
 * values are never echoed. An empty variable counts as unset. Secrets are
 * `Redacted`.
 *
 * Defaults chosen where the interface is silent:
 * - HOST defaults to 127.0.0.1 (a sandbox started on a laptop is not exposed to
 *   the network by accident); containers set HOST=0.0.0.0.
 * - PARTNERPAY_ADMIN_HOST (the operator listener's, with PARTNERPAY_ADMIN_PORT)
 *   defaults to 127.0.0.1 whatever HOST is: the operator API is reachable from
 *   elsewhere only when asked for.
 * - PORT 0 is accepted (the OS picks a free port; the start line shows it).
 * - without DATABASE_URL the embedded PGlite database lives in
 *   PARTNERPAY_DATA_DIR (default `packages/app/.data`, an absolute path
 *   resolved from Settings.ts, so the service and the CLI use the same
 *   database wherever they are started from; a relative
 *   PARTNERPAY_DATA_DIR is relative to the working directory).
 */
import type { ClientAddress } from "@partnerpay/adapters-http"
import type { PgDatabase } from "@partnerpay/adapters-pg"
import { ConfigProvider, Effect, type LogLevel, Option, Redacted, Schema } from "effect"
import type * as ProviderPorts from "../providers/ProviderPorts.ts"
import { Issues, type Read, readAll } from "./ConfigReading.ts"
import { providersOf } from "./ProviderConfig.ts"
import * as SettingSchemas from "./SettingSchemas.ts"
import * as Settings from "./Settings.ts"

export type Environment = SettingSchemas.Environment

export type DatabaseConfig =
  | {
      readonly _tag: "Postgres"
      readonly url: Redacted.Redacted<string>
      /** PARTNERPAY_DB_STATEMENTS_PER_SESSION: statements pipelined on one pooled session (default 32). */
      readonly statementsPerSession: number
      /** PARTNERPAY_DB_*_TIMEOUT_MS: every session's statement, lock and idle-in-transaction timeouts; the pool's acquisition bound. */
      readonly timeouts: PgDatabase.SessionTimeouts
    }
  | { readonly _tag: "Pglite"; readonly dataDir: string }

export interface SandboxPartnerConfig {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  readonly webhookUrl: Option.Option<string>
  readonly webhookSecret: Option.Option<Redacted.Redacted<string>>
}

export interface AppConfig {
  readonly port: number
  readonly host: string
  readonly environment: Environment
  readonly database: DatabaseConfig
  /** Holds the embedded database and the generated sandbox token secret. */
  readonly dataDir: string
  /** From PARTNERPAY_TOKEN_SECRET; required in production, generated in sandbox when absent. */
  readonly tokenSecret: Option.Option<Redacted.Redacted<string>>
  /** From PARTNERPAY_TOKEN_SECRET_PREVIOUS: tokens signed with it still verify during a key rotation. */
  readonly tokenSecretPrevious: Option.Option<Redacted.Redacted<string>>
  /** From PARTNERPAY_SECRET_PEPPER: keys client-secret hashes; required in production, generated in sandbox. */
  readonly secretPepper: Option.Option<Redacted.Redacted<string>>
  /** PARTNERPAY_DATA_KEY: the personal-data master key (DataKey.ts); required in production, generated in sandbox. */
  readonly dataKey: Option.Option<Redacted.Redacted<string>>
  /**
   * PARTNERPAY_TRUST_PROXY ("off" by default): the proxies in front of the service, as a number of hops or
   * their addresses and networks; X-Forwarded-For is read from the right through them (ClientAddress.ts).
   */
  readonly trustedProxies: ClientAddress.TrustedProxies
  /** PARTNERPAY_OUTBOUND_ALLOW: addresses and networks outbound calls may reach although not public. */
  readonly outboundAllow: ReadonlyArray<string>
  /** Keys customer OTP hashes (production; the sandbox uses fixed codes). */
  readonly otpSecret: Option.Option<Redacted.Redacted<string>>
  /** Shared with the chat provider (production; the sandbox uses a public test secret). */
  readonly chatSecret: Option.Option<Redacted.Redacted<string>>
  /** Enables the operator API when set. */
  readonly adminToken: Option.Option<Redacted.Redacted<string>>
  /**
   * PARTNERPAY_ADMIN_PORT (and PARTNERPAY_ADMIN_HOST, default 127.0.0.1): the operator API on a listener of
   * its own, and not on the public one. None: /admin is served with the partner API.
   */
  readonly adminListener: Option.Option<AdminListener>
  readonly kybDelayMillis: number
  /** Production: how often the KYB worker polls a submitted company's verdict. */
  readonly kybPollMillis: number
  readonly settlementDelayMillis: number
  /** How long after settlement the outcome poller asks about a transfer (days). */
  readonly returnWindowDays: number
  /** Production: the money-movement workers' idle wait. */
  readonly moneyMovementPollMillis: number
  /** The first backoff of a Pending card refund's retries, and the retry worker's idle wait. */
  readonly cardRefundRetryMillis: number
  /** How often a company's balance is paid out (PARTNERPAY_PAYOUT_INTERVAL_MS; production daily, sandbox each settlement cycle). */
  readonly payoutIntervalMillis: number
  /** How long a negative balance lasts before its deficit is debited (PARTNERPAY_DEFICIT_GRACE_MS; production 7 days, sandbox one payout cycle). */
  readonly deficitGraceMillis: number
  /** The least amount paid out, in minor units (PARTNERPAY_PAYOUT_MINIMUM_MINOR_UNITS, default 100). */
  readonly payoutMinimumMinorUnits: number
  /** The rail's payer limit (PARTNERPAY_PAYER_LIMIT_MINOR_UNITS of USD over PARTNERPAY_PAYER_LIMIT_DAYS); 0: none. */
  readonly payerLimitMinorUnits: number
  readonly payerLimitDays: number
  /** Sandbox: the currencies the simulated rail moves (PARTNERPAY_SANDBOX_CURRENCIES, default USD). */
  readonly sandboxCurrencies: ReadonlyArray<string>
  /** Per-caller rate limits (PARTNERPAY_RATE_LIMITING, "on" by default; "off" for load tests behind another limiter). */
  readonly rateLimiting: boolean
  /** Effect spans (PARTNERPAY_TRACING, "off" by default: span creation costs CPU on every request; on when traces are exported). */
  readonly tracing: boolean
  /** `GET /metrics` in the Prometheus text format (PARTNERPAY_METRICS, "on" by default). */
  readonly metrics: boolean
  /** PARTNERPAY_METRICS_TOKEN: the bearer token `GET /metrics` requires, when set. */
  readonly metricsToken: Option.Option<Redacted.Redacted<string>>
  /** PARTNERPAY_METRICS_PORT: `GET /metrics` on a listener of its own (on HOST), not on the public one. */
  readonly metricsPort: Option.Option<number>
  /** OpenTelemetry trace export (OTLP over HTTP, JSON), when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set. */
  readonly traceExport: Option.Option<TraceExportConfig>
  readonly logLevel: LogLevel.LogLevel
  /** JSON lines, or readable lines on a terminal (LOG_FORMAT; `auto` decided here from stdout and the environment). */
  readonly logFormat: "json" | "pretty"
  /** Days before a payment request's due date its payer is reminded (PARTNERPAY_REMINDER_DAYS, default 3,0). */
  readonly reminderDays: ReadonlyArray<number>
  /** The partner created at start in sandbox (absent in production). */
  readonly sandboxPartner: Option.Option<SandboxPartnerConfig>
  /**
   * The provider of each port (PARTNERPAY_PROVIDER_<PORT>: its bridge, PARTNERPAY_PROVIDER_<PORT>_*, or a
   * first-party adapter and its vendor's settings): every required port in production, unused in sandbox.
   */
  readonly providers: ProviderPorts.Configuration
}

export interface AdminListener {
  readonly port: number
  readonly host: string
}

export interface TraceExportConfig {
  /** Where spans are sent: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, or OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`. */
  readonly url: string
  /** OTEL_SERVICE_NAME, default `partnerpay`. */
  readonly serviceName: string
  /** OTEL_BSP_SCHEDULE_DELAY (milliseconds between exports), default 5000. */
  readonly exportIntervalMillis: number
}

export {
  maxReminderDays,
  maxStatementsPerSession,
  minimumAdminTokenLength,
  minimumProviderSecretLength,
  minimumTokenSecretBytes,
} from "./SettingSchemas.ts"
export type { ConfigIssue } from "./Settings.ts"
export { defaultDataDir } from "./Settings.ts"

export class ConfigInvalid extends Schema.TaggedError<ConfigInvalid>()("ConfigInvalid", {
  issues: Schema.Array(Schema.Struct({ variable: Schema.String, message: Schema.String })),
}) {
  override get message(): string {
    return `invalid configuration:\n${this.issues.map((issue) => `  ${issue.variable}: ${issue.message}`).join("\n")}`
  }
}

export type Variable = Settings.Settings[keyof Settings.Settings]["name"] | ProviderPorts.ProviderVariable

/** Every variable the service reads. */
export const variables: ReadonlyArray<Variable> = Settings.all.map((setting) => setting.name as Variable)

/** Reads and validates the configuration from the current `ConfigProvider` (the environment by default). */
export const load: Effect.Effect<AppConfig, ConfigInvalid> = Effect.gen(function* () {
  const provider = yield* ConfigProvider.ConfigProvider
  // Reading never fails: a bad value is an issue in its place, and an unreadable source counts as unset.
  const read = yield* Effect.orDie(readAll.parse(Settings.blankAsUnset(provider)))
  const issues = new Issues()
  const config = validate(read, issues)
  return issues.list.length > 0 ? yield* new ConfigInvalid({ issues: issues.list }) : config
})

/** Validates raw values given as a record (for tests and embedders); an empty value counts as unset. */
export const fromRecord = (raw: Partial<Record<Variable, string>>): Effect.Effect<AppConfig, ConfigInvalid> =>
  load.pipe(Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(raw)))

const { settings } = Settings

const requiredInProduction = (what: string) => `is required when PARTNERPAY_ENV=production (${what})`

const randomBytes = `at least ${SettingSchemas.minimumTokenSecretBytes} random bytes`

/** The configuration, every rule applied; its issues are left in `issues`. */
const validate = (read: Read, issues: Issues): AppConfig => {
  const value = read.settings
  const port = issues.take(value.port)
  const host = issues.take(value.host)
  const environment = issues.take(value.environment)
  const production = environment === "production"

  const dataDir = issues.take(value.dataDir)
  const databaseUrl = issues.take(value.databaseUrl)
  const database: DatabaseConfig = Option.isSome(databaseUrl)
    ? {
        _tag: "Postgres",
        url: databaseUrl.value,
        statementsPerSession: issues.take(value.statementsPerSession),
        timeouts: {
          statementMillis: issues.take(value.statementTimeoutMillis),
          lockMillis: issues.take(value.lockTimeoutMillis),
          idleInTransactionMillis: issues.take(value.idleInTransactionTimeoutMillis),
          acquireMillis: issues.take(value.acquireTimeoutMillis),
        },
      }
    : { _tag: "Pglite", dataDir: `${dataDir.replace(/\/+$/, "")}/pglite` }

  /** An optional secret, named when production requires it and it is unset. */
  const secret = <A>(
    setting: { readonly name: string },
    read: Settings.Reading<Option.Option<A>>,
    required: string | undefined,
  ) => {
    if (required !== undefined && production && !read.set) issues.add(setting.name, requiredInProduction(required))
    return issues.take(read)
  }
  const tokenSecret = secret(settings.tokenSecret, value.tokenSecret, randomBytes)
  const tokenSecretPrevious = secret(settings.tokenSecretPrevious, value.tokenSecretPrevious, undefined)
  const secretPepper = secret(settings.secretPepper, value.secretPepper, randomBytes)
  const dataKey = secret(settings.dataKey, value.dataKey, "32 random bytes: `openssl rand -base64 32`")
  const trustedProxies = issues.take(value.trustProxy)
  const outboundAllow = issues.take(value.outboundAllow)
  const adminToken = issues.take(value.adminToken)
  const adminListener = adminListenerOf(read, issues, port)
  const otpSecret = secret(settings.otpSecret, value.otpSecret, "at least 32 characters")
  const chatSecret = secret(settings.chatSecret, value.chatSecret, "at least 32 characters")

  const kybDelayMillis = issues.take(value.kybDelayMillis)
  const kybPollMillis = issues.take(value.kybPollMillis)
  const settlementDelayMillis = issues.take(value.settlementDelayMillis)
  const returnWindowDays = issues.take(value.returnWindowDays)
  const moneyMovementPollMillis = issues.take(value.moneyMovementPollMillis)
  const cardRefundRetryMillis = issues.take(value.cardRefundRetryMillis)
  const payoutIntervalMillis = Option.getOrElse(issues.take(value.payoutIntervalMillis), () =>
    production ? 86_400_000 : settlementDelayMillis,
  )
  const deficitGraceMillis = Option.getOrElse(issues.take(value.deficitGraceMillis), () =>
    production ? 604_800_000 : payoutIntervalMillis,
  )
  const payoutMinimumMinorUnits = issues.take(value.payoutMinimumMinorUnits)
  const payerLimitMinorUnits = issues.take(value.payerLimitMinorUnits)
  const payerLimitDays = issues.take(value.payerLimitDays)
  const sandboxCurrencies = issues.take(value.sandboxCurrencies)
  const rateLimiting = issues.take(value.rateLimiting)
  const tracingAsked = issues.take(value.tracing)
  const metrics = issues.take(value.metrics)
  const metricsToken = issues.take(value.metricsToken)
  const metricsPort = issues.take(value.metricsPort)
  if (Option.isSome(metricsPort) && metricsPort.value !== 0 && metricsPort.value === port)
    issues.add(settings.metricsPort.name, `must differ from PORT (${port}): the metrics get a listener of their own`)
  if (Option.isSome(metricsPort) && !metrics)
    issues.add(settings.metricsPort.name, "is set but PARTNERPAY_METRICS is off")
  const traceExport = traceExportOf(read, issues)
  const reminderDays = issues.take(value.reminderDays)
  const logLevel = issues.take(value.logLevel)
  const logFormatAsked = issues.take(value.logFormat)
  const sandboxPartner = sandboxPartnerOf(read, issues, environment)
  const providers = providersOf(read, issues, production)

  return {
    port,
    host,
    environment,
    database,
    dataDir,
    tokenSecret,
    tokenSecretPrevious,
    secretPepper,
    dataKey,
    trustedProxies,
    outboundAllow,
    otpSecret,
    chatSecret,
    adminToken,
    adminListener,
    kybDelayMillis,
    kybPollMillis,
    settlementDelayMillis,
    returnWindowDays,
    moneyMovementPollMillis,
    cardRefundRetryMillis,
    payoutIntervalMillis,
    deficitGraceMillis,
    payoutMinimumMinorUnits,
    payerLimitMinorUnits,
    payerLimitDays,
    sandboxCurrencies,
    rateLimiting,
    tracing: tracingAsked || Option.isSome(traceExport),
    metrics,
    metricsToken,
    metricsPort,
    traceExport,
    logLevel,
    logFormat:
      logFormatAsked === "auto" ? (!production && process.stdout.isTTY === true ? "pretty" : "json") : logFormatAsked,
    reminderDays,
    sandboxPartner,
    providers,
  }
}

/**
 * PARTNERPAY_ADMIN_PORT (not PORT) and PARTNERPAY_ADMIN_HOST (default 127.0.0.1, whatever HOST is: the
 * operator API is reachable from elsewhere only when asked for). Both need PARTNERPAY_ADMIN_TOKEN.
 */
const adminListenerOf = (read: Read, issues: Issues, publicPort: number): Option.Option<AdminListener> => {
  const { adminPort, adminHost, adminToken } = read.settings
  if (!adminPort.set) {
    if (adminHost.set) issues.add(settings.adminHost.name, "is set but PARTNERPAY_ADMIN_PORT is not")
    return Option.none()
  }
  const before = issues.list.length
  const port = issues.take(adminPort)
  if (Option.isSome(port) && port.value !== 0 && port.value === publicPort) {
    issues.add(
      settings.adminPort.name,
      `must differ from PORT (${publicPort}): the operator API gets a listener of its own`,
    )
  }
  const host = issues.take(adminHost)
  if (!adminToken.set) {
    issues.add(
      settings.adminPort.name,
      "is set but PARTNERPAY_ADMIN_TOKEN is not (the operator API exists only with a token)",
    )
  }
  if (issues.list.length > before || Option.isNone(port)) return Option.none()
  return Option.some({ port: port.value, host: Option.getOrElse(host, () => "127.0.0.1") })
}

/** OpenTelemetry (the standard variables): traces are exported when an endpoint is set. */
const traceExportOf = (read: Read, issues: Issues): Option.Option<TraceExportConfig> => {
  const { otlpTracesEndpoint, otlpEndpoint, exportIntervalMillis, serviceName } = read.settings
  const tracesUrl = otlpTracesEndpoint.set
  const endpoint = issues.take(tracesUrl ? otlpTracesEndpoint : otlpEndpoint)
  if (Option.isNone(endpoint)) return Option.none()
  return Option.some({
    url: tracesUrl ? endpoint.value : `${endpoint.value.replace(/\/+$/, "")}/v1/traces`,
    exportIntervalMillis: issues.take(exportIntervalMillis),
    serviceName: issues.take(serviceName),
  })
}

/** The partner created at start in a sandbox: the client id and secret go together, the webhook needs them. */
const sandboxPartnerOf = (
  read: Read,
  issues: Issues,
  environment: Environment,
): Option.Option<SandboxPartnerConfig> => {
  const { sandboxClientId, sandboxClientSecret, sandboxWebhookUrl, sandboxWebhookSecret } = read.settings
  const [idSet, secretSet] = [sandboxClientId.set, sandboxClientSecret.set]
  const [urlSet, webhookSecretSet] = [sandboxWebhookUrl.set, sandboxWebhookSecret.set]
  if (idSet && !secretSet) {
    issues.add(settings.sandboxClientSecret.name, "is required when PARTNERPAY_SANDBOX_CLIENT_ID is set")
  }
  if (!idSet && secretSet) {
    issues.add(settings.sandboxClientId.name, "is required when PARTNERPAY_SANDBOX_CLIENT_SECRET is set")
  }
  const clientSecret = issues.take(sandboxClientSecret)
  const clientId = issues.take(sandboxClientId)
  const webhookUrl = issues.take(sandboxWebhookUrl)
  const webhookSecret = issues.take(sandboxWebhookSecret)
  if ((urlSet || webhookSecretSet) && !idSet) {
    issues.add(
      urlSet ? settings.sandboxWebhookUrl.name : settings.sandboxWebhookSecret.name,
      "needs PARTNERPAY_SANDBOX_CLIENT_ID and PARTNERPAY_SANDBOX_CLIENT_SECRET",
    )
  }
  if (webhookSecretSet && !urlSet) {
    issues.add(
      settings.sandboxWebhookSecret.name,
      "is set but PARTNERPAY_SANDBOX_WEBHOOK_URL is not (a signing secret needs an endpoint)",
    )
  }
  if (environment !== "sandbox" || Option.isNone(clientId) || Option.isNone(clientSecret)) return Option.none()
  if (issues.names("PARTNERPAY_SANDBOX_")) return Option.none()
  return Option.some({ clientId: clientId.value, clientSecret: clientSecret.value, webhookUrl, webhookSecret })
}

/** A one-line description of where the data lives, for the start line (no secrets). */
export const describeDatabase = (database: DatabaseConfig): string => {
  if (database._tag === "Pglite") return `embedded database in ${database.dataDir}`
  try {
    const url = new URL(Redacted.value(database.url))
    return `PostgreSQL at ${url.hostname}${url.port === "" ? "" : `:${url.port}`}${url.pathname}`
  } catch {
    return "PostgreSQL"
  }
}
