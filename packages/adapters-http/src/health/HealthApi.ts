/** GET /HealthCheck/Get: 200 with no body when healthy, 503 problem otherwise. */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication } from "../cross-cutting/Authentication.ts"
import * as Problem from "../cross-cutting/Problem.ts"

export class HealthApi extends HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("check", "/HealthCheck/Get", {
      success: HttpApiSchema.Empty(200),
      error: Problem.ServiceUnavailable,
    }).annotateMerge(OpenApi.annotations({ summary: "Check that the service can work" })),
  )
  .middleware(Authentication)
  .annotateMerge(
    OpenApi.annotations({
      title: "Health",
      description:
        "Whether the service can work, for a partner's monitoring (the operator's unauthenticated probes are GET /livez and GET /readyz, outside this document)",
    }),
  ) {}
