/**
 * The HealthCheck port: whether the service can do its work (database
 * reachable, ...). GET /HealthCheck/Get answers 200 when `check` succeeds and a
 * 503 problem when it fails. The application composes the real checks.
 */
import { Context, Effect, Layer, Schema } from "effect"

export class Unhealthy extends Schema.TaggedError<Unhealthy>()("Unhealthy", {
  /** For logs; not shown to clients. */
  reason: Schema.String,
}) {}

export class HealthCheck extends Context.Service<
  HealthCheck,
  {
    readonly check: Effect.Effect<void, Unhealthy>
  }
>()("partnerpay/adapters-http/HealthCheck") {
  /** Always healthy: for tests and for running without dependencies. */
  static readonly layerAlwaysHealthy: Layer.Layer<HealthCheck> = Layer.succeed(
    HealthCheck,
    HealthCheck.of({ check: Effect.void }),
  )
}
