/** Handler of the `health` group: runs the `HealthCheck` port. */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import * as Problem from "../cross-cutting/Problem.ts"
import { HealthCheck } from "./HealthCheck.ts"

export const HealthLive = HttpApiBuilder.group(
  Api,
  "health",
  Effect.fn(function* (handlers) {
    const health = yield* HealthCheck
    return handlers.handle("check", () =>
      health.check.pipe(
        Effect.tapError((unhealthy) => Effect.logWarning("health check failed", unhealthy.reason)),
        Effect.mapError(
          () =>
            new Problem.ServiceUnavailable({
              detail: "The service cannot serve requests right now; retry later.",
              code: "SERVICE_UNAVAILABLE",
            }),
        ),
      ),
    )
  }),
)
