/**
 * The service's metrics, in Effect's metric registry, served in the
 * Prometheus text format at `GET /metrics` (it carries counts, never partner
 * data; off with PARTNERPAY_METRICS=off). With PARTNERPAY_METRICS_TOKEN it
 * requires `Authorization: Bearer <token>` (else 401, compared in constant
 * time); with PARTNERPAY_METRICS_PORT it is served on a listener of its own
 * (Service.ts) and not on the public one:
 *
 * - `partnerpay_http_requests_total{method,route,status}` and
 *   `partnerpay_http_request_duration_seconds{method,route}` (histogram):
 *   every answered request, by route template (`unmatched` for a path no
 *   route knows, so a scan of random paths cannot grow the series);
 * - `partnerpay_events_appended_total`, `partnerpay_units_of_work_total{outcome}`,
 *   `partnerpay_outbox_backlog`, `partnerpay_outbox_oldest_age_seconds`
 *   (adapters-pg `PgMetrics`; the backlog is read when scraped);
 * - `partnerpay_negative_balances` and `partnerpay_negative_balance_oldest_age_seconds`: companies
 *   whose available balance is negative, and the age of the oldest deficit (read when scraped);
 * - `partnerpay_debit_payouts_failed_total`: Debit payouts (deficit recoveries) that failed, counted
 *   from the payouts read model when scraped (the deficit stays; the webhook tells the partner);
 * - `partnerpay_webhook_deliveries_total{outcome}`: `delivered`, `failed`
 *   (will retry), `gave_up`;
 * - `partnerpay_worker_runs_total{worker,outcome}`: background worker steps
 *   that did work (`work`), found nothing (`idle`) or failed (`failed`);
 * - `partnerpay_provider_calls_total{provider,operation,outcome}`: calls to
 *   the providers (bridges and first-party adapters) answered (`ok`),
 *   refused by the provider (`refused`: a port's refusal) or unavailable
 *   (`unavailable`: timeout, 5xx, connection, malformed answer);
 * - the Node.js runtime, from prom-client's default collectors: `process_*`
 *   (CPU seconds, resident memory, open file descriptors, start time) and
 *   `nodejs_*` (event loop lag and its percentiles, heap spaces, GC durations
 *   by kind, active handles), the series every Node.js dashboard expects.
 *
 * Recording a request costs two map lookups and two updates: the series of a
 * (method, route, status) are made once and kept.
 */
import { timingSafeEqual } from "node:crypto"
import { Problem, RequestRecord } from "@partnerpay/adapters-http"
import { PgMetrics } from "@partnerpay/adapters-pg"
import { type Context, Effect, type Layer, Metric, Option, Redacted } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { PrometheusMetrics } from "effect/observability"
import { SqlClient } from "effect/sql/SqlClient"
import { collectDefaultMetrics, Registry } from "prom-client"

/** Upper bounds (seconds) of the request latency buckets: 1 ms to 10 s. */
export const latencyBuckets: ReadonlyArray<number> = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
]

interface RequestSeries {
  readonly count: Metric.Counter<number>
  readonly duration: Metric.Histogram<number>
}

const series = new Map<string, RequestSeries>()

const seriesOf = (method: string, route: string, status: number): RequestSeries => {
  const key = `${method} ${route} ${status}`
  let found = series.get(key)
  if (found === undefined) {
    found = {
      count: Metric.counter("partnerpay_http_requests_total", {
        description: "HTTP requests answered, by method, route template and status",
        attributes: { method, route, status: String(status) },
        incremental: true,
      }),
      duration: Metric.histogram("partnerpay_http_request_duration_seconds", {
        description: "Time to answer an HTTP request, by method and route template",
        attributes: { method, route },
        boundaries: latencyBuckets,
      }),
    }
    series.set(key, found)
  }
  return found
}

/** Records one answered request (synchronously, in the request fiber's context). */
export const recordRequestUnsafe = (
  context: Context.Context<never>,
  method: string,
  route: string | undefined,
  status: number,
  durationSeconds: number,
): void => {
  const requestSeries = seriesOf(method, route ?? "unmatched", status)
  requestSeries.count.updateUnsafe(1, context)
  requestSeries.duration.updateUnsafe(durationSeconds, context)
}

const deliveries = (outcome: "delivered" | "failed" | "gave_up") =>
  Metric.counter("partnerpay_webhook_deliveries_total", {
    description: "Webhook delivery attempts, by outcome (failed: will be retried)",
    attributes: { outcome },
    incremental: true,
  })

/** Webhook delivery attempts by outcome. */
export const webhookDeliveries = {
  delivered: deliveries("delivered"),
  failed: deliveries("failed"),
  gaveUp: deliveries("gave_up"),
} as const

const workerRunSeries = new Map<string, Metric.Counter<number>>()

/** Counts one step of a background worker: `work` (did something), `idle` or `failed`. */
export const workerRun = (worker: string, outcome: "work" | "idle" | "failed"): Effect.Effect<void> => {
  const key = `${worker} ${outcome}`
  let counter = workerRunSeries.get(key)
  if (counter === undefined) {
    counter = Metric.counter("partnerpay_worker_runs_total", {
      description: "Background worker steps (scheduler, settlement, KYB, webhook dispatcher), by outcome",
      attributes: { worker, outcome },
      incremental: true,
    })
    workerRunSeries.set(key, counter)
  }
  return Metric.update(counter, 1)
}

const providerCallSeries = new Map<string, Metric.Counter<number>>()

/** Counts one call to a provider by its outcome. */
export const providerCall = (
  provider: string,
  operation: string,
  outcome: "ok" | "refused" | "unavailable",
): Effect.Effect<void> => {
  const key = `${provider}\n${operation}\n${outcome}`
  let counter = providerCallSeries.get(key)
  if (counter === undefined) {
    counter = Metric.counter("partnerpay_provider_calls_total", {
      description: "Calls to the providers (bridges and first-party adapters), by outcome",
      attributes: { provider, operation, outcome },
      incremental: true,
    })
    providerCallSeries.set(key, counter)
  }
  return Metric.update(counter, 1)
}

/** Counts the call `self` makes to `provider`: ok, refused (a port's refusal) or unavailable. */
export const countProviderCall =
  (provider: string, operation: string) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    self.pipe(
      Effect.tap(() => providerCall(provider, operation, "ok")),
      Effect.tapError((error) =>
        providerCall(
          provider,
          operation,
          (error as { readonly _tag?: unknown } | null)?._tag === "ProviderUnavailable" ? "unavailable" : "refused",
        ),
      ),
    )

const contentType = "text/plain; version=0.0.4; charset=utf-8"

let runtimeRegistry: Registry | undefined

/** prom-client's registry of the runtime collectors, started once per process on the first scrape. */
const runtime = (): Registry => {
  if (runtimeRegistry === undefined) {
    runtimeRegistry = new Registry()
    collectDefaultMetrics({ register: runtimeRegistry })
  }
  return runtimeRegistry
}

/**
 * The Prometheus text of every metric: the service's (the outbox backlog read now; a failed read keeps
 * the last values), then the Node.js runtime's.
 */
export const render: Effect.Effect<string, never, SqlClient> = PgMetrics.outboxBacklog().pipe(
  Effect.catchCause(() => Effect.void),
  Effect.andThen(PgMetrics.negativeBalances().pipe(Effect.catchCause(() => Effect.void))),
  Effect.andThen(PgMetrics.debitPayoutsFailed().pipe(Effect.catchCause(() => Effect.void))),
  // Every kind of database timeout listed from the first scrape (0 until one happens).
  Effect.andThen(Effect.forEach(PgMetrics.timeoutKinds, (kind) => Metric.update(PgMetrics.databaseTimeouts(kind), 0))),
  Effect.andThen(PrometheusMetrics.format()),
  Effect.flatMap((service) =>
    Effect.promise(() => runtime().metrics()).pipe(
      Effect.map((node) => `${service.endsWith("\n") ? service : `${service}\n`}${node}`),
    ),
  ),
)

/** Whether the request carries `Authorization: Bearer <token>` (constant time). */
const authorized = (header: string | undefined, token: Redacted.Redacted<string>): boolean => {
  const expected = Buffer.from(`Bearer ${Redacted.value(token)}`, "utf8")
  const given = Buffer.from(header ?? "", "utf8")
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** `GET /metrics`; with `token`, only for a request that carries it as a bearer token (else 401). */
export const routes = (
  token: Option.Option<Redacted.Redacted<string>> = Option.none(),
): Layer.Layer<never, never, HttpRouter.HttpRouter | SqlClient> =>
  HttpRouter.use(
    Effect.fnUntraced(function* (router) {
      const sql = yield* SqlClient
      const answer = render.pipe(
        Effect.provideService(SqlClient, sql),
        Effect.map((body) => HttpServerResponse.text(body, { contentType })),
      )
      yield* router.add("GET", "/metrics", (request) =>
        Option.isNone(token) || authorized(request.headers.authorization, token.value)
          ? answer
          : Effect.withFiber((fiber) =>
              Problem.toResponse(
                Problem.unauthorized(
                  "GET /metrics needs the metrics token (PARTNERPAY_METRICS_TOKEN) as a bearer token.",
                ),
                RequestRecord.correlationIdOf(fiber),
              ),
            ),
      )
    }),
  )
