/** Configuration: defaults, and start-up refusals that name every bad variable without echoing secrets. */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { ClientAddress } from "@partnerpay/adapters-http"
import { ConfigProvider, Effect, Option, Redacted } from "effect"
import * as Config from "../src/config/Config.ts"
import * as Settings from "../src/config/Settings.ts"
import * as ProviderPorts from "../src/providers/ProviderPorts.ts"

/** packages/app/.data, written independently of the module under test. */
const appData = fileURLToPath(new URL("../.data", import.meta.url))

const loadFrom = (env: Record<string, string>) =>
  Config.load.pipe(Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(env)))

/** A valid personal-data master key (32 bytes, hex). */
const productionDataKey = "d".repeat(64)

/** The refusal (fails the test when the configuration is accepted). */
const issuesOf = (env: Record<string, string>) => Effect.flip(loadFrom(env))

describe("configuration", () => {
  it.effect(
    "an empty environment starts a sandbox on 127.0.0.1:3000 with the embedded database in packages/app/.data/pglite",
    () =>
      Effect.gen(function* () {
        const config = yield* loadFrom({})
        assert.strictEqual(config.port, 3000)
        assert.strictEqual(config.host, "127.0.0.1")
        assert.strictEqual(config.environment, "sandbox")
        assert.deepStrictEqual(config.database, { _tag: "Pglite", dataDir: join(appData, "pglite") })
        assert.strictEqual(config.dataDir, appData)
        assert.strictEqual(config.kybDelayMillis, 2000)
        assert.strictEqual(config.logLevel, "Info")
        assert.isTrue(Option.isNone(config.tokenSecret))
        assert.isTrue(Option.isNone(config.sandboxPartner))
      }),
  )

  it.effect("DATABASE_URL selects PostgreSQL and is kept redacted", () =>
    Effect.gen(function* () {
      const config = yield* loadFrom({ DATABASE_URL: "postgres://u:hunter2@db:5432/pp" })
      assert.strictEqual(config.database._tag, "Postgres")
      if (config.database._tag === "Postgres") {
        assert.strictEqual(Redacted.value(config.database.url), "postgres://u:hunter2@db:5432/pp")
        assert.notInclude(String(config.database.url), "hunter2")
      }
      assert.strictEqual(Config.describeDatabase(config.database), "PostgreSQL at db:5432/pp")
    }),
  )

  it.effect("the sandbox partner is configured from the four sandbox variables", () =>
    Effect.gen(function* () {
      const config = yield* loadFrom({
        PARTNERPAY_SANDBOX_CLIENT_ID: "sandbox-client",
        PARTNERPAY_SANDBOX_CLIENT_SECRET: "a sandbox secret of some length",
        PARTNERPAY_SANDBOX_WEBHOOK_URL: "http://127.0.0.1:9999/hooks",
        PARTNERPAY_SANDBOX_WEBHOOK_SECRET: "whsec",
        LOG_LEVEL: "debug",
      })
      assert.isTrue(Option.isSome(config.sandboxPartner))
      const partner = Option.getOrThrow(config.sandboxPartner)
      assert.strictEqual(partner.clientId, "sandbox-client")
      assert.deepStrictEqual(partner.webhookUrl, Option.some("http://127.0.0.1:9999/hooks"))
      assert.strictEqual(config.logLevel, "Debug")
    }),
  )

  it.effect("logs are JSON lines unless LOG_FORMAT asks for pretty ones (auto: pretty only on a terminal)", () =>
    Effect.gen(function* () {
      // The test runner's stdout is not a terminal: auto means JSON here.
      assert.strictEqual((yield* loadFrom({})).logFormat, "json")
      assert.strictEqual((yield* loadFrom({ LOG_FORMAT: "pretty" })).logFormat, "pretty")
      assert.strictEqual((yield* loadFrom({ LOG_FORMAT: "JSON" })).logFormat, "json")
      const error = yield* issuesOf({ LOG_FORMAT: "colourful" })
      assert.include(error.message, 'LOG_FORMAT: must be "auto", "json" or "pretty" (got "colourful")')
    }),
  )

  it.effect("every bad variable is named at once, with a human message", () =>
    Effect.gen(function* () {
      const error = yield* issuesOf({
        PORT: "http",
        PARTNERPAY_ENV: "prod",
        PARTNERPAY_KYB_DELAY_MS: "-5",
        LOG_LEVEL: "loud",
        PARTNERPAY_ADMIN_TOKEN: "short-admin-token",
        PARTNERPAY_SANDBOX_WEBHOOK_URL: "ftp://example.com",
      })
      const variables = error.issues.map((issue) => issue.variable)
      for (const variable of [
        "PORT",
        "PARTNERPAY_ENV",
        "PARTNERPAY_KYB_DELAY_MS",
        "LOG_LEVEL",
        "PARTNERPAY_ADMIN_TOKEN",
        "PARTNERPAY_SANDBOX_WEBHOOK_URL",
      ]) {
        assert.include(variables, variable)
      }
      assert.include(error.message, 'PORT: must be an integer between 0 and 65535 (got "http")')
      assert.include(error.message, 'PARTNERPAY_ENV: must be "sandbox" or "production" (got "prod")')
      assert.include(error.message, "PARTNERPAY_ADMIN_TOKEN: must be at least 32 characters long (got 17)")
      assert.notInclude(error.message, "short-admin-token")
    }),
  )

  it.effect(
    "production requires the token secret, the pepper, the data key, the OTP and chat secrets, and a provider for every required port",
    () =>
      Effect.gen(function* () {
        const error = yield* issuesOf({ PARTNERPAY_ENV: "production" })
        assert.deepStrictEqual(
          error.issues.map((issue) => issue.variable),
          [
            "PARTNERPAY_TOKEN_SECRET",
            "PARTNERPAY_SECRET_PEPPER",
            "PARTNERPAY_DATA_KEY",
            "PARTNERPAY_OTP_SECRET",
            "PARTNERPAY_CHAT_SECRET",
            "PARTNERPAY_PROVIDER_OTP_URL",
            "PARTNERPAY_PROVIDER_KYC_URL",
            "PARTNERPAY_PROVIDER_BANK_LINKING_URL",
            "PARTNERPAY_PROVIDER_MONEY_MOVEMENT_URL",
          ],
        )
        assert.include(error.message, "is required when PARTNERPAY_ENV=production")
      }),
  )

  const productionSecrets = {
    PARTNERPAY_ENV: "production",
    PARTNERPAY_TOKEN_SECRET: "t".repeat(40),
    PARTNERPAY_SECRET_PEPPER: "p".repeat(40),
    PARTNERPAY_DATA_KEY: productionDataKey,
    PARTNERPAY_OTP_SECRET: "o".repeat(40),
    PARTNERPAY_CHAT_SECRET: "c".repeat(40),
  }
  const allBridges = Object.fromEntries(
    ProviderPorts.ports.flatMap(({ key }) => [
      [`PARTNERPAY_PROVIDER_${key}_URL`, `https://bridge.example.com/${key.toLowerCase()}`],
      [`PARTNERPAY_PROVIDER_${key}_SECRET`, `${key}-secret-`.padEnd(40, "s")],
    ]),
  )

  it.effect("production names, in one error, each port left without a provider (and only those)", () =>
    Effect.gen(function* () {
      const { PARTNERPAY_PROVIDER_KYC_URL: _url, PARTNERPAY_PROVIDER_KYC_SECRET: _secret, ...others } = allBridges
      const error = yield* issuesOf({ ...productionSecrets, ...others })
      assert.deepStrictEqual(
        error.issues.map((issue) => issue.variable),
        ["PARTNERPAY_PROVIDER_KYC_URL"],
      )
      assert.include(error.message, "identity verification (KYC) has no production provider")
    }),
  )

  it.effect("production with every bridge starts with each port on its bridge", () =>
    Effect.gen(function* () {
      const config = yield* loadFrom({
        ...productionSecrets,
        ...allBridges,
        PARTNERPAY_PROVIDER_KYC_TIMEOUT_MS: "2500",
      })
      const { ports } = config.providers
      assert.deepStrictEqual(Object.keys(ports).sort(), ProviderPorts.ports.map(({ key }) => key).sort())
      const bridgeOf = (key: ProviderPorts.PortKey) => {
        const selection = ports[key]
        return selection?._tag === "bridge" ? selection.bridge : undefined
      }
      assert.strictEqual(bridgeOf("KYC")?.timeoutMillis, 2500)
      assert.strictEqual(bridgeOf("OTP")?.retries, 2)
      assert.strictEqual(bridgeOf("OTP")?.url, "https://bridge.example.com/otp")
    }),
  )

  it.effect("a bridge needs its URL and a long secret; production needs https but on loopback", () =>
    Effect.gen(function* () {
      const error = yield* issuesOf({
        ...productionSecrets,
        ...allBridges,
        PARTNERPAY_PROVIDER_OTP_URL: "http://sms.example.com",
        PARTNERPAY_PROVIDER_KYC_SECRET: "short-kyc-secret",
        PARTNERPAY_PROVIDER_KYB_URL: "not a url",
        PARTNERPAY_PROVIDER_MONEY_MOVEMENT_RETRIES: "50",
        PARTNERPAY_PROVIDER_CARD_PROCESSOR_URL: "http://127.0.0.1:9000",
      })
      assert.deepStrictEqual(
        error.issues.map((issue) => issue.variable),
        [
          "PARTNERPAY_PROVIDER_OTP_URL",
          "PARTNERPAY_PROVIDER_KYC_SECRET",
          "PARTNERPAY_PROVIDER_KYB_URL",
          "PARTNERPAY_PROVIDER_MONEY_MOVEMENT_RETRIES",
        ],
      )
      assert.include(error.message, "PARTNERPAY_PROVIDER_KYC_SECRET: must be at least 32 characters long (got 16)")
      assert.notInclude(error.message, "short-kyc-secret")
    }),
  )

  it.effect("production does not ask for a provider of the optional ports (KYB, cards, e-signature, messages)", () =>
    Effect.gen(function* () {
      const required = ProviderPorts.ports.filter((entry) => entry.required).map(({ key }) => key)
      const bridges = Object.fromEntries(
        Object.entries(allBridges).filter(([variable]) =>
          required.some((key) => variable.startsWith(`PARTNERPAY_PROVIDER_${key}_`)),
        ),
      )
      const config = yield* loadFrom({ ...productionSecrets, ...bridges })
      assert.deepStrictEqual(Object.keys(config.providers.ports).sort(), [...required].sort())
      assert.deepStrictEqual(required, ["OTP", "KYC", "BANK_LINKING", "MONEY_MOVEMENT"])
      assert.deepStrictEqual(
        ProviderPorts.off(config.providers).map(({ key }) => key),
        ["KYB", "CARD_PROCESSOR", "E_SIGNATURE", "SMS", "EMAIL", "PUSH"],
      )
      const off = ProviderPorts.describeOff(config.providers) ?? ""
      for (const key of ["CARD_PROCESSOR", "E_SIGNATURE", "PUSH"]) assert.include(off, `PARTNERPAY_PROVIDER_${key}]`)
    }),
  )

  it.effect("a first-party adapter names, in one error, every vendor setting it lacks (each once)", () =>
    Effect.gen(function* () {
      const error = yield* issuesOf({
        ...productionSecrets,
        ...allBridges,
        PARTNERPAY_PROVIDER_OTP: "twilio",
        PARTNERPAY_PROVIDER_SMS: "twilio",
        PARTNERPAY_PROVIDER_EMAIL: "smtp",
        PARTNERPAY_PROVIDER_BANK_LINKING: "plaid",
        PARTNERPAY_PROVIDER_KYC: "plaid",
        PARTNERPAY_PROVIDER_CARD_PROCESSOR: "plaid",
        PARTNERPAY_PLAID_SECRET: "a-plaid-secret",
      })
      assert.deepStrictEqual(
        error.issues.map((issue) => issue.variable),
        [
          "PARTNERPAY_PROVIDER_CARD_PROCESSOR",
          "PARTNERPAY_TWILIO_ACCOUNT_SID",
          "PARTNERPAY_TWILIO_AUTH_TOKEN",
          "PARTNERPAY_TWILIO_VERIFY_SERVICE_SID",
          "PARTNERPAY_TWILIO_MESSAGING_SERVICE_SID",
          "PARTNERPAY_SMTP_URL",
          "PARTNERPAY_SMTP_FROM",
          "PARTNERPAY_PLAID_CLIENT_ID",
          "PARTNERPAY_PLAID_ENV",
          "PARTNERPAY_PLAID_IDV_TEMPLATE_ID",
        ],
      )
      assert.include(
        error.message,
        'PARTNERPAY_PROVIDER_CARD_PROCESSOR: must be one of "bridge", "stripe" (got "plaid")',
      )
      assert.include(error.message, "PARTNERPAY_PLAID_IDV_TEMPLATE_ID: is required when PARTNERPAY_PROVIDER_KYC=plaid")
      assert.include(error.message, "PARTNERPAY_TWILIO_ACCOUNT_SID: is required when PARTNERPAY_PROVIDER_OTP=twilio")
      assert.notInclude(error.message, "a-plaid-secret")
    }),
  )

  it.effect("Dwolla names, in one error, every Dwolla setting it lacks (money movement needs KYB on it too)", () =>
    Effect.gen(function* () {
      const error = yield* issuesOf({
        ...productionSecrets,
        ...allBridges,
        PARTNERPAY_PROVIDER_KYB: "dwolla",
        PARTNERPAY_DWOLLA_SECRET: "a-dwolla-secret",
      })
      assert.deepStrictEqual(
        error.issues.map((issue) => issue.variable),
        [
          "PARTNERPAY_DWOLLA_KEY",
          "PARTNERPAY_DWOLLA_ENVIRONMENT",
          "PARTNERPAY_DWOLLA_WEBHOOK_SECRET",
          "PARTNERPAY_DWOLLA_BUSINESS_CLASSIFICATION",
        ],
      )
      assert.include(error.message, "PARTNERPAY_DWOLLA_KEY: is required when PARTNERPAY_PROVIDER_KYB=dwolla")
      assert.notInclude(error.message, "a-dwolla-secret")
      const config = yield* loadFrom({
        ...productionSecrets,
        ...allBridges,
        PARTNERPAY_PROVIDER_KYB: "dwolla",
        PARTNERPAY_DWOLLA_KEY: "a-key",
        PARTNERPAY_DWOLLA_SECRET: "a-dwolla-secret",
        PARTNERPAY_DWOLLA_ENVIRONMENT: "sandbox",
        PARTNERPAY_DWOLLA_WEBHOOK_SECRET: "a-webhook-secret",
        PARTNERPAY_DWOLLA_BUSINESS_CLASSIFICATION: "9ed3f670-7d6f-11e3-b1ce-5404a6144203",
      })
      assert.strictEqual(config.providers.ports.KYB?._tag, "dwolla")
      assert.strictEqual(config.providers.vendors.dwolla?.key, "a-key")
      const alone = yield* issuesOf({
        ...productionSecrets,
        ...allBridges,
        PARTNERPAY_PROVIDER_MONEY_MOVEMENT: "dwolla",
        PARTNERPAY_DWOLLA_KEY: "a-key",
        PARTNERPAY_DWOLLA_SECRET: "a-dwolla-secret",
        PARTNERPAY_DWOLLA_ENVIRONMENT: "sandbox",
        PARTNERPAY_DWOLLA_WEBHOOK_SECRET: "a-webhook-secret",
      })
      assert.deepStrictEqual(
        alone.issues.map((issue) => issue.variable),
        ["PARTNERPAY_PROVIDER_KYB", "PARTNERPAY_DWOLLA_MASTER_FUNDING_SOURCE"],
      )
    }),
  )

  it.effect("Stripe names, in one error, every Stripe setting it lacks, and never echoes a secret", () =>
    Effect.gen(function* () {
      const error = yield* issuesOf({
        ...productionSecrets,
        ...allBridges,
        PARTNERPAY_PROVIDER_CARD_PROCESSOR: "stripe",
        PARTNERPAY_STRIPE_BASE_URL: "http://stripe.example.com",
      })
      assert.deepStrictEqual(
        error.issues.map((issue) => issue.variable),
        ["PARTNERPAY_STRIPE_SECRET_KEY", "PARTNERPAY_STRIPE_WEBHOOK_SECRET", "PARTNERPAY_STRIPE_BASE_URL"],
      )
      assert.include(
        error.message,
        "PARTNERPAY_STRIPE_SECRET_KEY: is required when PARTNERPAY_PROVIDER_CARD_PROCESSOR=stripe",
      )
      const config = yield* loadFrom({
        ...productionSecrets,
        ...allBridges,
        PARTNERPAY_PROVIDER_CARD_PROCESSOR: "stripe",
        PARTNERPAY_STRIPE_SECRET_KEY: "sk_test_a-stripe-key",
        PARTNERPAY_STRIPE_WEBHOOK_SECRET: "whsec_a-signing-secret",
      })
      assert.strictEqual(config.providers.ports.CARD_PROCESSOR?._tag, "stripe")
      const stripe = config.providers.vendors.stripe
      assert.isDefined(stripe)
      assert.strictEqual(Redacted.value(stripe!.secretKey), "sk_test_a-stripe-key")
      assert.notInclude(String(stripe!.secretKey), "sk_test")
      assert.notInclude(JSON.stringify(stripe), "whsec_")
    }),
  )

  it.effect("a port on a first-party adapter takes its vendor's settings and the port's timeout", () =>
    Effect.gen(function* () {
      const config = yield* loadFrom({
        ...productionSecrets,
        ...allBridges,
        PARTNERPAY_PROVIDER_OTP: "twilio",
        PARTNERPAY_PROVIDER_OTP_TIMEOUT_MS: "3000",
        PARTNERPAY_TWILIO_ACCOUNT_SID: "AC0123",
        PARTNERPAY_TWILIO_AUTH_TOKEN: "token",
        PARTNERPAY_TWILIO_VERIFY_SERVICE_SID: "VA0123",
      })
      assert.deepStrictEqual(config.providers.ports.OTP, { _tag: "twilio", timeoutMillis: 3000 })
      assert.strictEqual(config.providers.vendors.twilio?.verifyServiceSid, "VA0123")
      assert.strictEqual(config.providers.vendors.smtp, undefined)
    }),
  )

  it.effect("the sandbox needs no bridge, and a secret without its URL is refused", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual((yield* loadFrom({})).providers.ports, {})
      const error = yield* issuesOf({ PARTNERPAY_PROVIDER_OTP_SECRET: "o".repeat(40) })
      assert.include(
        error.message,
        "PARTNERPAY_PROVIDER_OTP_URL: is required when PARTNERPAY_PROVIDER_OTP_SECRET is set",
      )
    }),
  )

  it.effect("the previous token secret and the pepper are optional in sandbox, redacted, and refused when short", () =>
    Effect.gen(function* () {
      const none = yield* loadFrom({})
      assert.isTrue(Option.isNone(none.tokenSecretPrevious))
      assert.isTrue(Option.isNone(none.secretPepper))
      const set = yield* loadFrom({
        PARTNERPAY_TOKEN_SECRET_PREVIOUS: "p".repeat(40),
        PARTNERPAY_SECRET_PEPPER: "q".repeat(40),
      })
      assert.strictEqual(Redacted.value(Option.getOrThrow(set.tokenSecretPrevious)), "p".repeat(40))
      assert.strictEqual(Redacted.value(Option.getOrThrow(set.secretPepper)), "q".repeat(40))
      const error = yield* issuesOf({ PARTNERPAY_TOKEN_SECRET_PREVIOUS: "old-tiny", PARTNERPAY_SECRET_PEPPER: "salty" })
      assert.include(error.message, "PARTNERPAY_TOKEN_SECRET_PREVIOUS: must be at least 32 bytes long (got 8)")
      assert.include(error.message, "PARTNERPAY_SECRET_PEPPER: must be at least 32 bytes long (got 5)")
      assert.notInclude(error.message, "old-tiny")
      assert.notInclude(error.message, "salty")
    }),
  )

  it.effect(
    "PARTNERPAY_TRUST_PROXY names the proxies: off by default, a number of hops, or addresses and networks",
    () =>
      Effect.gen(function* () {
        assert.deepStrictEqual((yield* loadFrom({})).trustedProxies, ClientAddress.none)
        assert.deepStrictEqual((yield* loadFrom({ PARTNERPAY_TRUST_PROXY: "off" })).trustedProxies, ClientAddress.none)
        assert.deepStrictEqual((yield* loadFrom({ PARTNERPAY_TRUST_PROXY: "2" })).trustedProxies, {
          _tag: "Hops",
          hops: 2,
        })
        const networks = (yield* loadFrom({ PARTNERPAY_TRUST_PROXY: "10.0.0.0/8,127.0.0.1,::1" })).trustedProxies
        assert.strictEqual(ClientAddress.format(networks), "10.0.0.0/8,127.0.0.1/32,::1/128")
      }),
  )

  it.effect("PARTNERPAY_TRUST_PROXY=on is refused at start, saying what to write instead; so are bad items", () =>
    Effect.gen(function* () {
      const on = yield* issuesOf({ PARTNERPAY_TRUST_PROXY: "on" })
      assert.include(on.message, 'PARTNERPAY_TRUST_PROXY: "on" is no longer accepted')
      assert.include(on.message, "which the client writes")
      assert.include(on.message, 'e.g. "1" for one load balancer')
      const bad = yield* issuesOf({ PARTNERPAY_TRUST_PROXY: "10.0.0.0/33,lb.internal", PORT: "x" })
      assert.include(bad.message, "PORT:")
      assert.include(bad.message, 'PARTNERPAY_TRUST_PROXY: must be "off", a number of proxies (1 to 10)')
      assert.include(bad.message, '"10.0.0.0/33" is not a network in CIDR notation')
      assert.include(bad.message, '"lb.internal" is not an IP address')
      const hops = yield* issuesOf({ PARTNERPAY_TRUST_PROXY: "0" })
      assert.include(hops.message, "PARTNERPAY_TRUST_PROXY: a number of proxies must be between 1 and 10")
    }),
  )

  it.effect(
    "PARTNERPAY_ADMIN_PORT puts the operator API on its own listener, on 127.0.0.1 unless ADMIN_HOST says",
    () =>
      Effect.gen(function* () {
        const token = { PARTNERPAY_ADMIN_TOKEN: "a".repeat(40) }
        assert.isTrue(Option.isNone((yield* loadFrom(token)).adminListener))
        const own = yield* loadFrom({ ...token, HOST: "0.0.0.0", PARTNERPAY_ADMIN_PORT: "9090" })
        assert.deepStrictEqual(own.adminListener, Option.some({ port: 9090, host: "127.0.0.1" }))
        const exposed = yield* loadFrom({ ...token, PARTNERPAY_ADMIN_PORT: "0", PARTNERPAY_ADMIN_HOST: "10.1.2.3" })
        assert.deepStrictEqual(exposed.adminListener, Option.some({ port: 0, host: "10.1.2.3" }))
      }),
  )

  it.effect("PARTNERPAY_ADMIN_PORT is refused without a token, on PORT, or malformed; ADMIN_HOST needs it", () =>
    Effect.gen(function* () {
      const noToken = yield* issuesOf({ PARTNERPAY_ADMIN_PORT: "9090" })
      assert.include(noToken.message, "PARTNERPAY_ADMIN_PORT: is set but PARTNERPAY_ADMIN_TOKEN is not")
      const token = { PARTNERPAY_ADMIN_TOKEN: "a".repeat(40) }
      const same = yield* issuesOf({ ...token, PORT: "8080", PARTNERPAY_ADMIN_PORT: "8080" })
      assert.include(same.message, "PARTNERPAY_ADMIN_PORT: must differ from PORT (8080)")
      const bad = yield* issuesOf({ ...token, PARTNERPAY_ADMIN_PORT: "70000", PARTNERPAY_ADMIN_HOST: "a b" })
      assert.include(bad.message, 'PARTNERPAY_ADMIN_PORT: must be an integer between 0 and 65535 (got "70000")')
      assert.include(bad.message, "PARTNERPAY_ADMIN_HOST: must be a host name or IP address")
      const hostOnly = yield* issuesOf({ ...token, PARTNERPAY_ADMIN_HOST: "127.0.0.1" })
      assert.include(hostOnly.message, "PARTNERPAY_ADMIN_HOST: is set but PARTNERPAY_ADMIN_PORT is not")
    }),
  )

  it.effect("a short token secret is refused without showing it", () =>
    Effect.gen(function* () {
      const error = yield* issuesOf({ PARTNERPAY_TOKEN_SECRET: "tiny-secret" })
      assert.include(error.message, "PARTNERPAY_TOKEN_SECRET: must be at least 32 bytes long (got 11)")
      assert.notInclude(error.message, "tiny-secret")
    }),
  )

  it.effect("tracing (span creation) is off unless PARTNERPAY_TRACING is on; other values are refused", () =>
    Effect.gen(function* () {
      assert.isFalse((yield* loadFrom({})).tracing)
      assert.isTrue((yield* loadFrom({ PARTNERPAY_TRACING: "On" })).tracing)
      assert.isFalse((yield* loadFrom({ PARTNERPAY_TRACING: "off" })).tracing)
      const error = yield* issuesOf({ PARTNERPAY_TRACING: "yes" })
      assert.include(error.message, 'PARTNERPAY_TRACING: must be "on" or "off"')
    }),
  )

  it.effect("reminders go 3 days before and on the due date unless PARTNERPAY_REMINDER_DAYS says otherwise", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual((yield* loadFrom({})).reminderDays, [3, 0])
      assert.deepStrictEqual((yield* loadFrom({ PARTNERPAY_REMINDER_DAYS: "1, 7" })).reminderDays, [7, 1])
      for (const bad of ["3,3", "-1", "31", "soon", "3,,0"]) {
        const error = yield* issuesOf({ PARTNERPAY_REMINDER_DAYS: bad })
        assert.include(
          error.message,
          "PARTNERPAY_REMINDER_DAYS: must be distinct whole numbers of days between 0 and 30",
        )
      }
    }),
  )

  it.effect("rate limiting is on unless PARTNERPAY_RATE_LIMITING is off; other values are refused", () =>
    Effect.gen(function* () {
      assert.isTrue((yield* loadFrom({})).rateLimiting)
      assert.isFalse((yield* loadFrom({ PARTNERPAY_RATE_LIMITING: "OFF" })).rateLimiting)
      const error = yield* issuesOf({ PARTNERPAY_RATE_LIMITING: "maybe" })
      assert.include(error.message, 'PARTNERPAY_RATE_LIMITING: must be "on" or "off"')
    }),
  )

  it.effect(
    "a PostgreSQL session takes 32 statements at once unless PARTNERPAY_DB_STATEMENTS_PER_SESSION says otherwise",
    () =>
      Effect.gen(function* () {
        const url = "postgres://u@db:5432/pp"
        const byDefault = yield* loadFrom({ DATABASE_URL: url })
        const lowered = yield* loadFrom({ DATABASE_URL: url, PARTNERPAY_DB_STATEMENTS_PER_SESSION: "4" })
        assert.deepStrictEqual(
          [byDefault.database, lowered.database].map((database) =>
            database._tag === "Postgres" ? database.statementsPerSession : undefined,
          ),
          [32, 4],
        )
      }),
  )

  it.effect("PARTNERPAY_DB_STATEMENTS_PER_SESSION outside 1..128 is refused, naming the variable", () =>
    Effect.gen(function* () {
      for (const bad of ["0", "129", "four", "2.5"]) {
        const error = yield* issuesOf({ DATABASE_URL: "postgres://u@db/pp", PARTNERPAY_DB_STATEMENTS_PER_SESSION: bad })
        assert.include(
          error.message,
          `PARTNERPAY_DB_STATEMENTS_PER_SESSION: must be a whole number between 1 and 128 (got "${bad}")`,
        )
      }
    }),
  )

  it.effect(
    "every PostgreSQL session has statement, lock and idle-in-transaction timeouts and an acquisition bound, set or by default",
    () =>
      Effect.gen(function* () {
        const url = "postgres://u@db:5432/pp"
        const byDefault = yield* loadFrom({ DATABASE_URL: url })
        const set = yield* loadFrom({
          DATABASE_URL: url,
          PARTNERPAY_DB_STATEMENT_TIMEOUT_MS: "5000",
          PARTNERPAY_DB_LOCK_TIMEOUT_MS: "250",
          PARTNERPAY_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: "2000",
          PARTNERPAY_DB_ACQUIRE_TIMEOUT_MS: "750",
        })
        assert.deepStrictEqual(
          [byDefault.database, set.database].map((database) =>
            database._tag === "Postgres" ? database.timeouts : undefined,
          ),
          [
            { statementMillis: 15_000, lockMillis: 1_000, idleInTransactionMillis: 10_000, acquireMillis: 5_000 },
            { statementMillis: 5_000, lockMillis: 250, idleInTransactionMillis: 2_000, acquireMillis: 750 },
          ],
        )
      }),
  )

  it.effect("a session timeout cannot be turned off: 0 is refused, naming the variable", () =>
    Effect.gen(function* () {
      const error = yield* issuesOf({ DATABASE_URL: "postgres://u@db/pp", PARTNERPAY_DB_LOCK_TIMEOUT_MS: "0" })
      assert.include(
        error.message,
        'PARTNERPAY_DB_LOCK_TIMEOUT_MS: must be a whole number of milliseconds between 100 and 3600000 (got "0")',
      )
    }),
  )

  it.effect("a malformed DATABASE_URL is refused without echoing it (it may hold a password)", () =>
    Effect.gen(function* () {
      const error = yield* issuesOf({ DATABASE_URL: "mysql://root:pa55word@db/x" })
      assert.include(error.message, "DATABASE_URL: must be a PostgreSQL connection URL")
      assert.notInclude(error.message, "pa55word")
    }),
  )

  it.effect("a sandbox client id without its secret, or a webhook secret without a URL, is refused", () =>
    Effect.gen(function* () {
      const error = yield* issuesOf({
        PARTNERPAY_SANDBOX_CLIENT_ID: "sandbox-client",
        PARTNERPAY_SANDBOX_WEBHOOK_SECRET: "whsec",
      })
      assert.include(
        error.message,
        "PARTNERPAY_SANDBOX_CLIENT_SECRET: is required when PARTNERPAY_SANDBOX_CLIENT_ID is set",
      )
      assert.include(
        error.message,
        "PARTNERPAY_SANDBOX_WEBHOOK_SECRET: is set but PARTNERPAY_SANDBOX_WEBHOOK_URL is not",
      )
    }),
  )

  it.effect("empty variables count as unset", () =>
    Effect.gen(function* () {
      const config = yield* loadFrom({ PORT: "", DATABASE_URL: "", LOG_LEVEL: " " })
      assert.strictEqual(config.port, 3000)
      assert.strictEqual(config.database._tag, "Pglite")
    }),
  )
  describe("observability", () => {
    it.effect("/metrics is served unless PARTNERPAY_METRICS=off, and no trace is exported without an endpoint", () =>
      Effect.gen(function* () {
        const defaults = yield* loadFrom({})
        assert.isTrue(defaults.metrics)
        assert.isFalse(defaults.tracing)
        assert.isTrue(Option.isNone(defaults.traceExport))
        assert.isFalse((yield* loadFrom({ PARTNERPAY_METRICS: "off" })).metrics)
      }),
    )

    it.effect("OTEL_EXPORTER_OTLP_ENDPOINT exports traces to its /v1/traces path and turns spans on", () =>
      Effect.gen(function* () {
        const config = yield* loadFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" })
        assert.isTrue(config.tracing)
        assert.deepStrictEqual(Option.getOrUndefined(config.traceExport), {
          url: "http://collector:4318/v1/traces",
          serviceName: "partnerpay",
          exportIntervalMillis: 5000,
        })
      }),
    )

    it.effect("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as given, with OTEL_SERVICE_NAME", () =>
      Effect.gen(function* () {
        const config = yield* loadFrom({
          OTEL_EXPORTER_OTLP_ENDPOINT: "http://ignored:4318",
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://collector.example.com/traces",
          OTEL_SERVICE_NAME: "payments-eu",
        })
        assert.strictEqual(Option.getOrUndefined(config.traceExport)?.url, "https://collector.example.com/traces")
        assert.strictEqual(Option.getOrUndefined(config.traceExport)?.serviceName, "payments-eu")
      }),
    )

    it.effect("a trace endpoint that is not an http(s) URL, or a bad PARTNERPAY_METRICS, is named", () =>
      Effect.gen(function* () {
        const refusal = yield* issuesOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318", PARTNERPAY_METRICS: "yes" })
        assert.deepStrictEqual(
          refusal.issues.map((issue) => issue.variable),
          ["PARTNERPAY_METRICS", "OTEL_EXPORTER_OTLP_ENDPOINT"],
        )
      }),
    )
  })

  describe("documentation", () => {
    /** [variable, default] of each row of the README's "Environment variables" table. */
    const documented = () => {
      const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")
      const section = readme.slice(
        readme.indexOf("## Environment variables"),
        readme.indexOf("## Sandbox magic values"),
      )
      return [...section.matchAll(/^\| `([A-Z_<>]+)`\s*\|([^|]*)\|/gm)].map((row) => [row[1]!, row[2]!.trim()])
    }
    /** [variable, default] of each declared setting; a bridge's once, with `<PORT>` for the port. */
    const declared = () => {
      const [first] = ProviderPorts.ports
      const bridge = Object.values(Settings.bridges[first.key]).map(
        (setting) =>
          [setting.name.replace(new RegExp(`_${first.key}(_|$)`), "_<PORT>$1"), setting.documentedDefault] as const,
      )
      return [
        ...Object.values(Settings.settings).map((setting) => [setting.name, setting.documentedDefault]),
        ...bridge,
      ]
    }

    it("the README's table lists every declared setting and nothing else, in order, with its default", () => {
      assert.deepStrictEqual(documented(), declared())
    })

    it("every setting has a line of documentation", () => {
      for (const setting of Settings.all) assert.isAbove(setting.doc.length, 10, setting.name)
    })
  })
})
