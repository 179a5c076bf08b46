/**
 * OpenTelemetry traces: when OTEL_EXPORTER_OTLP_ENDPOINT (or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, every span of the service
 * (one per HTTP request, continuing the caller's W3C `traceparent`, and the
 * `Effect.fn` spans of use cases, stores and workers below it) is exported
 * with Effect's OTLP tracer (`effect/observability`, OTLP/HTTP with JSON
 * bodies) every OTEL_BSP_SCHEDULE_DELAY ms, and flushed at shutdown. Without
 * an endpoint nothing is exported and spans stay off unless
 * PARTNERPAY_TRACING=on (Http.tracing).
 */
import { Layer, Option } from "effect"
import { FetchHttpClient } from "effect/http"
import { OtlpSerialization, OtlpTracer } from "effect/observability"
import type { TraceExportConfig } from "../config/Config.ts"

/** The service's version as reported in the `service.version` resource attribute. */
export const serviceVersion = "0.1.0"

/** The OTLP tracer for `config`, or nothing (Effect's default tracer, spans kept in process). */
export const layer = (config: Option.Option<TraceExportConfig>) =>
  Option.match(config, {
    onNone: () => Layer.empty as Layer.Layer<unknown>,
    onSome: (options) =>
      OtlpTracer.layer({
        url: options.url,
        resource: { serviceName: options.serviceName, serviceVersion },
        exportInterval: options.exportIntervalMillis,
      }).pipe(Layer.provide(OtlpSerialization.layerJson), Layer.provide(FetchHttpClient.layer)) as Layer.Layer<unknown>,
  })
