/**
 * The cross-cutting steps in the OpenAPI document (`openApiTransform`, registered on the API with
 * `OpenApi.annotations({ transform })` in Api.ts): the bearer token as a JWT and the default
 * security, the `Partnerpay-Version` header and 429 on every operation, `Retry-After` on every 429
 * and 503, and the `Idempotency-Key`
 * header with its 409 and 422 answers on every POST (except /auth/token).
 */
import * as ApiVersions from "./ApiVersions.ts"
import { idempotencyExempt, idempotencyHeader, maxIdempotencyKeyLength } from "./Idempotency.ts"

const problemContent = (schema: string) => ({
  "application/problem+json": { schema: { $ref: `#/components/schemas/${schema}` } },
})

type JsonObject = { [key: string]: unknown }
const isObject = (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)
const objectAt = (parent: JsonObject, key: string): JsonObject => {
  const value = parent[key]
  if (isObject(value)) return value
  const created: JsonObject = {}
  parent[key] = created
  return created
}

/** The `Partnerpay-Version` request header, on every operation. */
const versionParameter = {
  name: ApiVersions.header,
  in: "header",
  required: false,
  description:
    "The dated API version the request is written for (docs/api/versions.md); without it, the partner's own version, pinned to the latest at its first call. Every answer names the version it was given in (header Partnerpay-Version). A version that does not exist is 400.",
  schema: { type: "string", enum: ApiVersions.versions.map((v) => v.version) },
}

/** The `Retry-After` header of a 429 (the bucket's wait) and a 503 (a database or store unavailable: 1). */
const retryAfterHeader = {
  description: "Seconds to wait before retrying the request",
  schema: { type: "integer", minimum: 0 },
}

export const openApiTransform = (spec: JsonObject): JsonObject => {
  const schemas = objectAt(objectAt(spec, "components"), "schemas")
  const has = (name: string) => Object.hasOwn(schemas, name)
  // The bearer token is a JWT (interface section 5); the OpenAPI 3.1 schema only accepts
  // bearerFormat with the scheme written "bearer" (schemes are case-insensitive).
  for (const [name, scheme] of Object.entries(objectAt(objectAt(spec, "components"), "securitySchemes"))) {
    if (isObject(scheme) && scheme.type === "http" && String(scheme.scheme).toLowerCase() === "bearer") {
      scheme.scheme = "bearer"
      scheme.bearerFormat = "JWT"
      // The bearer token is the rule; an operation that needs none says so itself (`security: []`).
      spec.security = [{ [name]: [] }]
    }
  }
  for (const [path, item] of Object.entries(objectAt(spec, "paths"))) {
    if (!isObject(item)) continue
    for (const [method, operation] of Object.entries(item)) {
      if (!isObject(operation) || !isObject(operation.responses)) continue
      const responses = operation.responses
      if (responses["429"] === undefined && has("TooManyRequests")) {
        responses["429"] = {
          description: "Too many requests (see Retry-After)",
          content: problemContent("TooManyRequests"),
        }
      }
      // Both answers carry Retry-After (Problem.toResponse): declared where they are.
      for (const status of ["429", "503"]) {
        const response = responses[status]
        if (isObject(response)) response.headers = { ...objectAt(response, "headers"), "Retry-After": retryAfterHeader }
      }
      operation.parameters = [
        ...(Array.isArray(operation.parameters) ? (operation.parameters as ReadonlyArray<unknown>) : []),
        versionParameter,
      ]
      if (method !== "post" || idempotencyExempt.has(path)) continue
      const parameters = Array.isArray(operation.parameters) ? (operation.parameters as ReadonlyArray<unknown>) : []
      operation.parameters = [
        ...parameters.filter((p) => !(isObject(p) && p.in === "header" && p.name === idempotencyHeader)),
        {
          name: idempotencyHeader,
          in: "header",
          required: false,
          description:
            "Makes a retry safe: the same key with the same request replays the first response for 24 hours " +
            "(header Idempotent-Replayed: true); the same key with a different request is 422 " +
            "IDEMPOTENCY_KEY_REUSED; while the first request runs, 409 IDEMPOTENCY_REQUEST_IN_PROGRESS. " +
            "Keys are scoped to the caller; 5xx responses are not stored.",
          schema: { type: "string", minLength: 1, maxLength: maxIdempotencyKeyLength },
        },
      ]
      if (responses["409"] === undefined && has("ConcurrentModification")) {
        responses["409"] = {
          description: "IDEMPOTENCY_REQUEST_IN_PROGRESS",
          content: problemContent("ConcurrentModification"),
        }
      }
      if (responses["422"] === undefined && has("RuleViolation")) {
        responses["422"] = { description: "IDEMPOTENCY_KEY_REUSED", content: problemContent("RuleViolation") }
      }
    }
  }
  return spec
}
