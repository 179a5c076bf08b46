/**
 * The composition root (named Service.ts because `main.ts`, the entry point,
 * differs from "Main.ts" only in case): configuration -> database ->
 * migrations and domain stack -> sandbox partner -> tokens, health -> HTTP
 * server and background workers.
 *
 * Shutdown (SIGTERM/SIGINT via `NodeRuntime.runMain`): layers are released in
 * reverse order of construction: the HTTP server stops accepting and lets
 * in-flight requests finish (up to 20 s), the workers are interrupted, then
 * the database closes (PGlite closes its data directory cleanly).
 */

import { ApiVersions, CrossCutting, RateLimit, Server, Tokens } from "@partnerpay/adapters-http"
import { type Migrations, type PgOutbox, PgPartnerCredentials, PgServiceInstance } from "@partnerpay/adapters-pg"
import {
  type Attachments,
  type CardCharger,
  type CompanyProviders,
  type EventStore,
  type IdGenerator,
  Money,
  type MoneyMovement,
  type PaymentProviders,
  Payments,
  type PersonalData,
  type Policy,
  RailCapabilities,
  type ReadModel,
  Traced,
  type UnitOfWork,
} from "@partnerpay/domain"
import { Effect, Layer, Option, Redacted } from "effect"
import { type HttpRouter, HttpServer } from "effect/http"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { type AppConfig, describeDatabase, load } from "./config/Config.ts"
import * as TokenSecret from "./config/TokenSecret.ts"
import * as Domain from "./Domain.ts"
import * as Database from "./database/Database.ts"
import * as CardProcessorCallbacks from "./http/CardProcessorCallbacks.ts"
import type * as DwollaCallbacks from "./http/DwollaCallbacks.ts"
import * as Http from "./http/Http.ts"
import * as MoneyMovementCallbacks from "./http/MoneyMovementCallbacks.ts"
import * as Readiness from "./http/Readiness.ts"
import type * as StripeCallbacks from "./http/StripeCallbacks.ts"
import * as Logging from "./observability/Logging.ts"
import * as Metrics from "./observability/Metrics.ts"
import * as Telemetry from "./observability/Telemetry.ts"
import * as Admin from "./operator/Admin.ts"
import * as ProviderGuard from "./providers/ProviderGuard.ts"
import * as ProviderPorts from "./providers/ProviderPorts.ts"
import * as StartupMemory from "./StartupMemory.ts"
import * as Partners from "./sandbox/Partners.ts"
import * as SandboxCards from "./sandbox/SandboxCards.ts"
import * as SandboxClock from "./sandbox/SandboxClock.ts"
import * as SandboxMessages from "./sandbox/SandboxMessages.ts"
import * as SandboxMoneyMovement from "./sandbox/SandboxMoneyMovement.ts"
import * as SandboxProviders from "./sandbox/SandboxProviders.ts"
import * as SandboxWebhooks from "./sandbox/SandboxWebhooks.ts"
import * as AttachmentFetcher from "./workers/AttachmentFetcher.ts"
import * as AutoCollectionScheduler from "./workers/AutoCollectionScheduler.ts"
import * as CardRefundRetry from "./workers/CardRefundRetry.ts"
import * as EvidencePurge from "./workers/EvidencePurge.ts"
import * as KybWorker from "./workers/KybWorker.ts"
import * as MoneyMovementWorkers from "./workers/MoneyMovementWorkers.ts"
import * as PaymentNotifier from "./workers/PaymentNotifier.ts"
import * as PayoutWorkers from "./workers/PayoutWorkers.ts"
import * as PlanScheduler from "./workers/PlanScheduler.ts"
import * as RecurringCharityScheduler from "./workers/RecurringCharityScheduler.ts"
import * as ReimbursementCompletion from "./workers/ReimbursementCompletion.ts"
import * as SandboxCardDisputes from "./workers/SandboxCardDisputes.ts"
import * as SandboxKyb from "./workers/SandboxKyb.ts"
import * as WebhookDispatcher from "./workers/WebhookDispatcher.ts"
import * as WebhookTarget from "./workers/WebhookTarget.ts"

/** What the workers need. */
export type WorkerRequirements =
  | EventStore.EventStore
  | IdGenerator.IdGenerator
  | ReadModel.ReadModelStore
  | UnitOfWork.UnitOfWork
  | Policy.Policies
  | SqlClient
  | PgOutbox.OutboxDispatch
  | PgPartnerCredentials.Partners
  | PaymentNotifier.Requirements
  | Attachments.PaymentAttachments
  | MoneyMovement.MoneyMovement
  | PaymentProviders.ESignature
  | CompanyProviders.KybVerifier
  | CardCharger.CardCharger
  | PersonalData.PersonalDataVault

const isSandbox = (config: AppConfig) => config.environment === "sandbox"

/** The names of the workers `workers(config)` starts (what `GET /readyz` expects to be running). */
export const workerNames = (config: AppConfig): ReadonlyArray<string> =>
  isSandbox(config)
    ? [
        "webhook-dispatcher",
        "payment-plan-scheduler",
        AutoCollectionScheduler.name,
        RecurringCharityScheduler.name,
        "sandbox-kyb",
        SandboxCardDisputes.name,
        MoneyMovementWorkers.originatorName,
        MoneyMovementWorkers.outcomesName,
        ReimbursementCompletion.name,
        CardRefundRetry.name,
        "payment-notifier",
        AttachmentFetcher.name,
        PayoutWorkers.schedulerName,
        PayoutWorkers.movementsName,
        EvidencePurge.name,
      ]
    : [
        "webhook-dispatcher",
        "payment-plan-scheduler",
        AutoCollectionScheduler.name,
        RecurringCharityScheduler.name,
        MoneyMovementWorkers.originatorName,
        MoneyMovementWorkers.outcomesName,
        ReimbursementCompletion.name,
        CardRefundRetry.name,
        AttachmentFetcher.name,
        PayoutWorkers.schedulerName,
        PayoutWorkers.movementsName,
        "payment-notifier",
        EvidencePurge.name,
        ...(config.providers.ports.KYB === undefined ? [] : [KybWorker.name]),
      ]

/**
 * The payout workers: daily in production (PARTNERPAY_PAYOUT_INTERVAL_MS), each settlement cycle in the
 * sandbox; payouts move through the service's money-movement provider (the sandbox's, or the operator's
 * bridge in production).
 */
const payoutWorkers = (config: AppConfig) =>
  PayoutWorkers.layer({
    schedule: {
      minimumMinorUnits: config.payoutMinimumMinorUnits,
      intervalMillis: config.payoutIntervalMillis,
      deficitGraceMillis: config.deficitGraceMillis,
    },
    idleMillis: isSandbox(config)
      ? Math.min(1000, Math.max(100, Math.floor(config.settlementDelayMillis / 4)))
      : config.moneyMovementPollMillis,
  })

/** The background workers for the environment. */
export const workers = (config: AppConfig): Layer.Layer<never, never, WorkerRequirements> => {
  const common = Layer.mergeAll(
    // Retries are scheduled against the database clock: the dispatcher never follows the sandbox clock.
    SandboxClock.onRealClock(
      WebhookDispatcher.layer({ live: config.environment === "production", workerId: `pid-${process.pid}` }),
    ),
    PlanScheduler.layer(),
    AutoCollectionScheduler.layer(),
    // Recurring charity gifts are collected again in both environments (monthly, RecurringGift.ts).
    RecurringCharityScheduler.layer(),
    // Download retries follow real time, as webhook retries do.
    SandboxClock.onRealClock(AttachmentFetcher.layer({ sandbox: isSandbox(config) })),
    // Money moves in both environments: the sandbox's provider or the operator's bridge.
    ...MoneyMovementWorkers.layer({
      sandbox: isSandbox(config),
      delayMillis: config.settlementDelayMillis,
      pollMillis: config.moneyMovementPollMillis,
      returnWindowDays: config.returnWindowDays,
    }),
    // Reimbursements complete in both environments: the sandbox signer or the operator's e-signature bridge.
    ReimbursementCompletion.layer({
      pollMillis: MoneyMovementWorkers.idleMillis({
        sandbox: isSandbox(config),
        delayMillis: config.settlementDelayMillis,
        pollMillis: config.moneyMovementPollMillis,
      }),
    }),
    // Pending card refunds asked of the card processor again, with backoff, in both environments.
    CardRefundRetry.layer({ baseMillis: config.cardRefundRetryMillis }),
    // Payouts in both environments: daily in production, each settlement cycle in the sandbox.
    payoutWorkers(config),
    // Reminders and status messages: recorded in the sandbox, sent by the channels' providers in production.
    PaymentNotifier.layer({ reminderDays: config.reminderDays }),
    // Authorization evidence is purged two years after it was given, in both environments.
    EvidencePurge.layer({ sandbox: isSandbox(config) }),
  )
  if (isSandbox(config))
    return Layer.mergeAll(
      common,
      SandboxKyb.layer({ delayMillis: config.kybDelayMillis }),
      SandboxCardDisputes.layer({ cycleMillis: config.settlementDelayMillis }),
    )
  // Production: companies are submitted to the KYB provider, when one is configured, and its verdicts polled.
  return config.providers.ports.KYB === undefined
    ? common
    : Layer.mergeAll(common, KybWorker.layer(KybWorker.defaults(config.kybPollMillis)))
}

/**
 * The workers, on their own connections when the database is a PostgreSQL server (their stores
 * over `Database.layerBackground`; everything else shared with the requests), else on the
 * service's (PGlite: one session).
 */
const backgroundWorkers = (
  config: AppConfig,
): Layer.Layer<
  never,
  Migrations.UnknownMigrations | Migrations.MigrationFailed | SqlError,
  WorkerRequirements | PersonalData.PersonalDataVault
> => {
  const connections = Database.layerBackground(config.database)
  if (connections === undefined) return workers(config)
  // Fresh: the stores' layers are module constants, memoized across the whole service; these must be
  // built again, on the workers' connections.
  return Layer.provide(workers(config), Layer.fresh(Domain.layerBackground.pipe(Layer.provideMerge(connections))))
}

/**
 * In a sandbox without a configured partner: the first start's partner and a ready-to-paste token
 * request (its secret only when it was just created, and only on a terminal's readable lines: JSON
 * log lines are shipped elsewhere, they name the credentials file instead), or how to get a partner.
 */
export const sandboxPartnerHint = Traced.fn("Service.sandboxPartnerHint")(function* (
  config: AppConfig,
  address: string,
) {
  if (config.environment !== "sandbox" || Option.isSome(config.sandboxPartner)) return
  const firstStart = yield* Partners.FirstStart
  if (Option.isNone(firstStart)) {
    return yield* Effect.logInfo(
      "no sandbox partner configured: restart with PARTNERPAY_SANDBOX_CLIENT_ID=<id> and " +
        "PARTNERPAY_SANDBOX_CLIENT_SECRET=<at least 16 characters> to get one, or create a partner with " +
        '`./pnpm partnerpay partners create --name "My company"` (while the service is stopped, on the embedded database)',
    )
  }
  const { clientId, clientSecret, file } = firstStart.value
  const shown = Option.isSome(clientSecret) && config.logFormat === "pretty"
  yield* Effect.logInfo(
    Option.isSome(clientSecret)
      ? `sandbox partner created: ClientId ${clientId}, ClientSecret ${shown ? Redacted.value(clientSecret.value) : "(in the file)"} ` +
          `(shown once; kept in ${file})`
      : `sandbox partner: ClientId ${clientId} (its credentials are in ${file})`,
  )
  yield* Effect.logInfo(
    `get a partner token: curl -s -XPOST ${address}/auth/token -H 'content-type: application/json' -d @${file}`,
  )
})

/** Production: the optional capabilities the service runs without (their routes answer FEATURE_NOT_AVAILABLE). */
const capabilitiesOff = (config: AppConfig) => {
  const off = config.environment === "sandbox" ? undefined : ProviderPorts.describeOff(config.providers)
  return off === undefined ? Effect.void : Effect.logInfo(off)
}

/** The bridge of a port served by one (the money-movement notifications are signed with its secret). */
const bridgeOf = (selection: ProviderPorts.Selection | undefined) =>
  selection?._tag === "bridge" ? selection.bridge : undefined

/** Dwolla's settings (its webhook secret), when some port is on Dwolla. */
const dwollaWebhooks = (config: AppConfig) => {
  const selection = Object.values(config.providers.ports).find((selected) => selected?._tag === "dwolla")
  const dwolla = config.providers.vendors.dwolla
  return selection === undefined || selection._tag !== "dwolla" || dwolla === undefined
    ? undefined
    : { ...dwolla, timeoutMillis: selection.timeoutMillis }
}

/**
 * Dwolla's webhook route, its module (and Dwolla's SDK, some 20 MB of heap) loaded only when a port is
 * on Dwolla.
 */
const dwollaRoutes = (
  dwolla: ReturnType<typeof dwollaWebhooks>,
): Layer.Layer<never, never, HttpRouter.HttpRouter | DwollaCallbacks.Requirements> =>
  dwolla === undefined
    ? Layer.empty
    : Layer.unwrap(
        Effect.map(
          Effect.promise(() => import("./http/DwollaCallbacks.ts")),
          (module) => module.routes(dwolla),
        ),
      )

/** Stripe's settings (its webhook signing secret), when the card processor is Stripe. */
const stripeWebhooks = (config: AppConfig) => {
  const selection = config.providers.ports.CARD_PROCESSOR
  const stripe = config.providers.vendors.stripe
  return selection?._tag !== "stripe" || stripe === undefined
    ? undefined
    : { ...stripe, timeoutMillis: selection.timeoutMillis }
}

/** Stripe's webhook route, its module (and Stripe's SDK) loaded only when the card processor is Stripe. */
const stripeRoutes = (
  stripe: ReturnType<typeof stripeWebhooks>,
): Layer.Layer<never, never, HttpRouter.HttpRouter | StripeCallbacks.Requirements> =>
  stripe === undefined
    ? Layer.empty
    : Layer.unwrap(
        Effect.map(
          Effect.promise(() => import("./http/StripeCallbacks.ts")),
          (module) => module.routes(stripe),
        ),
      )

/** Everything the service runs, for a validated configuration and its token secret. */
export const makeLayer = (config: AppConfig, tokenSecret: Redacted.Redacted<string>, startedAt = Date.now()) => {
  const core = Layer.provideMerge(
    Partners.bootstrap(config),
    Domain.layerWith(config).pipe(
      Layer.provideMerge(Database.layer(config.database)),
      // The client-secret pepper (PARTNERPAY_SECRET_PEPPER, or generated in a sandbox): TokenSecret.ts.
      Layer.provide(TokenSecret.pepperLayer(config)),
    ),
  )
  const sandbox = config.environment === "sandbox"
  const tokens = Tokens.Tokens.layer({
    secret: tokenSecret,
    previousSecret: Option.getOrUndefined(config.tokenSecretPrevious),
  })
  // Sandbox: each partner's own time (SandboxClock.ts), stored; production: none.
  const clocks = sandbox ? SandboxClock.layerStored : SandboxClock.layer(SandboxClock.none)
  const ports = Layer.mergeAll(
    sandbox ? Layer.provide(SandboxClock.partnerTokens, tokens) : tokens,
    // The rail's rolling payer limit of this deployment (RailCapabilities.ts); 0: none.
    Layer.succeed(
      RailCapabilities.CurrentPayerLimit,
      config.payerLimitMinorUnits === 0
        ? undefined
        : { amount: Money.make(config.payerLimitMinorUnits, "USD"), windowMillis: config.payerLimitDays * 86_400_000 },
    ),
    Database.healthCheck,
    // Every provider port guarded: a call while a database transaction is open is a defect in tests (ProviderGuard.ts).
    sandbox
      ? ProviderGuard.guarded(
          Layer.mergeAll(
            SandboxProviders.layerSandbox({ signingDelayMillis: config.settlementDelayMillis }),
            SandboxProviders.messaging,
            SandboxMoneyMovement.layer({
              delayMillis: config.settlementDelayMillis,
              currencies: config.sandboxCurrencies,
            }),
          ),
        )
      : ProviderGuard.guarded(SandboxProviders.layerProduction(config)),
    CrossCutting.layerLimits({ rateLimiting: config.rateLimiting, trustedProxies: config.trustedProxies }),
    // Each partner's API version is pinned with the partner, at its first call (docs/api/versions.md).
    Layer.effect(
      ApiVersions.PinnedVersions,
      Effect.map(Effect.service(PgPartnerCredentials.Partners), (partners) => ({
        versionOf: (partnerId: string, latest: string) =>
          partners.pinApiVersion(partnerId, latest).pipe(Effect.orElseSucceed(() => latest)),
      })),
    ),
    // Which webhook URLs a partner may set itself (PUT /Webhooks/Endpoint): the environment's policy.
    WebhookTarget.layerTargets,
    // Several instances on one database enforce each rate limit together: each its share (docs/scaling.md).
    Layer.effect(
      RateLimit.InstanceShare,
      Effect.map(Effect.service(PgServiceInstance.ServiceInstance), (instance) => instance.liveInstances),
    ),
  ).pipe(Layer.provideMerge(clocks), Layer.provideMerge(core))
  // Sandbox: `POST /Sandbox/Clock/Advance` moves the caller's partner's time only (SandboxClock.ts),
  // and `POST /Sandbox/CardPaymentMethods` saves a test card (SandboxCards.ts),
  // and `GET /Sandbox/Messages` lists the messages sent to a customer (SandboxMessages.ts).
  // `POST /Sandbox/Webhooks/Test` queues a signed test webhook (SandboxWebhooks.ts).
  // The operator API (/admin) exists only when PARTNERPAY_ADMIN_TOKEN is set (Admin.ts); with
  // PARTNERPAY_ADMIN_PORT it is served on its own listener (`adminListener`) and not here.
  // Unauthenticated probes for load balancers: GET /livez, GET /readyz (Readiness.ts).
  // GET /metrics (Prometheus text), unless PARTNERPAY_METRICS=off (Metrics.ts).
  const own = Layer.mergeAll(
    Option.isNone(config.adminListener) ? Admin.routes(config.adminToken) : Layer.empty,
    Readiness.routes,
    ...(config.metrics && Option.isNone(config.metricsPort) ? [Metrics.routes(config.metricsToken)] : []),
    ...(sandbox
      ? [
          SandboxClock.routes,
          SandboxCards.routes({ settlementCycleMillis: config.settlementDelayMillis }),
          SandboxMessages.routes,
          SandboxWebhooks.routes,
        ]
      : []),
    // Production: the money-movement provider's notifications, signed with its bridge's secret.
    ...(sandbox ? [] : [MoneyMovementCallbacks.routes(bridgeOf(config.providers.ports.MONEY_MOVEMENT))]),
    // Production: the card processor's notifications (disputes, refund outcomes), signed with its bridge's secret.
    ...(sandbox ? [] : [CardProcessorCallbacks.routes(bridgeOf(config.providers.ports.CARD_PROCESSOR))]),
    // Production: Dwolla's signed webhooks, when a port is on Dwolla.
    ...(sandbox ? [] : [dwollaRoutes(dwollaWebhooks(config))]),
    // Production: Stripe's signed webhooks, when the card processor is Stripe.
    ...(sandbox ? [] : [stripeRoutes(stripeWebhooks(config))]),
  ).pipe(Layer.provide(Http.serviceRoutes))
  // Their paths called with another method answer 405 with Allow (Server.ServedRoutes).
  const ownRoutes: Array<{ method: string; path: string }> = []
  const http = Http.serve(Layer.merge(Server.Routes, Http.recordRoutes(own, ownRoutes)), {
    port: config.port,
    host: config.host,
    tracing: config.tracing,
  }).pipe(
    Layer.provide(ports),
    // Sandbox: attachment URLs may be http and name local hosts (a partner's local server).
    Layer.provide(Layer.succeed(Payments.SandboxAttachmentUrls, sandbox)),
    Layer.provide(Layer.succeed(Server.ServedRoutes, ownRoutes)),
  )
  // Production on Dwolla with PARTNERPAY_DWOLLA_WEBHOOK_URL: the webhook subscription made if missing
  // (in the background: the start does not wait for Dwolla).
  const dwolla = sandbox ? undefined : dwollaWebhooks(config)
  const subscription =
    dwolla?.webhookUrl === undefined
      ? Layer.empty
      : Layer.effectDiscard(
          Effect.forkScoped(
            Effect.flatMap(
              Effect.promise(() => import("./providers/DwollaSubscription.ts")),
              (subscriptions) => subscriptions.ensureLogged(dwolla, dwolla.webhookUrl as string),
            ),
          ),
        )
  const announce = Layer.effectDiscard(
    Effect.gen(function* () {
      yield* HttpServer.addressFormattedWith((address) =>
        Effect.logInfo(
          `partnerpay listening on ${address} (${config.environment}, ${describeDatabase(config.database)})`,
        ).pipe(
          Effect.annotateLogs({ address, startupMs: Date.now() - startedAt }),
          Effect.andThen(Effect.logInfo(`API reference: ${address}${Server.docsPath}`)),
          Effect.andThen(capabilitiesOff(config)),
          Effect.andThen(sandboxPartnerHint(config, address)),
        ),
      )
      yield* Effect.addFinalizer(() => Effect.logInfo("partnerpay shutting down"))
    }),
    // The same `core` as the ports' (layers are shared within one build): its first-start partner.
  ).pipe(Layer.provide(core))
  return Layer.merge(announce, subscription).pipe(
    Layer.provideMerge(http),
    Layer.provideMerge(Layer.provide(adminListener(config), ports)),
    Layer.provideMerge(Layer.provide(metricsListener(config), ports)),
    Layer.provideMerge(Layer.provide(backgroundWorkers(config), ports)),
    Layer.provide(Readiness.layerWorkers(workerNames(config))),
    // Spans off unless PARTNERPAY_TRACING=on or traces are exported: seen by every fiber the service starts
    // (requests, workers), as is the OTLP tracer when OTEL_EXPORTER_OTLP_ENDPOINT is set (Telemetry.ts).
    Layer.provide(Http.tracing(config.tracing)),
    Layer.provide(Telemetry.layer(config.traceExport)),
    // Outbound calls reach public addresses only, unless a sandbox on loopback only (WebhookTarget.ts).
    Layer.provide(Layer.succeed(WebhookTarget.WebhookTargetPolicy, WebhookTarget.policyOf(config))),
  )
}

/**
 * The operator API on its own listener (PARTNERPAY_ADMIN_PORT): only /admin, with the same
 * cross-cutting limits (rate limit, body size) as the public listener; any other path is 404.
 * Announced with its own start line. Nothing when the operator API shares the public listener.
 */
const adminListener = (config: AppConfig) => {
  if (Option.isNone(config.adminListener)) return Layer.empty
  const { port, host } = config.adminListener.value
  const served: Array<{ method: string; path: string }> = []
  const routes = Layer.mergeAll(
    Http.recordRoutes(Admin.routes(config.adminToken).pipe(Layer.provide(Http.serviceRoutes)), served),
    Server.RouterProblems,
    CrossCutting.layer,
  )
  const announce = Layer.effectDiscard(
    HttpServer.addressFormattedWith((address) =>
      Effect.logInfo(`partnerpay operator API listening on ${address}`).pipe(Effect.annotateLogs({ address })),
    ),
  )
  return Layer.provide(
    announce,
    Http.serve(routes, { port, host, tracing: config.tracing }).pipe(
      Layer.provide(Layer.mergeAll(Layer.succeed(Server.ServedRoutes, served), Layer.succeed(Server.ServesApi, false))),
    ),
  )
}

/**
 * `GET /metrics` on its own listener (PARTNERPAY_METRICS_PORT, on HOST): only that route (with the
 * metrics token when set); any other path is 404. Announced with its own start line.
 */
const metricsListener = (config: AppConfig) => {
  if (!config.metrics || Option.isNone(config.metricsPort)) return Layer.empty
  const served: Array<{ method: string; path: string }> = []
  const routes = Layer.mergeAll(
    Http.recordRoutes(Metrics.routes(config.metricsToken).pipe(Layer.provide(Http.serviceRoutes)), served),
    Server.RouterProblems,
  )
  const announce = Layer.effectDiscard(
    HttpServer.addressFormattedWith((address) =>
      Effect.logInfo(`partnerpay metrics listening on ${address}/metrics`).pipe(Effect.annotateLogs({ address })),
    ),
  )
  return Layer.provide(
    announce,
    Http.serve(routes, { port: config.metricsPort.value, host: config.host, tracing: config.tracing }).pipe(
      Layer.provide(Layer.mergeAll(Layer.succeed(Server.ServedRoutes, served), Layer.succeed(Server.ServesApi, false))),
    ),
  )
}

/** Loads the configuration, then runs the service until interrupted. */
export const main = Traced.fn("Service.main")(function* (startedAt: number = Date.now()) {
  const config = yield* load
  const tokenSecret = yield* TokenSecret.resolve(config)
  // The service process only (tests build `makeLayer` in their own process): start-up's memory given back.
  const service = makeLayer(config, tokenSecret, startedAt).pipe(Layer.tap(() => StartupMemory.release))
  yield* Layer.launch(service).pipe(
    Effect.ensuring(Effect.logInfo("partnerpay stopped")),
    Effect.provide(Logging.layer(config.logLevel, undefined, config.logFormat)),
  )
})
