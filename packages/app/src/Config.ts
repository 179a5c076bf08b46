/**
 * The service's configuration, read from the environment (through Effect's
 * `ConfigProvider`, so tests pass a record) and validated once at start.
 *
 * Every variable is read as an optional string and checked here, so a bad
 * start names EVERY bad variable at once with a human message; secret values
 * are never echoed. An empty variable counts as unset. Secrets are `Redacted`.
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
 *   resolved from this file, so the service and the CLI use the same
 *   database wherever they are started from; a relative
 *   PARTNERPAY_DATA_DIR is relative to the working directory).
 */
import { fileURLToPath } from "node:url"
import { ClientAddress } from "@partnerpay/adapters-http"
import { PgPersonalDataVault } from "@partnerpay/adapters-pg"
import { Config, Effect, type LogLevel, Option, Redacted, Result, Schema } from "effect"
import * as HttpBridge from "./providers/HttpBridge.ts"
import * as ProviderPorts from "./providers/ProviderPorts.ts"

export type Environment = "sandbox" | "production"

export type DatabaseConfig =
  | {
      readonly _tag: "Postgres"
      readonly url: Redacted.Redacted<string>
      /** PARTNERPAY_DB_STATEMENTS_PER_SESSION: statements pipelined on one pooled session (default 32). */
      readonly statementsPerSession: number
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
  readonly settlementDelayMillis: number
  /** Per-caller rate limits (PARTNERPAY_RATE_LIMITING, "on" by default; "off" for load tests behind another limiter). */
  readonly rateLimiting: boolean
  /** Effect spans (PARTNERPAY_TRACING, "off" by default: span creation costs CPU on every request; on when traces are exported). */
  readonly tracing: boolean
  /** `GET /metrics` in the Prometheus text format (PARTNERPAY_METRICS, "on" by default). */
  readonly metrics: boolean
  /** OpenTelemetry trace export (OTLP over HTTP, JSON), when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set. */
  readonly traceExport: Option.Option<TraceExportConfig>
  readonly logLevel: LogLevel.LogLevel
  /** Days before a payment request's due date its payer is reminded (PARTNERPAY_REMINDER_DAYS, default 3,0). */
  readonly reminderDays: ReadonlyArray<number>
  /** The partner created at start in sandbox (absent in production). */
  readonly sandboxPartner: Option.Option<SandboxPartnerConfig>
  /** The providers' HTTP bridges (PARTNERPAY_PROVIDER_<PORT>_*): every port in production, unused in sandbox. */
  readonly providers: ProviderPorts.Bridges
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

/** One bad variable. `message` never contains a secret's value. */
export interface ConfigIssue {
  readonly variable: string
  readonly message: string
}

export class ConfigInvalid extends Schema.TaggedError<ConfigInvalid>()("ConfigInvalid", {
  issues: Schema.Array(Schema.Struct({ variable: Schema.String, message: Schema.String })),
}) {
  override get message(): string {
    return `invalid configuration:\n${this.issues.map((issue) => `  ${issue.variable}: ${issue.message}`).join("\n")}`
  }
}

/** Every variable the service reads. */
export const variables = [
  "PORT",
  "HOST",
  "DATABASE_URL",
  "PARTNERPAY_DB_STATEMENTS_PER_SESSION",
  "PARTNERPAY_DATA_DIR",
  "PARTNERPAY_ENV",
  "PARTNERPAY_TOKEN_SECRET",
  "PARTNERPAY_TOKEN_SECRET_PREVIOUS",
  "PARTNERPAY_SECRET_PEPPER",
  "PARTNERPAY_DATA_KEY",
  "PARTNERPAY_TRUST_PROXY",
  "PARTNERPAY_ADMIN_TOKEN",
  "PARTNERPAY_ADMIN_PORT",
  "PARTNERPAY_ADMIN_HOST",
  "PARTNERPAY_OTP_SECRET",
  "PARTNERPAY_CHAT_SECRET",
  "PARTNERPAY_KYB_DELAY_MS",
  "PARTNERPAY_SETTLEMENT_DELAY_MS",
  "PARTNERPAY_RATE_LIMITING",
  "PARTNERPAY_TRACING",
  "PARTNERPAY_METRICS",
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
  "OTEL_SERVICE_NAME",
  "OTEL_BSP_SCHEDULE_DELAY",
  "PARTNERPAY_REMINDER_DAYS",
  "PARTNERPAY_SANDBOX_CLIENT_ID",
  "PARTNERPAY_SANDBOX_CLIENT_SECRET",
  "PARTNERPAY_SANDBOX_WEBHOOK_URL",
  "PARTNERPAY_SANDBOX_WEBHOOK_SECRET",
  "LOG_LEVEL",
  ...ProviderPorts.providerVariables,
] as const

export type Variable = (typeof variables)[number]

/** The data directory when PARTNERPAY_DATA_DIR is unset: `packages/app/.data`, whatever the working directory. */
export const defaultDataDir: string = fileURLToPath(new URL("../.data", import.meta.url))

export const minimumTokenSecretBytes = 32
export const minimumAdminTokenLength = 32

const logLevels: ReadonlyArray<LogLevel.LogLevel> = ["All", "Fatal", "Error", "Warn", "Info", "Debug", "Trace", "None"]

const readRaw = (name: Variable): Effect.Effect<string | undefined> =>
  Config.option(Config.String(name)).pipe(
    Effect.map((value) => (Option.isSome(value) && value.value.trim() !== "" ? value.value : undefined)),
    // A provider that cannot be read at all counts as "unset" for this variable.
    Effect.orElseSucceed(() => undefined),
  )

const quote = (value: string) => JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}...` : value)

const parseMillis = (issues: Array<ConfigIssue>, variable: Variable, raw: string | undefined, fallback: number) => {
  if (raw === undefined) return fallback
  const value = Number(raw)
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value > 86_400_000) {
    issues.push({
      variable,
      message: `must be a whole number of milliseconds between 0 and 86400000 (got ${quote(raw)})`,
    })
    return fallback
  }
  return value
}

/** Most statements pipelined on one pooled session (the client keeps at most 128 on the wire). */
export const maxStatementsPerSession = 128

/**
 * PARTNERPAY_DB_STATEMENTS_PER_SESSION: how many concurrent statements share one pooled PostgreSQL
 * session before the pool opens the next (1..128, default 32). Fewer spreads commits over sessions
 * (they share WAL flushes), more shares socket writes; see packages/adapters-pg/README.md.
 */
const parseStatementsPerSession = (issues: Array<ConfigIssue>, raw: string | undefined): number => {
  if (raw === undefined) return 32
  const value = Number(raw)
  if (!/^\d+$/.test(raw.trim()) || value < 1 || value > maxStatementsPerSession) {
    issues.push({
      variable: "PARTNERPAY_DB_STATEMENTS_PER_SESSION",
      message: `must be a whole number between 1 and ${maxStatementsPerSession} (got ${quote(raw)})`,
    })
    return 32
  }
  return value
}

/** Most days ahead a reminder may go out. */
export const maxReminderDays = 30

/** PARTNERPAY_REMINDER_DAYS: distinct whole numbers of days 0..30, comma-separated ("3,0"); largest first. */
const parseReminderDays = (issues: Array<ConfigIssue>, raw: string | undefined): ReadonlyArray<number> => {
  if (raw === undefined) return [3, 0]
  const parts = raw.split(",").map((part) => part.trim())
  const days = parts.map(Number)
  const valid =
    parts.every((part) => /^\d{1,2}$/.test(part)) &&
    days.every((day) => day <= maxReminderDays) &&
    new Set(days).size === days.length
  if (!valid) {
    issues.push({
      variable: "PARTNERPAY_REMINDER_DAYS",
      message: `must be distinct whole numbers of days between 0 and ${maxReminderDays}, comma-separated, e.g. "3,0" (got ${quote(raw)})`,
    })
    return [3, 0]
  }
  return [...days].sort((a, b) => b - a)
}

const isHttpUrl = (raw: string): boolean => {
  try {
    const url = new URL(raw)
    return url.protocol === "http:" || url.protocol === "https:"
  } catch {
    return false
  }
}

/** Reads and validates the configuration from the current `ConfigProvider` (the environment by default). */
export const load: Effect.Effect<AppConfig, ConfigInvalid> = Effect.gen(function* () {
  const raw: Partial<Record<Variable, string>> = {}
  for (const name of variables) {
    const value = yield* readRaw(name)
    if (value !== undefined) raw[name] = value
  }
  return yield* fromRecord(raw)
})

/** Validates already-read raw values (exposed for tests and embedders). */
export const fromRecord = (raw: Partial<Record<Variable, string>>): Effect.Effect<AppConfig, ConfigInvalid> =>
  Effect.suspend(() => {
    const issues: Array<ConfigIssue> = []

    // PORT
    let port = 3000
    if (raw.PORT !== undefined) {
      const value = Number(raw.PORT)
      if (!/^\d+$/.test(raw.PORT.trim()) || value > 65535) {
        issues.push({ variable: "PORT", message: `must be an integer between 0 and 65535 (got ${quote(raw.PORT)})` })
      } else port = value
    }

    // HOST
    const host = raw.HOST?.trim() ?? "127.0.0.1"
    if (/[\s/]/.test(host)) {
      issues.push({ variable: "HOST", message: `must be a host name or IP address (got ${quote(host)})` })
    }

    // PARTNERPAY_ENV
    let environment: Environment = "sandbox"
    if (raw.PARTNERPAY_ENV !== undefined) {
      const value = raw.PARTNERPAY_ENV.trim().toLowerCase()
      if (value === "sandbox" || value === "production") environment = value
      else
        issues.push({
          variable: "PARTNERPAY_ENV",
          message: `must be "sandbox" or "production" (got ${quote(raw.PARTNERPAY_ENV)})`,
        })
    }

    // PARTNERPAY_DATA_DIR, DATABASE_URL
    const dataDir = raw.PARTNERPAY_DATA_DIR ?? defaultDataDir
    let database: DatabaseConfig = { _tag: "Pglite", dataDir: `${dataDir.replace(/\/+$/, "")}/pglite` }
    if (raw.DATABASE_URL !== undefined) {
      if (!/^postgres(ql)?:\/\/\S+$/.test(raw.DATABASE_URL.trim())) {
        // The URL may hold a password: never echo it.
        issues.push({
          variable: "DATABASE_URL",
          message: "must be a PostgreSQL connection URL (postgres://user:password@host:port/database)",
        })
      } else
        database = {
          _tag: "Postgres",
          url: Redacted.make(raw.DATABASE_URL.trim()),
          statementsPerSession: parseStatementsPerSession(issues, raw.PARTNERPAY_DB_STATEMENTS_PER_SESSION),
        }
    }

    // PARTNERPAY_TOKEN_SECRET
    let tokenSecret = Option.none<Redacted.Redacted<string>>()
    if (raw.PARTNERPAY_TOKEN_SECRET !== undefined) {
      const bytes = new TextEncoder().encode(raw.PARTNERPAY_TOKEN_SECRET).byteLength
      if (bytes < minimumTokenSecretBytes) {
        issues.push({
          variable: "PARTNERPAY_TOKEN_SECRET",
          message: `must be at least ${minimumTokenSecretBytes} bytes long (got ${bytes}); e.g. \`openssl rand -base64 48\``,
        })
      } else tokenSecret = Option.some(Redacted.make(raw.PARTNERPAY_TOKEN_SECRET))
    } else if (environment === "production") {
      issues.push({
        variable: "PARTNERPAY_TOKEN_SECRET",
        message: `is required when PARTNERPAY_ENV=production (at least ${minimumTokenSecretBytes} random bytes)`,
      })
    }

    // PARTNERPAY_TOKEN_SECRET_PREVIOUS (optional), PARTNERPAY_SECRET_PEPPER (required in production)
    const longSecret = (
      variable: "PARTNERPAY_TOKEN_SECRET_PREVIOUS" | "PARTNERPAY_SECRET_PEPPER",
      required: boolean,
    ) => {
      const value = raw[variable]
      if (value === undefined) {
        if (required) {
          issues.push({
            variable,
            message: `is required when PARTNERPAY_ENV=production (at least ${minimumTokenSecretBytes} random bytes)`,
          })
        }
        return Option.none<Redacted.Redacted<string>>()
      }
      const bytes = new TextEncoder().encode(value).byteLength
      if (bytes < minimumTokenSecretBytes) {
        issues.push({
          variable,
          message: `must be at least ${minimumTokenSecretBytes} bytes long (got ${bytes}); e.g. \`openssl rand -base64 48\``,
        })
        return Option.none<Redacted.Redacted<string>>()
      }
      return Option.some(Redacted.make(value))
    }
    const tokenSecretPrevious = longSecret("PARTNERPAY_TOKEN_SECRET_PREVIOUS", false)
    const secretPepper = longSecret("PARTNERPAY_SECRET_PEPPER", environment === "production")

    // PARTNERPAY_DATA_KEY: the personal-data master key (DataKey.ts reads it); required in production,
    // generated into the data directory in a sandbox. Checked here so a bad start names it with the others.
    let dataKey = Option.none<Redacted.Redacted<string>>()
    if (raw.PARTNERPAY_DATA_KEY !== undefined) {
      try {
        PgPersonalDataVault.parseMasterKey(raw.PARTNERPAY_DATA_KEY)
        dataKey = Option.some(Redacted.make(raw.PARTNERPAY_DATA_KEY))
      } catch (error) {
        issues.push({ variable: "PARTNERPAY_DATA_KEY", message: (error as Error).message })
      }
    } else if (environment === "production") {
      issues.push({
        variable: "PARTNERPAY_DATA_KEY",
        message: "is required when PARTNERPAY_ENV=production (32 random bytes: `openssl rand -base64 32`)",
      })
    }

    // PARTNERPAY_TRUST_PROXY: "off", a hop count, or addresses and CIDR networks (ClientAddress.fromString).
    let trustedProxies = ClientAddress.none
    if (raw.PARTNERPAY_TRUST_PROXY !== undefined) {
      const parsed = ClientAddress.fromString(raw.PARTNERPAY_TRUST_PROXY)
      if (Result.isSuccess(parsed)) trustedProxies = parsed.success
      else issues.push({ variable: "PARTNERPAY_TRUST_PROXY", message: parsed.failure })
    }

    // PARTNERPAY_ADMIN_TOKEN
    let adminToken = Option.none<Redacted.Redacted<string>>()
    if (raw.PARTNERPAY_ADMIN_TOKEN !== undefined) {
      if (raw.PARTNERPAY_ADMIN_TOKEN.length < minimumAdminTokenLength) {
        issues.push({
          variable: "PARTNERPAY_ADMIN_TOKEN",
          message: `must be at least ${minimumAdminTokenLength} characters long (got ${raw.PARTNERPAY_ADMIN_TOKEN.length})`,
        })
      } else adminToken = Option.some(Redacted.make(raw.PARTNERPAY_ADMIN_TOKEN))
    }
    const adminListener = parseAdminListener(issues, raw, port)

    // PARTNERPAY_OTP_SECRET, PARTNERPAY_CHAT_SECRET: required in production, unused in sandbox.
    const productionSecret = (variable: "PARTNERPAY_OTP_SECRET" | "PARTNERPAY_CHAT_SECRET") => {
      const value = raw[variable]
      if (value === undefined) {
        if (environment === "production") {
          issues.push({ variable, message: `is required when PARTNERPAY_ENV=production (at least 32 characters)` })
        }
        return Option.none<Redacted.Redacted<string>>()
      }
      if (value.length < 32) {
        issues.push({ variable, message: `must be at least 32 characters long (got ${value.length})` })
        return Option.none<Redacted.Redacted<string>>()
      }
      return Option.some(Redacted.make(value))
    }
    const otpSecret = productionSecret("PARTNERPAY_OTP_SECRET")
    const chatSecret = productionSecret("PARTNERPAY_CHAT_SECRET")

    const kybDelayMillis = parseMillis(issues, "PARTNERPAY_KYB_DELAY_MS", raw.PARTNERPAY_KYB_DELAY_MS, 2000)
    const settlementDelayMillis = parseMillis(
      issues,
      "PARTNERPAY_SETTLEMENT_DELAY_MS",
      raw.PARTNERPAY_SETTLEMENT_DELAY_MS,
      2000,
    )

    let rateLimiting = true
    if (raw.PARTNERPAY_RATE_LIMITING !== undefined) {
      const wanted = raw.PARTNERPAY_RATE_LIMITING.trim().toLowerCase()
      if (wanted === "on" || wanted === "off") rateLimiting = wanted === "on"
      else
        issues.push({
          variable: "PARTNERPAY_RATE_LIMITING",
          message: `must be "on" or "off" (got "${raw.PARTNERPAY_RATE_LIMITING}")`,
        })
    }

    let tracing = false
    if (raw.PARTNERPAY_TRACING !== undefined) {
      const wanted = raw.PARTNERPAY_TRACING.trim().toLowerCase()
      if (wanted === "on" || wanted === "off") tracing = wanted === "on"
      else
        issues.push({
          variable: "PARTNERPAY_TRACING",
          message: `must be "on" or "off" (got ${quote(raw.PARTNERPAY_TRACING)})`,
        })
    }

    let metrics = true
    if (raw.PARTNERPAY_METRICS !== undefined) {
      const wanted = raw.PARTNERPAY_METRICS.trim().toLowerCase()
      if (wanted === "on" || wanted === "off") metrics = wanted === "on"
      else
        issues.push({
          variable: "PARTNERPAY_METRICS",
          message: `must be "on" or "off" (got ${quote(raw.PARTNERPAY_METRICS)})`,
        })
    }

    // OpenTelemetry (the standard variables): traces exported when an endpoint is set.
    let traceExport = Option.none<TraceExportConfig>()
    const tracesEndpoint = raw.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()
    const baseEndpoint = raw.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()
    const endpointVariable =
      tracesEndpoint !== undefined ? "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" : "OTEL_EXPORTER_OTLP_ENDPOINT"
    const endpoint = tracesEndpoint ?? baseEndpoint
    if (endpoint !== undefined) {
      if (!isHttpUrl(endpoint)) {
        issues.push({
          variable: endpointVariable,
          message: `must be an absolute http:// or https:// URL (got ${quote(endpoint)})`,
        })
      } else {
        const exportIntervalMillis = parseMillis(issues, "OTEL_BSP_SCHEDULE_DELAY", raw.OTEL_BSP_SCHEDULE_DELAY, 5000)
        traceExport = Option.some({
          url: tracesEndpoint ?? `${endpoint.replace(/\/+$/, "")}/v1/traces`,
          serviceName: raw.OTEL_SERVICE_NAME?.trim() ?? "partnerpay",
          exportIntervalMillis,
        })
        tracing = true
      }
    }
    const reminderDays = parseReminderDays(issues, raw.PARTNERPAY_REMINDER_DAYS)

    // LOG_LEVEL (any case)
    let logLevel: LogLevel.LogLevel = "Info"
    if (raw.LOG_LEVEL !== undefined) {
      const wanted = raw.LOG_LEVEL.trim().toLowerCase()
      const found = logLevels.find(
        (level) => level.toLowerCase() === wanted || (wanted === "warning" && level === "Warn"),
      )
      if (found === undefined) {
        issues.push({
          variable: "LOG_LEVEL",
          message: `must be one of ${logLevels.join(", ")} (any case; got ${quote(raw.LOG_LEVEL)})`,
        })
      } else logLevel = found
    }

    // Sandbox partner
    let sandboxPartner = Option.none<SandboxPartnerConfig>()
    const clientId = raw.PARTNERPAY_SANDBOX_CLIENT_ID?.trim()
    const clientSecret = raw.PARTNERPAY_SANDBOX_CLIENT_SECRET
    const webhookUrl = raw.PARTNERPAY_SANDBOX_WEBHOOK_URL?.trim()
    const webhookSecret = raw.PARTNERPAY_SANDBOX_WEBHOOK_SECRET
    if (clientId !== undefined && clientSecret === undefined) {
      issues.push({
        variable: "PARTNERPAY_SANDBOX_CLIENT_SECRET",
        message: "is required when PARTNERPAY_SANDBOX_CLIENT_ID is set",
      })
    }
    if (clientId === undefined && clientSecret !== undefined) {
      issues.push({
        variable: "PARTNERPAY_SANDBOX_CLIENT_ID",
        message: "is required when PARTNERPAY_SANDBOX_CLIENT_SECRET is set",
      })
    }
    if (clientSecret !== undefined && clientSecret.length < 16) {
      issues.push({
        variable: "PARTNERPAY_SANDBOX_CLIENT_SECRET",
        message: `must be at least 16 characters long (got ${clientSecret.length})`,
      })
    }
    if (clientId !== undefined && !/^[\x21-\x7e]{1,200}$/.test(clientId)) {
      issues.push({
        variable: "PARTNERPAY_SANDBOX_CLIENT_ID",
        message: "must be 1 to 200 printable ASCII characters without spaces",
      })
    }
    if (webhookUrl !== undefined && !isHttpUrl(webhookUrl)) {
      issues.push({
        variable: "PARTNERPAY_SANDBOX_WEBHOOK_URL",
        message: `must be an absolute http:// or https:// URL (got ${quote(webhookUrl)})`,
      })
    }
    if ((webhookUrl !== undefined || webhookSecret !== undefined) && clientId === undefined) {
      issues.push({
        variable: webhookUrl !== undefined ? "PARTNERPAY_SANDBOX_WEBHOOK_URL" : "PARTNERPAY_SANDBOX_WEBHOOK_SECRET",
        message: "needs PARTNERPAY_SANDBOX_CLIENT_ID and PARTNERPAY_SANDBOX_CLIENT_SECRET",
      })
    }
    if (webhookSecret !== undefined && webhookUrl === undefined) {
      issues.push({
        variable: "PARTNERPAY_SANDBOX_WEBHOOK_SECRET",
        message: "is set but PARTNERPAY_SANDBOX_WEBHOOK_URL is not (a signing secret needs an endpoint)",
      })
    }
    if (
      environment === "sandbox" &&
      clientId !== undefined &&
      clientSecret !== undefined &&
      !issues.some((issue) => issue.variable.startsWith("PARTNERPAY_SANDBOX_"))
    ) {
      sandboxPartner = Option.some({
        clientId,
        clientSecret: Redacted.make(clientSecret),
        webhookUrl: Option.fromUndefinedOr(webhookUrl),
        webhookSecret: Option.map(Option.fromUndefinedOr(webhookSecret), (secret) => Redacted.make(secret)),
      })
    }

    const providers = parseProviders(issues, raw, environment)

    if (issues.length > 0) return Effect.fail(new ConfigInvalid({ issues }))
    return Effect.succeed({
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
      otpSecret,
      chatSecret,
      adminToken,
      adminListener,
      kybDelayMillis,
      settlementDelayMillis,
      rateLimiting,
      tracing,
      metrics,
      traceExport,
      logLevel,
      reminderDays,
      sandboxPartner,
      providers,
    })
  })

/**
 * PARTNERPAY_ADMIN_PORT (0..65535, not PORT) and PARTNERPAY_ADMIN_HOST (default 127.0.0.1, whatever HOST
 * is: the operator API is reachable from elsewhere only when asked for). Both need PARTNERPAY_ADMIN_TOKEN.
 */
const parseAdminListener = (
  issues: Array<ConfigIssue>,
  raw: Partial<Record<Variable, string>>,
  publicPort: number,
): Option.Option<AdminListener> => {
  const rawPort = raw.PARTNERPAY_ADMIN_PORT?.trim()
  const host = raw.PARTNERPAY_ADMIN_HOST?.trim()
  if (rawPort === undefined) {
    if (host !== undefined) {
      issues.push({ variable: "PARTNERPAY_ADMIN_HOST", message: "is set but PARTNERPAY_ADMIN_PORT is not" })
    }
    return Option.none()
  }
  const before = issues.length
  const port = Number(rawPort)
  if (!/^\d+$/.test(rawPort) || port > 65535) {
    issues.push({
      variable: "PARTNERPAY_ADMIN_PORT",
      message: `must be an integer between 0 and 65535 (got ${quote(rawPort)})`,
    })
  } else if (port !== 0 && port === publicPort) {
    issues.push({
      variable: "PARTNERPAY_ADMIN_PORT",
      message: `must differ from PORT (${publicPort}): the operator API gets a listener of its own`,
    })
  }
  if (host !== undefined && /[\s/]/.test(host)) {
    issues.push({
      variable: "PARTNERPAY_ADMIN_HOST",
      message: `must be a host name or IP address (got ${quote(host)})`,
    })
  }
  if (raw.PARTNERPAY_ADMIN_TOKEN === undefined) {
    issues.push({
      variable: "PARTNERPAY_ADMIN_PORT",
      message: "is set but PARTNERPAY_ADMIN_TOKEN is not (the operator API exists only with a token)",
    })
  }
  if (issues.length > before) return Option.none()
  return Option.some({ port, host: host ?? "127.0.0.1" })
}

export const minimumProviderSecretLength = 32

const isLoopback = (url: URL) => ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname)

/**
 * The bridges of PARTNERPAY_PROVIDER_<PORT>_{URL,SECRET,TIMEOUT_MS,RETRIES}.
 * URL and SECRET go together; production needs https (but on loopback) and
 * every port configured: each port left out is one issue naming it.
 */
const parseProviders = (
  issues: Array<ConfigIssue>,
  raw: Partial<Record<Variable, string>>,
  environment: Environment,
): ProviderPorts.Bridges => {
  const bridges: ProviderPorts.Bridges = {}
  for (const entry of ProviderPorts.ports) {
    const [urlVariable, secretVariable, timeoutVariable, retriesVariable] = ProviderPorts.variablesOf(entry.key)
    const url = raw[urlVariable]?.trim()
    const secret = raw[secretVariable]
    if (url === undefined && secret === undefined) {
      if (environment === "production") {
        issues.push({
          variable: urlVariable,
          message:
            `is required when PARTNERPAY_ENV=production, with ${secretVariable}: ` +
            `${entry.port} has no production provider (sandboxes never run in production)`,
        })
      }
      continue
    }
    let valid = true
    if (url === undefined || !isHttpUrl(url)) {
      valid = false
      issues.push({
        variable: urlVariable,
        message:
          url === undefined
            ? `is required when ${secretVariable} is set`
            : `must be an absolute http:// or https:// URL (got ${quote(url)})`,
      })
    } else if (environment === "production" && new URL(url).protocol !== "https:" && !isLoopback(new URL(url))) {
      valid = false
      issues.push({ variable: urlVariable, message: "must be an https:// URL in production (http only on loopback)" })
    }
    if (secret === undefined || secret.length < minimumProviderSecretLength) {
      valid = false
      issues.push({
        variable: secretVariable,
        message:
          secret === undefined
            ? `is required when ${urlVariable} is set (at least ${minimumProviderSecretLength} characters)`
            : `must be at least ${minimumProviderSecretLength} characters long (got ${secret.length})`,
      })
    }
    const timeoutMillis = parseBounded(issues, timeoutVariable, raw[timeoutVariable], HttpBridge.defaultTimeoutMillis, {
      minimum: 1,
      maximum: 120_000,
      unit: "milliseconds",
    })
    const retries = parseBounded(issues, retriesVariable, raw[retriesVariable], HttpBridge.defaultRetries, {
      minimum: 0,
      maximum: 10,
      unit: "retries",
    })
    if (valid && url !== undefined && secret !== undefined) {
      bridges[entry.key] = { url, secret: Redacted.make(secret), timeoutMillis, retries }
    }
  }
  return bridges
}

const parseBounded = (
  issues: Array<ConfigIssue>,
  variable: Variable,
  raw: string | undefined,
  fallback: number,
  range: { readonly minimum: number; readonly maximum: number; readonly unit: string },
): number => {
  if (raw === undefined) return fallback
  const value = Number(raw.trim())
  if (!/^\d+$/.test(raw.trim()) || value < range.minimum || value > range.maximum) {
    issues.push({
      variable,
      message: `must be a whole number of ${range.unit} between ${range.minimum} and ${range.maximum} (got ${quote(raw)})`,
    })
    return fallback
  }
  return value
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
